// Fuzzes `stubjit dump-stub`'s input: the kernel description parser (JSON, the
// signature in it) and the stub generator behind it. Every failure must be a
// stubjit::Error (a KernelFileError, SignatureError, ...): any other exception, a crash
// or undefined behaviour is a finding. A stub that is generated must hold the user's
// body verbatim after the stub's own code, and its entry point.
// The first byte picks the dialect, mode, rank, index width and (a scan's or sort's)
// stage; the rest is the file.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "kernel_file.hpp"
#include "stubjit/error.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/stub.hpp"

namespace stubjit::fuzz {
namespace {

[[noreturn]] void fail(const char* what, const std::string& file) {
  std::fprintf(stderr, "kernel file fuzzer: %s\n--- file ---\n%s\n", what, file.c_str());
  std::abort();
}

StubOptions options_of(FuzzInput& in, const tool::KernelDescription& description) {
  static const char* const dialects[] = {"cpp", "cuda", "hip"};
  const std::uint8_t choice = in.u8();
  StubOptions options;
  options.dialect = dialects[choice % 3];
  options.mode = static_cast<Mode>((choice / 3) % 3);
  options.rank = 1 + (choice / 9) % 8;
  options.index_bits = (choice & 0x80) != 0 ? 32 : 64;
  options.bindings = description.bindings;
  if (options.dialect != "cpp") {
    options.warp_size = options.dialect == "cuda" ? 32 : 64;
  }
  // A scan's or sort's other stage (the partials, the merge passes) on bit 6.
  for (const Param& param : description.source.signature) {
    options.scan_partials = options.scan_partials || (param.is_scan() && (choice & 0x40) != 0);
    options.sort_merge = options.sort_merge || (param.is_sort() && (choice & 0x40) != 0);
  }
  return options;
}

}  // namespace
}  // namespace stubjit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace stubjit;
  using namespace stubjit::fuzz;
  FuzzInput options_byte(data, size == 0 ? 0 : 1);
  FuzzInput in(size == 0 ? data : data + 1, size == 0 ? 0 : size - 1);
  const std::string file = in.rest();
  tool::KernelDescription description;
  try {
    description = tool::parse_kernel_description(file, "fuzz.json");
  } catch (const tool::KernelFileError&) {
    return 0;
  }
  StubOptions options = options_of(options_byte, description);
  StubSource stub;
  try {
    // As `stubjit dump-stub` does: the launch bounds from the file's block constraints.
    if (options.dialect != "cpp")
      options.launch_bounds =
          max_group_threads(DeviceLimits{}, description.source.block, options.mode, options.rank);
    stub = generate_stub_source(description.source, options);
  } catch (const Error&) {
    return 0;  // a bad kernel or options that do not fit it, said with a stubjit error
  }
  if (stub.stub_offset > stub.source.size()) fail("the stub begins past its source's end", file);
  const std::string own = stub.source.substr(stub.stub_offset);
  if (stub.entry.empty() || own.find(stub.entry) == std::string::npos)
    fail("the generated stub lacks its entry point", file);
  // The body is the last of the user's code: its last occurrence is the body itself.
  const std::size_t body_at = own.rfind(description.source.body);
  if (body_at == std::string::npos) fail("the generated stub lacks the user's body", file);
  if (own.find(stub.entry) > body_at) fail("the entry point is not before the user's body", file);
  return 0;
}
