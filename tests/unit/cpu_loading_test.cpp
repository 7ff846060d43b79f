// The CPU backend without LLVM: its target named from /proc/cpuinfo, and stubs loaded
// from sealed memory files, so that the bytes verified are the bytes that run.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/cpu/host_cpu.hpp"
#include "backends/cpu/shared_object_loader.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

const char* const x86_cpuinfo =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n"
    "stepping\t: 7\n"
    "cpu MHz\t\t: 2200.152\n"
    "core id\t\t: 0\n"
    "flags\t\t: fpu sse2 avx avx2 avx512f\n"
    "bogomips\t: 4400.30\n"
    "\n"
    "processor\t: 1\n"
    "vendor_id\t: GenuineIntel\n"
    "cpu family\t: 6\n"
    "model\t\t: 85\n"
    "flags\t\t: fpu sse2\n"
    "\n";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(HostCpu, TargetIdNamesTheCpuAndHashesWhatCodeDependsOn) {
  const HostCpu cpu = host_cpu_from(x86_cpuinfo, "words");
  EXPECT_EQ(cpu.model, "Intel(R) Xeon(R) CPU @ 2.20GHz");
  EXPECT_EQ(cpu.target_id.rfind("GenuineIntel-6-85/"), cpu.target_id.find('/') + 1)
      << cpu.target_id;
  // Frequency, core number and bogomips vary between cores and over time: not part of it.
  const std::string other_core = replaced(
      replaced(replaced(x86_cpuinfo, "2200.152", "3100.000"), "core id\t\t: 0", "core id\t\t: 5"),
      "4400.30", "4401.00");
  EXPECT_EQ(host_cpu_from(other_core, "words").target_id, cpu.target_id);
  // A feature more or less, another stepping or model: other code from -march=native.
  EXPECT_NE(host_cpu_from(replaced(x86_cpuinfo, "avx512f\n", "\n"), "words").target_id,
            cpu.target_id);
  EXPECT_NE(
      host_cpu_from(replaced(x86_cpuinfo, "stepping\t: 7", "stepping\t: 4"), "words").target_id,
      cpu.target_id);
  EXPECT_NE(
      host_cpu_from(replaced(x86_cpuinfo, "model\t\t: 85", "model\t\t: 106"), "words").target_id,
      cpu.target_id);
  // What the compiler reads itself (CPUID and XCR0 on x86) counts too: a kernel that
  // does not know a feature leaves it out of the flags, not out of -march=native.
  EXPECT_NE(host_cpu_from(x86_cpuinfo, "words and avx10").target_id, cpu.target_id);
  // Only the first processor counts (the second's shorter flags change nothing).
  EXPECT_EQ(
      host_cpu_from(replaced(x86_cpuinfo, "flags\t\t: fpu sse2\n", "flags\t\t: fpu\n"), "words")
          .target_id,
      cpu.target_id);
}

// A field of the first processor in /proc/cpuinfo ("" when absent).
std::string cpuinfo_field(const std::string& name) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key == name) return line.substr(line.find_first_not_of(" ", colon + 1));
  }
  return "";
}

TEST(HostCpu, ThisHostsTargetIdAgreesWithTheKernelsView) {
  const HostCpu& cpu = host_cpu();
  EXPECT_EQ(make_cpu_toolchain()->target_id(), cpu.target_id);
  EXPECT_NE(cpu.model, "unknown CPU");
#if defined(__x86_64__)
  // Decoded from CPUID here; the kernel decodes the same registers on its own.
  const std::string expected = "x86_64-pc-linux-gnu/" + cpuinfo_field("vendor_id") + "-" +
                               cpuinfo_field("cpu family") + "-" + cpuinfo_field("model") + "/";
  EXPECT_EQ(cpu.target_id.rfind(expected, 0), 0u) << cpu.target_id << " vs " << expected;
#endif
}

