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

struct DumpFlags {
  std::string file;
  std::string mode = "direct";
  int rank = 1;
  std::string dialect = "cpp";
  int index_bits = 64;
  std::uint32_t launch_bounds = 0;
  std::optional<std::uint32_t> warp_size;
  std::int64_t rows = 0;
  std::int64_t view_stride = 1;
  bool dense = false;
  int dimension = -1;
  bool scan_partials = false;
  bool sort_merge = false;
  bool stub_only = false;
};

// The dialect as the library lists it. Its default warp width is what a runtime of
// the dialect assumes unless told: CUDA warps are 32 wide; HIP wavefronts 64 on
// GCN/CDNA (gfx9: gfx90a, gfx942), which RDNA (gfx10 and later, wave32) users override
// with --warp-size 32.
StubDialect dialect_named(const std::string& name) {
  for (const StubDialect& dialect : stub_dialects())
    if (dialect.name == name) return dialect;
  throw Error("unknown dialect '" + name + "'");
}

std::vector<std::string> dialect_names() {
  std::vector<std::string> names;
  for (const StubDialect& dialect : stub_dialects()) names.push_back(dialect.name);
  return names;
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

void add_dump_stub_command(CLI::App& app, const GlobalFlags& global, Action& action) {
  auto flags = std::make_shared<DumpFlags>();  // owned by the callback below
  CLI::App* command = app.add_subcommand(
      "dump-stub", "Print the stub generated for a kernel description file (docs/cli.md)");
  command->add_option("file", flags->file, "Kernel description (JSON), or - for stdin")->required();
  command->add_option("--mode", flags->mode, "direct, spread or multi")
      ->check(CLI::IsMember({"direct", "spread", "multi"}))
      ->capture_default_str();
  command->add_option("--rank", flags->rank, "Rank of the compute domain")
      ->check(CLI::Range(1, 8))
      ->capture_default_str();
  command->add_option("--dialect", flags->dialect, "cpp (CPU backend), cuda or hip")
      ->check(CLI::IsMember(dialect_names()))
      ->capture_default_str();
  command->add_option("--index-bits", flags->index_bits, "Width of positions and indices")
      ->check(CLI::IsMember({32, 64}))
      ->capture_default_str();
  command->add_option("--launch-bounds", flags->launch_bounds,
                      "GPU dialects: threads per group to declare (default: as for a device "
                      "with 1024 threads per group)");
  command
      ->add_option("--warp-size", flags->warp_size,
                   "GPU dialects: STUBJIT_WARP_SIZE (default: 32 for cuda, 64 for hip; "
                   "32 for RDNA targets, gfx10 and later)")
      ->check(CLI::IsMember({32, 64}));
  command
      ->add_option("--rows", flags->rows,
                   "cpp, rank 2 and up: the innermost extent compiled in, as a CPU launch "
                   "whose innermost extent is at most 16 gets it (default: none)")
      ->check(
          CLI::Range(std::int64_t(1), std::int64_t(1) << 62));  // above 16: the library says why
  command
      ->add_option("--view-stride", flags->view_stride,
                   "cpp, with --rows: the stride along the innermost loop that the broadcast "
                   "views share, compiled in as a CPU launch with short rows gets it "
                   "(default: 1)")
      ->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 62));  // above 16: as --rows
  command->add_flag("--dense", flags->dense,
                    "GPU dialects: the stub of a dense launch (a domain from 0 with unit steps "
                    "over fields contiguous along its innermost dimension)");
  command
      ->add_option("--dimension", flags->dimension,
                   "Reduce, scan and sort kernels: the dimension combined or sorted along "
                   "(default -1: the last; a result of rank 0 takes the whole domain)")
      ->check(CLI::Range(-1, 7));
  command->add_flag("--scan-partials", flags->scan_partials,
                    "Scan kernels: the stub of the first stage (each part's combination), "
                    "which a launch that splits a pencil runs first");
  command->add_flag("--sort-merge", flags->sort_merge,
                    "Sort kernels: the stub of the merge passes rather than of the first stage "
                    "(each part evaluated and sorted)");
  command->add_flag("--stub-only", flags->stub_only, "Leave out the embedded prelude");
  command->callback([&global, &action, flags] {
    action = [&global, flags] { return dump(*flags, global.json); };
  });
}

}  // namespace stubjit::tool
