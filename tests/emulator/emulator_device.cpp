// The emulator's device: host memory, synchronous streams, and launches that run every
// block of a dispatch (lp.grid groups of lp.block threads, what a GPU backend passes
// its driver) through block_runner.cpp, after the checks a driver makes.
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "backends/kernel_params.hpp"
#include "common/temp_dir.hpp"
#include "emulator/block_runner.hpp"
#include "emulator/emulator_backend.hpp"
#include "emulator/emulator_binary.hpp"
#include "stubjit/error.hpp"

namespace stubjit::test::emulator {
namespace {

class EmulatorModule final : public detail::Module {
 public:
  EmulatorModule(const std::vector<char>& bytes, const std::string& entry) : entry_name_(entry) {
    // From a file of its own: a path the dynamic linker has not seen (it takes a name it
    // knows for the library already loaded under it), removed once mapped.
    const test::TempDir scratch;
    const std::string path = scratch / "stub.so";
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw BackendError(std::string("emulator: dlopen: ") + ::dlerror());
    entry_ = reinterpret_cast<stubjit_emulator::ThreadEntry>(symbol(thread_entry_symbol));
    max_threads_ = *static_cast<const unsigned*>(symbol(max_threads_symbol));
    warp_size_ = *static_cast<const unsigned*>(symbol(warp_size_symbol));
    cooperative_ = *static_cast<const int*>(symbol(cooperative_symbol)) != 0;
  }
  ~EmulatorModule() override { ::dlclose(handle_); }
  EmulatorModule(const EmulatorModule&) = delete;
  EmulatorModule& operator=(const EmulatorModule&) = delete;

  std::uint32_t max_group_threads() const override { return max_threads_; }
  stubjit_emulator::ThreadEntry entry() const { return entry_; }
  const std::string& name() const { return entry_name_; }
  unsigned warp_size() const { return warp_size_; }
  bool cooperative() const { return cooperative_; }
  // __shared__ is a static of the stub (gpu_shim.h): launches of a stub that uses it
  // take turns, so that no two of its blocks ever run at once.
  std::mutex& block_turn() const { return block_turn_; }

 private:
  void* symbol(const char* name) {
    void* found = ::dlsym(handle_, name);
    if (!found) {
      ::dlclose(handle_);
      throw BackendError(std::string("emulator: the stub exports no ") + name);
    }
    return found;
  }

  std::string entry_name_;
  void* handle_ = nullptr;
  stubjit_emulator::ThreadEntry entry_ = nullptr;
  unsigned max_threads_ = 0;
  unsigned warp_size_ = 0;
  bool cooperative_ = false;
  mutable std::mutex block_turn_;
};

class SynchronousStream final : public detail::StreamState {
 public:
  void synchronize() override {}
};

class EmulatorDevice final : public detail::Device {
 public:
  explicit EmulatorDevice(const Config& config) : config_(config) {}

  DeviceLimits limits() const override { return gpu_like_limits(config_.dialect); }
  std::string description() const override {
    return "host emulator of the " +
           std::string(config_.dialect == Dialect::cuda ? "CUDA" : "HIP") + " dialect" +
           (config_.ubsan ? " (stubs under -fsanitize=undefined)" : "");
  }

  std::unique_ptr<detail::Module> load(const detail::Binary& binary,
                                       const std::string& entry) override {
    if (binary.format != emulator_binary_format)
      throw BackendError("emulator: cannot load a '" + binary.format + "' binary");
    return std::make_unique<EmulatorModule>(binary.bytes, entry);
  }

  void check_plan(const detail::Module& module, const Plan& plan) const override {
    for (const Dispatch& dispatch : plan.dispatches)
      check_dispatch(static_cast<const EmulatorModule&>(module), dispatch.grid, plan.block);
  }

  void launch(const detail::Module& loaded, const detail::EntryParameters& parameters,
              const LaunchParams& lp, const void* args, std::size_t args_size,
              detail::StreamState*) override {
    const auto& module = static_cast<const EmulatorModule&>(loaded);
    check_dispatch(module, {lp.grid[0], lp.grid[1], lp.grid[2]},
                   {lp.block[0], lp.block[1], lp.block[2]});
    BlockLaunch block;
    block.entry = module.entry();
    // The pointers a GPU backend gives its driver, made by the same code.
    detail::KernelParams params(parameters, args, args_size, lp);
    block.params = params.data();
    block.lp = &lp;
    block.block_dim = {lp.block[0], lp.block[1], lp.block[2]};
    block.grid_dim = {unsigned(lp.grid[0]), unsigned(lp.grid[1]), unsigned(lp.grid[2])};
    block.warp_size = module.warp_size() ? module.warp_size() : limits().warp_size;
    block.cooperative = module.cooperative();
    block.scan_prefix_period = scan_prefix_period().load();
    block.scan_prefixes_published = &published_prefixes();
    std::unique_lock<std::mutex> turn(module.block_turn(), std::defer_lock);
    if (block.cooperative) turn.lock();
    // Blocks last to first: a stub must not depend on the order blocks run in either.
    for (std::uint64_t z = lp.grid[2]; z-- > 0;)
      for (std::uint64_t y = lp.grid[1]; y-- > 0;)
        for (std::uint64_t x = lp.grid[0]; x-- > 0;) {
          block.block = {unsigned(x), unsigned(y), unsigned(z)};
          run_block(block);
        }
  }

  void* allocate(std::size_t bytes) override {
    void* pointer = std::aligned_alloc(256, (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256);
    if (!pointer) throw BackendError("emulator: out of memory");
    return pointer;
  }
  void deallocate(void* pointer) noexcept override { std::free(pointer); }
  void copy_to_device(void* device, const void* host, std::size_t bytes,
                      detail::StreamState*) override {
    if (bytes) std::memcpy(device, host, bytes);
  }
  void copy_to_host(void* host, const void* device, std::size_t bytes,
                    detail::StreamState*) override {
    if (bytes) std::memcpy(host, device, bytes);
  }
  std::shared_ptr<detail::StreamState> create_stream() override {
    return std::make_shared<SynchronousStream>();
  }
  void synchronize() override {}

 private:
  // What a driver refuses: a group above the stub's launch bounds or the device's
  // limits, an empty dispatch, a grid the device cannot take.
  void check_dispatch(const EmulatorModule& module, const std::array<std::uint64_t, 3>& grid,
                      const std::array<std::uint32_t, 3>& block) const {
    const DeviceLimits device = limits();
    const std::uint64_t threads = std::uint64_t(block[0]) * block[1] * block[2];
    if (module.max_group_threads() != 0 && threads > module.max_group_threads()) {
      throw BackendError("emulator: a group of " + std::to_string(threads) + " threads exceeds " +
                         module.name() + "'s launch bounds (" +
                         std::to_string(module.max_group_threads()) + ")");
    }
    if (threads > device.max_threads_per_block)
      throw BackendError("emulator: a group of " + std::to_string(threads) + " threads");
    for (int p = 0; p < 3; ++p) {
      if (grid[p] == 0 || block[p] == 0 || grid[p] > device.max_grid[p] ||
          block[p] > device.max_block[p]) {
        throw BackendError("emulator: dispatch of " + module.name() + " with grid " +
                           std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
                           std::to_string(grid[2]) + ", block " + std::to_string(block[0]) + "x" +
                           std::to_string(block[1]) + "x" + std::to_string(block[2]) +
                           " is outside the device's limits");
      }
    }
  }

  Config config_;
};

}  // namespace

std::unique_ptr<detail::Device> make_device(const Config& config) {
  return std::make_unique<EmulatorDevice>(config);
}

}  // namespace stubjit::test::emulator
