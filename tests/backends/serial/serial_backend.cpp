// A backend that lives only in the test tree, to show that a new backend touches its
// own folder and one registration line (the last line of this file).
//
// Toolchain: the system's C++ compiler (the one CMake built the tests with), run as a
// process on the C++ emitter's stubs, making a shared object. Device: the host, the
// shared object opened with dlopen, every group of a dispatch run on the calling
// thread, one after the other.
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "backends/registry.hpp"
#include "stubjit/error.hpp"

extern char** environ;

namespace stubjit::test {
namespace {

namespace fs = std::filesystem;
using detail::Binary;
using detail::CompileJob;

// A private directory, removed with everything in it when the object goes.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (fs::temp_directory_path() / "stubjit-serial-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw BackendError("serial: cannot make a scratch directory");
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<char> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `argv` with stdout and stderr into `log`; the exit status, or -1.
int run(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class SerialToolchain final : public detail::Toolchain {
 public:
  SerialToolchain() { traits_.emitter = "cpp"; }

  const detail::TargetTraits& traits() const override { return traits_; }
  std::string target_id() const override { return "host-serial"; }
  std::string compiler_id() const override { return std::string("system ") + STUBJIT_TEST_CXX; }
  DeviceLimits typical_limits() const override { return serial_limits(); }

  Binary compile(const CompileJob& job) const override {
    const ScratchDirectory scratch;
    const fs::path source = scratch.path() / job.file_name;
    const fs::path object = scratch.path() / "stub.so";
    const fs::path log = scratch.path() / "log";
    std::ofstream(source, std::ios::binary) << job.source;
    std::vector<std::string> argv = {STUBJIT_TEST_CXX, "-std=c++17", "-O2", "-fPIC",
                                     "-shared",        "-w",         "-o",  object.string()};
    argv.insert(argv.end(), job.options.begin(), job.options.end());
    argv.push_back(source.string());
    const int status = run(argv, log);
    const std::vector<char> text = read_all(log);
    if (status != 0)
      throw CompileError(job.kernel, std::string(text.begin(), text.end()), job.source);
    return Binary{"shared-object", read_all(object)};
  }

  static DeviceLimits serial_limits() {
    DeviceLimits limits;
    constexpr std::uint64_t huge = std::uint64_t(1) << 40;
    limits.max_grid = {huge, huge, huge};
    limits.max_block = {1u << 20, 1u << 20, 1u << 20};
    limits.max_threads_per_block = 1u << 20;
    limits.warp_size = 1;
    limits.preferred_block.spread = {1024, 1, 1};
    limits.preferred_block.direct = {{{1024, 1, 1}, {1024, 1, 1}, {1024, 1, 1}}};
    return limits;
  }

 private:
  detail::TargetTraits traits_;
};

using Entry = void (*)(const void* args, const LaunchParams* lp, u64 group_begin, u64 group_end);

class SerialModule final : public detail::Module {
 public:
  SerialModule(void* handle, Entry entry) : handle_(handle), entry_(entry) {}
  ~SerialModule() override { ::dlclose(handle_); }
  Entry entry() const { return entry_; }

 private:
  void* handle_;
  Entry entry_;
};

class SerialStream final : public detail::StreamState {
 public:
  void synchronize() override {}
};

class SerialDevice final : public detail::Device {
 public:
  DeviceLimits limits() const override { return SerialToolchain::serial_limits(); }
  std::string description() const override { return "the host, one thread"; }

  std::unique_ptr<detail::Module> load(const Binary& binary, const std::string& entry) override {
    if (binary.format != "shared-object")
      throw BackendError("serial: cannot load a '" + binary.format + "' binary");
    const ScratchDirectory scratch;
    const fs::path path = scratch.path() / "stub.so";
    std::ofstream(path, std::ios::binary)
        .write(binary.bytes.data(), static_cast<std::streamsize>(binary.bytes.size()));
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw BackendError(std::string("serial: dlopen: ") + ::dlerror());
    void* symbol = ::dlsym(handle, entry.c_str());
    if (!symbol) {
      ::dlclose(handle);
      throw BackendError("serial: no entry " + entry);
    }
    return std::make_unique<SerialModule>(handle, reinterpret_cast<Entry>(symbol));
  }
  void check_plan(const detail::Module&, const Plan&) const override {}
  void launch(const detail::Module& module, const detail::EntryParameters& parameters,
              const LaunchParams& lp, const void* args, std::size_t,
              detail::StreamState*) override {
    if (!parameters.empty()) throw BackendError("serial: an entry that takes values one by one");
    const u64 groups = lp.grid[0] * lp.grid[1] * lp.grid[2];
    static_cast<const SerialModule&>(module).entry()(args, &lp, 0, groups);
  }

  void* allocate(std::size_t bytes) override {
    void* pointer = std::aligned_alloc(64, (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64);
    if (!pointer) throw BackendError("serial: out of memory");
    return pointer;
  }
  void deallocate(void* pointer) noexcept override { std::free(pointer); }
  void copy_to_device(void* device, const void* host, std::size_t bytes,
                      detail::StreamState*) override {
    std::memcpy(device, host, bytes);
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes,
                    detail::StreamState*) override {
    std::memcpy(host, device, bytes);
  }
  std::shared_ptr<detail::StreamState> create_stream() override {
    return std::make_shared<SerialStream>();
  }
  void synchronize() override {}
};

detail::OpenedBackend open_serial_backend(const detail::BackendConfig&) {
  detail::OpenedBackend opened;
  opened.toolchain = std::make_unique<SerialToolchain>();
  opened.device = std::make_unique<SerialDevice>();
  return opened;
}

}  // namespace

// The one registration line.
const bool serial_registered = detail::register_backend({"serial", &open_serial_backend});

}  // namespace stubjit::test
