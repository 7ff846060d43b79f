// A stand-in for NVRTC that reports a version (FAKE_NVRTC_MAJOR.FAKE_NVRTC_MINOR, set
// when it is built) and two architectures, and compiles nothing: what the tests of
// choosing an NVRTC for a driver's version load, several versions side by side
// (tests/cuda/CMakeLists.txt builds one library per version).
#include <cstddef>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
constexpr int not_implemented = 7;  // NVRTC_ERROR_INTERNAL_ERROR
constexpr int archs[] = {80, 90};
}  // namespace

FAKE_EXPORT const char* nvrtcGetErrorString(int) { return "fake NVRTC: not implemented"; }
FAKE_EXPORT int nvrtcVersion(int* major, int* minor) {
  *major = FAKE_NVRTC_MAJOR;
  *minor = FAKE_NVRTC_MINOR;
  return 0;
}
FAKE_EXPORT int nvrtcGetNumSupportedArchs(int* count) {
  *count = static_cast<int>(sizeof archs / sizeof archs[0]);
  return 0;
}
FAKE_EXPORT int nvrtcGetSupportedArchs(int* out) {
  for (int arch : archs) *out++ = arch;
  return 0;
}
FAKE_EXPORT int nvrtcCreateProgram(void**, const char*, const char*, int, const char* const*,
                                   const char* const*) {
  return not_implemented;
}
FAKE_EXPORT int nvrtcDestroyProgram(void**) { return 0; }
FAKE_EXPORT int nvrtcCompileProgram(void*, int, const char* const*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetProgramLogSize(void*, std::size_t*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetProgramLog(void*, char*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetCUBINSize(void*, std::size_t*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetCUBIN(void*, char*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetPTXSize(void*, std::size_t*) { return not_implemented; }
FAKE_EXPORT int nvrtcGetPTX(void*, char*) { return not_implemented; }