TEST(SealedImage, HoldsTheBytesAndRefusesAnyChange) {
  const std::vector<char> bytes = {'s', 't', 'u', 'b'};
  SealedImage image(bytes, "stubjit:test");
  char back[4] = {};
  ASSERT_EQ(::pread(image.fd(), back, 4, 0), 4);
  EXPECT_EQ(std::string(back, 4), "stub");
  const int seals = ::fcntl(image.fd(), F_GET_SEALS);
  EXPECT_EQ(seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
            F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
  EXPECT_EQ(::pwrite(image.fd(), "evil", 4, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_NE(::ftruncate(image.fd(), 0), 0);
  EXPECT_NE(::ftruncate(image.fd(), 1 << 20), 0);
  // Opened again by its path (as the dynamic linker does), it cannot be written either.
  const int writable = ::open(image.path().c_str(), O_WRONLY);
  if (writable >= 0) {
    EXPECT_EQ(::write(writable, "evil", 4), -1);
    ::close(writable);
  }
}

Binary compile_saxpy(const std::string& tag) {
  const KernelSource source{
      "saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, "y = a * x + y; // " + tag};
  StubRequest request;
  request.kernel = &source;
  request.mode = Mode::spread;
  request.rank = 1;
  request.bindings = {Binding::scalar, Binding::projection, Binding::projection};
  const GeneratedStub stub = generate_stub(request);
  const std::vector<std::string> options;
  return make_cpu_toolchain()->compile({stub.source, stub.file_name, stub.entry, "saxpy", options});
}

// The path of the file that the page holding `address` was mapped from.
std::string mapped_from(const void* address) {
  std::ifstream maps("/proc/self/maps");
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::string line;
  while (std::getline(maps, line)) {
    std::uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) != 2) continue;
    if (target < begin || target >= end) continue;
    const auto slash = line.find('/');
    return slash == std::string::npos ? "" : line.substr(slash);
  }
  return "";
}

TEST(CpuModule, RunsFromASealedMemoryFile) {
  const Binary binary = compile_saxpy("sealed");
  const CpuModule module(binary.bytes, "stubjit_saxpy_spread_r1");
  ASSERT_NE(module.entry(), nullptr);
  const std::string file = mapped_from(reinterpret_cast<const void*>(module.entry()));
  EXPECT_EQ(file.rfind("/memfd:stubjit:stubjit_saxpy_spread_r1", 0), 0u) << file;
}

TEST(CpuModule, TwoLoadsOfOneEntryNameAreSeparateAndUnloadCleanly) {
  // Each module is its own library: the same entry name in both, no clash, and the
  // descriptor numbers freed by one are safe to reuse for the next.
  const Binary first = compile_saxpy("first");
  const Binary second = compile_saxpy("second");
  for (int round = 0; round < 3; ++round) {
    CpuModule a(first.bytes, "stubjit_saxpy_spread_r1");
    CpuModule b(second.bytes, "stubjit_saxpy_spread_r1");
    EXPECT_NE(reinterpret_cast<const void*>(a.entry()), reinterpret_cast<const void*>(b.entry()));
  }
}

bool descriptor_open(const std::string& proc_path) {
  const int fd = std::stoi(proc_path.substr(proc_path.rfind('/') + 1));
  return ::fcntl(fd, F_GETFD) != -1;
}

TEST(CpuModule, HoldsNoDescriptorAndNeverReusesALoadedLibrarysPath) {
  const Binary first = compile_saxpy("first-path");
  const Binary second = compile_saxpy("second-path");
  std::string path;
  void* pinned = nullptr;
  {
    const CpuModule module(first.bytes, "stubjit_saxpy_spread_r1");
    path = module.path();
    // Mapped, the stub needs its memory file's descriptor no more: thousands of
    // loaded stubs must not use up the process's descriptors.
    EXPECT_FALSE(descriptor_open(path));
    // Another handle makes the library undeletable: it stays loaded under `path`
    // after the module is gone.
    pinned = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NODELETE);
    ASSERT_NE(pinned, nullptr) << ::dlerror();
  }
  const void* pinned_entry = ::dlsym(pinned, "stubjit_saxpy_spread_r1");
  ASSERT_NE(pinned_entry, nullptr);
  // The next memory file gets the lowest free descriptor, the number in `path`; the
  // dynamic linker would answer that path with the pinned library. The module must
  // load its own code under another path.
  const int probe = ::memfd_create("probe", MFD_CLOEXEC);
  ASSERT_EQ("/proc/self/fd/" + std::to_string(probe), path) << "the case this test is about";
  ::close(probe);
  const CpuModule next(second.bytes, "stubjit_saxpy_spread_r1");
  EXPECT_NE(next.path(), path);
  EXPECT_NE(reinterpret_cast<const void*>(next.entry()), pinned_entry);
  const std::string file = mapped_from(reinterpret_cast<const void*>(next.entry()));
  EXPECT_EQ(file.rfind("/memfd:stubjit:", 0), 0u) << file;
}

TEST(CpuModule, RefusesWhatIsNotASharedObject) {
  EXPECT_THROW(CpuModule(std::vector<char>(256, 'x'), "entry"), BackendError);
  const Binary binary = compile_saxpy("missing-entry");
  EXPECT_THROW(CpuModule(binary.bytes, "stubjit_no_such_entry"), BackendError);
}

}  // namespace
}  // namespace stubjit::detail
