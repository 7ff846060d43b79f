// The runtime: one backend (CPU, CUDA or HIP device), its kernels, fields and caches.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stubjit/export.hpp"
#include "stubjit/field.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"

namespace stubjit {

// Short rows: the longest innermost extent a CPU runtime compiles into a stub
// (RuntimeOptions::specialize_short_rows, StubOptions::rows).
inline constexpr std::int64_t max_short_row = 16;
// The largest stride along the innermost loop that a CPU stub has compiled in for the
// broadcast views (a stencil's fields) of a launch, where they all share it
// (StubOptions::view_stride); views of stride 1 need none.
inline constexpr std::int64_t max_view_stride = 16;

struct RuntimeOptions {
  // "cpu", "cuda", "hip", or empty: then $STUBJIT_BACKEND, else the first
  // available of cuda, hip, cpu.
  std::string backend;
  // A target to compile for without using a device: "sm_90" or "compute_90" (PTX) for
  // cuda, "gfx90a" for hip, the host's own target id for cpu. The runtime is then
  // compile-only (it fills caches, Kernel::prepare and Kernel::binary work, launches
  // throw BackendError), whether or not a device is present. With `backend` (or
  // $STUBJIT_BACKEND) empty, the first backend that can compile for the target.
  // Empty: the device's target (or STUBJIT_CUDA_ARCH / STUBJIT_HIP_ARCH without one).
  std::string target;
  int device = 0;
  // Replaces the limits reported by the device (for tests with small limits).
  std::optional<DeviceLimits> limits;
  // Changes single limits, starting from the device's (or from `limits` when set):
  //   options.adjust_limits = [](stubjit::DeviceLimits& l) { l.max_grid = {64, 64, 64}; };
  // Plans made with adjusted limits are checked against the device's before anything
  // runs, as with `limits`.
  std::function<void(DeviceLimits&)> adjust_limits;
  PlanPolicy policy{};
  // Extra flags for the backend's compiler; part of every cache key.
  std::vector<std::string> compiler_options;
  // The longest a compile may take. A compile runs in a worker process
  // (stubjit-compile-worker, installed beside the library) that is stopped when it runs
  // past the limit; the launch then fails with a CompileError saying so (and so do the
  // launches waiting for that stub). Unset: $STUBJIT_COMPILE_TIMEOUT (seconds), else
  // 120 s. Zero: no limit, and compiles run in this process.
  std::optional<std::chrono::milliseconds> compile_timeout;
  // Directories a kernel's code may #include "files" from (given to the compiler as -I,
  // part of every cache key). Empty: a kernel may include only its toolchain's own
  // headers, as <relative/path>; anything else is refused before compiling, so that a
  // CompileError never carries the contents of an arbitrary file.
  std::vector<std::string> include_directories;
  // Dimension fusion (docs/performance.md): a launch of a kernel that takes no index
  // token and has no filter runs over fewer dimensions where its projected fields allow (a dense
  // 40M x 1 domain is one loop of 40M; a column-major field is walked in memory order). The results
  // are the same; LaunchSummary::rank says the rank that ran. false: every launch runs over its
  // domain as given.
  bool fuse_dimensions = true;
  // Short rows (docs/performance.md): on the CPU, a launch whose innermost extent
  // (after fusion) is at most max_short_row gets a stub with that extent compiled in,
  // one stub per such extent. Where the broadcast views of a launch (with rows of any
  // length) all have the domain's rank (a stencil's fields) and share a stride of 2 to
  // max_view_stride along the dimension its innermost loop follows (every other
  // element, say), with an innermost step of 1 if the kernel takes its index or has a
  // filter, that stride is compiled in too. false: one stub serves every extent and
  // stride.
  bool specialize_short_rows = true;
  // Worker threads of the CPU backend; 0: one per core.
  unsigned cpu_threads = 0;
  // Directory to write every generated stub to; empty: $STUBJIT_DUMP_DIR, if set.
  std::string dump_dir;
  // Persistent disk cache of compiled stubs (docs/cache.md). Root directory; empty:
  // $STUBJIT_CACHE_DIR, else $XDG_CACHE_HOME/stubjit, else ~/.cache/stubjit.
  std::string cache_dir;
  // Read-only cache layers (docs/cluster.md, "Cache layers"): directories of entries
  // that another runtime filled (a site or project cache on a shared file system),
  // searched in this order after the writable cache_dir. Verified like any entry, never
  // written, evicted or locked; a layer that is missing, unreadable or writable by
  // anyone but its owner is skipped with one warning. Empty: $STUBJIT_CACHE_LAYERS
  // (directories separated by ':').
  std::vector<std::string> cache_layers;
  // false: memory-only, no layer read either. STUBJIT_CACHE=off also turns the disk
  // cache and its layers off.
  bool disk_cache = true;
  // Size cap of the disk cache in bytes; 0: $STUBJIT_CACHE_MAX_BYTES, else 1 GiB.
  std::uint64_t cache_max_bytes = 0;
  // Loaded stubs the memory cache keeps for kernels to come (least recently used
  // first out), beyond those a live Kernel handle holds; the binaries of four times as
  // many stay in memory too. Unset: $STUBJIT_MEMORY_CACHE_STUBS, else 256. With 0, a
  // stub is released with the last Kernel handle that used it.
  std::optional<std::size_t> memory_cache_stubs;
};

// Counters of the stub caches, for monitoring and tests.
struct CacheCounters {
  std::uint64_t compiles = 0;  // stubs compiled by this runtime (the compiler ran)
  // Compiles that failed. A source that does not compile is compiled once: later
  // launches get the same CompileError without running the compiler.
  std::uint64_t compile_failures = 0;
  std::uint64_t memory_hits = 0;  // launches that found their stub in memory
  std::uint64_t launches = 0;     // launches that ran at least one dispatch
  // Stubs loaded from the disk cache instead of compiled: its writable root or one of
  // its read-only layers.
  std::uint64_t disk_hits = 0;
  std::uint64_t disk_writes = 0;  // entries this runtime wrote to the disk cache
  // Disk entries refused (corrupt, wrong key or version, unsafe owner or mode, not
  // loadable) and compiled again instead, in the writable root or a layer.
  std::uint64_t disk_rejected = 0;
  // Those of disk_hits that came from a read-only layer (RuntimeOptions::cache_layers).
  std::uint64_t layer_hits = 0;
};

// Whether a backend can be used on this machine, and if not, why.
struct BackendStatus {
  std::string name;
  bool available = false;
  std::string detail;  // device and toolchain when available, the reason otherwise
};

class STUBJIT_API Runtime {
 public:
  explicit Runtime(RuntimeOptions options = {});

