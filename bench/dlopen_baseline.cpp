// The floor of the whole-process figures (bench/whole_process.py): an empty C++
// program that opens one small shared object with dlopen and calls into it, what any
// program that loads code at run time pays before doing anything.
//
//   bench_dlopen_baseline MODULE_PATH
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* module = ::dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!module) {
    std::fprintf(stderr, "%s\n", ::dlerror());
    return 1;
  }
  auto* answer = reinterpret_cast<int (*)()>(::dlsym(module, "bench_tiny_answer"));
  return answer && answer() == 42 ? 0 : 1;
}
