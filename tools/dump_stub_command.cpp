// stubjit dump-stub FILE --mode M --rank R: the stub stubjit would generate for a
// kernel description, in any dialect, without a device or a compiler.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "codegen/identifier.hpp"
#include "codegen/stub_request.hpp"
#include "commands.hpp"
#include "kernel_file.hpp"
#include "stubjit/plan.hpp"

namespace stubjit::tool {
namespace {

struct DumpFlags {
  std::string file;
  std::string mode = "direct";
  int rank = 1;
  std::string dialect = "cpp";
  int index_bits = 64;
  std::uint32_t launch_bounds = 0;
  bool stub_only = false;
};

detail::Dialect dialect_of(const std::string& name) {
  if (name == "cuda") return detail::Dialect::cuda;
  if (name == "hip") return detail::Dialect::hip;
  return detail::Dialect::cpp;
}

int dump(const DumpFlags& flags, bool as_json) {
  const KernelDescription description = read_kernel_description(flags.file);
  detail::validate_kernel_source(description.source);
  const Mode mode = parse_mode(flags.mode);
  if (mode == Mode::direct && flags.rank > 3) {
    throw Error("mode direct covers rank 1 to 3; use spread or multi for rank " +
                std::to_string(flags.rank));
  }
  for (std::size_t i = 0; i < description.bindings.size(); ++i) {
    const Param& param = description.source.signature[i];
    if (description.bindings[i] == Binding::projection &&
        param.rank + flags.rank > max_field_rank) {
      throw Error("parameter '" + param.name + "' projected over rank " +
                  std::to_string(flags.rank) + " needs a field of rank " +
                  std::to_string(param.rank + flags.rank) + " (at most " +
                  std::to_string(max_field_rank) + ")");
    }
  }
  detail::StubRequest request;
  request.dialect = dialect_of(flags.dialect);
  request.mode = mode;
  request.rank = flags.rank;
  request.index_bits = flags.index_bits;
  request.kernel = &description.source;
  request.bindings = description.bindings;
  if (request.dialect != detail::Dialect::cpp) {
    // What a typical GPU (1024 threads per group) would give, unless set.
    request.max_threads_per_group =
        flags.launch_bounds
            ? flags.launch_bounds
            : max_group_threads(DeviceLimits{}, description.source.block, mode, flags.rank);
  }
  const detail::GeneratedStub stub = detail::generate_stub(request);
  const std::string text = flags.stub_only ? stub.source.substr(stub.stub_offset) : stub.source;
  if (as_json) {
    const nlohmann::ordered_json out = {
        {"entry", stub.entry}, {"file_name", stub.file_name}, {"dialect", flags.dialect},
        {"mode", flags.mode},  {"rank", flags.rank},          {"index_bits", flags.index_bits},
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
      ->check(CLI::IsMember({"cpp", "cuda", "hip"}))
      ->capture_default_str();
  command->add_option("--index-bits", flags->index_bits, "Width of positions and indices")
      ->check(CLI::IsMember({32, 64}))
      ->capture_default_str();
  command->add_option("--launch-bounds", flags->launch_bounds,
                      "GPU dialects: threads per group to declare (default: as for a device "
                      "with 1024 threads per group)");
  command->add_flag("--stub-only", flags->stub_only, "Leave out the embedded prelude");
  command->callback([&global, &action, flags] {
    action = [&global, flags] { return dump(*flags, global.json); };
  });
}

}  // namespace stubjit::tool
