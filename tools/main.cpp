// stubjit: inspect backends and devices, manage the disk cache, print generated
// stubs. See docs/cli.md.
#include <cstdio>
#include <exception>

#include "commands.hpp"
#include "stubjit/error.hpp"

int main(int argc, char** argv) {
  using namespace stubjit::tool;
  CLI::App app{"stubjit: run-time kernel specialization (docs/cli.md)", "stubjit"};
  app.set_version_flag("--version", std::string("stubjit ") + STUBJIT_VERSION);
  app.fallthrough();  // --json is accepted after the subcommand too
  app.require_subcommand(1);
  GlobalFlags flags;
  app.add_flag("--json", flags.json, "Print JSON for machines instead of text");
  Action action;
  add_info_command(app, flags, action);
  add_cache_command(app, flags, action);
  add_dump_stub_command(app, flags, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);
    return status == 0 ? exit_ok : exit_failure;
  }
  try {
    return action ? action() : exit_failure;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "stubjit: %s\n", error.what());
    return exit_failure;
  }
}