  // The backends stubjit knows, in automatic-selection order, with their status.
  static std::vector<BackendStatus> probe_backends();

  const std::string& backend_name() const;
  std::string target_id() const;    // e.g. "x86_64/skylake-avx512", "sm_90"
  std::string compiler_id() const;  // e.g. "clang 14.0.6"
  const DeviceLimits& limits() const;

  // Validates the description (identifiers, ranks) and returns a launchable kernel;
  // nothing is compiled until the first launch needs a stub. A GPU runtime also fits
  // the kernel's launch bounds to its limits here, so limits that allow no launch
  // (RuntimeOptions::limits or adjust_limits with a zero) throw PlanError already.
  Kernel kernel(KernelSource source);

  Field allocate(ElementType type, const std::vector<std::int64_t>& extents,
                 Layout layout = Layout::row_major);
  template <class T>
  Field allocate(const std::vector<std::int64_t>& extents, Layout layout = Layout::row_major) {
    return allocate(element_type_v<T>, extents, layout);
  }

  // A field over memory the application already owns on this runtime's device (host
  // memory for the CPU backend). Strides default to row-major. A pointer to const
  // gives a read-only field. stubjit never frees it.
  template <class T>
  Field wrap(T* data, const std::vector<std::int64_t>& extents,
             const std::vector<std::int64_t>& strides = {}) {
    return wrap_memory(const_cast<std::remove_const_t<T>*>(data), element_type_v<T>, extents,
                       strides, !std::is_const_v<T>);
  }
  Field wrap_memory(void* data, ElementType type, const std::vector<std::int64_t>& extents,
                    const std::vector<std::int64_t>& strides, bool writable);

  Stream create_stream();
  // Waits for all work of this runtime.
  void synchronize();

  // Waits for this runtime's pending disk-cache writes first (they run in the
  // background), so that disk_writes counts every entry compiled so far.
  CacheCounters counters() const;
  // Root of the disk cache this runtime uses; empty when it runs memory-only. The
  // cache is opened by the first launch; asked before that, this opens it, so that
  // an unusable root gives "".
  std::string cache_dir() const;

 private:
  friend class StubExchange;  // stubjit/stub_exchange.hpp
  std::shared_ptr<detail::RuntimeState> state_;
};

}  // namespace stubjit
