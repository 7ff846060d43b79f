// Links against an installed libstubjit and runs one kernel.
#include <stubjit/stubjit.hpp>

#include <cstdio>

int main() {
  stubjit::Runtime runtime;
  stubjit::Kernel twice =
      runtime.kernel({"twice", {stubjit::inout<int>("v")}, "v = 2 * v;", "", {}});
  stubjit::Field v = runtime.allocate<int>({5});
  v.copy_from(std::vector<int>{1, 2, 3, 4, 5});
  twice.launch(stubjit::Domain{5}, v);
  const std::vector<int> out = v.to_vector<int>();
  const bool ok = out == std::vector<int>{2, 4, 6, 8, 10};
  std::printf("consumer on %s: %s\n", runtime.backend_name().c_str(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
