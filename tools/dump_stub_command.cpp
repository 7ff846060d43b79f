// stubjit dump-stub FILE --mode M --rank R: the stub stubjit would generate for a
// kernel description, in any dialect, without a device or a compiler. Public API
// only (stubjit/stub.hpp), like every part of this command.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "commands.hpp"
#include "kernel_file.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/stub.hpp"

namespace stubjit::tool {
namespace {

// The dialect as the library lists it. Its default warp width is what a runtime of
// the dialect assumes unless told: CUDA warps are 32 wide; HIP wavefronts 64 on
// GCN/CDNA (gfx9: gfx90a, gfx942), which RDNA (gfx10 and later, wave32) users override
// with --warp-size 32.
StubDialect dialect_named(const std::string& name) {
  for (const StubDialect& dialect : stub_dialects())
    if (dialect.name == name) return dialect;
  throw Error("unknown dialect '" + name + "'");
}

int dump(const DumpFlags& flags, bool as_json) {
  const KernelDescription description = read_kernel_description(flags.file);
  StubOptions options;
  options.dialect = flags.dialect;
  options.mode = parse_mode(flags.mode);
  options.rank = flags.rank;
  options.index_bits = flags.index_bits;
  options.bindings = description.bindings;
  options.rows = flags.rows;
  options.view_stride = flags.view_stride;
  options.dense = flags.dense;
  options.reduce_dimension = flags.dimension;
  options.scan_partials = flags.scan_partials;
  options.sort_merge = flags.sort_merge;
  // Group, reduce and scan stubs plan their groups whatever the mode (reduce and scan
  // stubs are numbered as spread).
  bool combining = false, grouped = false;
  for (const Param& param : description.source.signature) {
    combining = combining || param.is_result() || param.is_sort();
    grouped = grouped || param.kind == ParamKind::group || param.is_result() || param.is_sort();
  }
  const StubDialect dialect = dialect_named(flags.dialect);
  if (dialect.takes_launch_bounds_and_warp_size) {
    // What a typical GPU (1024 threads per group) would give, unless set: a group,
    // reduce or scan stub declares its largest group (as their launches plan them),
    // a per-element stub its mode's block.
    options.launch_bounds =
        flags.launch_bounds ? flags.launch_bounds
        : grouped
            ? max_group_launch_threads(description.source.block, DeviceLimits{})
            : max_group_threads(DeviceLimits{}, description.source.block, options.mode, flags.rank);
    options.warp_size = flags.warp_size.value_or(dialect.default_warp_size);
  } else if (flags.launch_bounds || flags.warp_size) {
    throw Error("--launch-bounds and --warp-size are for the GPU dialects, not " + flags.dialect);
  }
  const StubSource stub = generate_stub_source(description.source, options);
  const std::string text = flags.stub_only ? stub.source.substr(stub.stub_offset) : stub.source;
  if (as_json) {
    const nlohmann::ordered_json out = {{"entry", stub.entry},
                                        {"file_name", stub.file_name},
                                        {"dialect", flags.dialect},
                                        {"mode", combining ? "spread" : flags.mode},
                                        {"rank", flags.rank},
                                        {"index_bits", flags.index_bits},
                                        {"launch_bounds", options.launch_bounds},
                                        {"warp_size", options.warp_size},
                                        {"rows", options.rows},
                                        {"view_stride", options.view_stride},
                                        {"dense", options.dense},
                                        {"dimension", options.reduce_dimension},
                                        {"scan_partials", options.scan_partials},
                                        {"sort_merge", options.sort_merge},
                                        {"source", text}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return exit_ok;
}

}  // namespace

std::vector<std::string> dialect_names() {
  std::vector<std::string> names;
  for (const StubDialect& dialect : stub_dialects()) names.push_back(dialect.name);
  return names;
}

int run_dump_stub(const DumpFlags& flags, bool as_json) { return dump(flags, as_json); }

}  // namespace stubjit::tool
