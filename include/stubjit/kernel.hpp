// Kernels: a name, a signature and a body, launched over a compute domain.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/export.hpp"
#include "stubjit/field.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/signature.hpp"

namespace stubjit {

namespace detail {
class KernelState;
class StreamState;
}  // namespace detail

// When a stub specialized for new values of a kernel's specialized scalars is
// compiled. at_launch: by the launch that needs it, which waits. background: the
// launch runs the kernel's generic stub at once (the same code, with the values read
// as arguments; results are identical) and the specialized one compiles on a worker
// thread of the kernel, one at a time in the order asked; later launches with those
// values run it once it is ready. A specialized compile that fails leaves its values
// on the generic stub (the error is logged, not thrown; an error other than a
// CompileError is tried again by the next launch). prepare() and binary() compile the
// specialized stub as they would at launch, and throw what it throws.
enum class Specialize : std::uint8_t { at_launch, background };

// What the application writes. `name` and parameter names must be identifiers;
// `body` is the kernel's statement list and `helpers` optional source placed before
// it (helper functions, constants). Both are compiled as given.
struct KernelSource {
  KernelSource() = default;
  KernelSource(std::string name_, Signature signature_, std::string body_,
               std::string helpers_ = {}, BlockConstraints block_ = {})
      : name(std::move(name_)),
        signature(std::move(signature_)),
        body(std::move(body_)),
        helpers(std::move(helpers_)),
        block(block_) {}

  std::string name;
  Signature signature;
  std::string body;
  std::string helpers;
  BlockConstraints block{};
  // A non-rectangular domain: the points of each launch's domain (its embedding box)
  // where this C++ expression is true, over `i`, the point's logical index (i[d],
  // i.rank; a stubjit::Index<N, I> with I as for an index token: 32-bit on a GPU where
  // the launch fits, so a helper taking it should be a template), e.g. "i[1] <= i[0]"
  // for a lower triangle. The body never runs at the other points. Empty: every point
  // (a filter of blanks only is refused). It may call the helpers. Masks (mask<T>)
  // filter too; a point runs when it passes every filter.
  std::string filter;
  // Kernels with specialized scalars (Param::specialized): when their stubs compile.
  Specialize specialize = Specialize::at_launch;
};

// One launch argument: a scalar value or a field. Implicit from either, so that
// kernel.launch(domain, 2.0f, x, y) reads like a call.
class Arg {
 public:
  enum class Kind : std::uint8_t { scalar, field };

  template <class T, std::enable_if_t<detail::is_element_v<std::decay_t<T>>, int> = 0>
  Arg(T value)  // NOLINT: implicit by design
      : kind_(Kind::scalar), type_(element_type_v<std::decay_t<T>>) {
    static_assert(sizeof(T) <= sizeof(bits_));
    std::memcpy(bits_.data(), &value, sizeof(T));
  }
  Arg(const Field& field) : kind_(Kind::field), type_(field.type()), field_(&field) {}  // NOLINT

  Kind kind() const noexcept { return kind_; }
  ElementType type() const noexcept { return type_; }
  const Field* field() const noexcept { return field_; }
  // The scalar's bytes 0 to 7, little-endian in the low bytes (a complex<float>: the
  // real part, then the imaginary part).
  std::uint64_t bits() const noexcept { return bits_[0]; }
  // Bytes 8 to 15: a complex<double>'s imaginary part; 0 for every other type.
  std::uint64_t high_bits() const noexcept { return bits_[1]; }

 private:
  Kind kind_;
  ElementType type_;
  std::array<std::uint64_t, 2> bits_{};
  const Field* field_ = nullptr;
};

// An ordered queue of work on a backend. Launches on one stream run in order; the
// CPU backend runs every launch to completion before returning.
class STUBJIT_API Stream {
 public:
  Stream() = default;  // a null stream; Runtime::create_stream() makes real ones
  explicit operator bool() const noexcept { return state_ != nullptr; }
  // Waits until all work queued on this stream has finished.
  void synchronize() const;
  detail::StreamState* state() const noexcept { return state_.get(); }
  const detail::RuntimeState* owner() const noexcept { return runtime_.get(); }

 private:
  friend class Runtime;
  // Declared first, destroyed last: the stream is released while its backend is
  // still there, and a stream keeps its runtime alive like a field does.
  std::shared_ptr<detail::RuntimeState> runtime_;
  std::shared_ptr<detail::StreamState> state_;
};

// A tile shape for a launch of a per-element kernel: it tiles the domain's last
// `rank` dimensions (the others have tiles of 1), the last extent along the last
// dimension. The kernel may then take tile_index and local_index tokens.
struct Tile {
  std::uint8_t rank = 0;  // 0: no tile
  std::array<std::uint32_t, 8> extents{};

  Tile() = default;
  Tile(std::initializer_list<std::uint32_t> shape) {
    for (std::uint32_t extent : shape) {
      if (rank < extents.size()) extents[rank] = extent;
      ++rank;  // more than 8 is refused at launch
    }
  }
  std::uint64_t elements() const noexcept {
    std::uint64_t n = 1;
    for (std::size_t d = 0; d < rank && d < extents.size(); ++d) n *= extents[d];
    return n;
  }
};

// How a reduce launch writes its result field: combine: each element combined with
// what the field holds (C += A*B); assign: each element overwritten with the
// reduction alone.
enum class ReduceUpdate : std::uint8_t { combine, assign };

struct LaunchOptions {
  std::optional<Mode> mode;        // force a mode (PlanError if it cannot cover)
  const Stream* stream = nullptr;  // nullptr: the runtime's default stream
  // Group kernels and tiled launches: threads per group (0: the kernel's fixed size, or
  // for a tile its elements where the device allows, or the device's preferred group).
  // Checked against the kernel's BlockConstraints and the device (group_threads in
  // plan.hpp); a GPU runs each group with that many threads, the CPU with one.
  std::uint32_t group_size = 0;
  // A per-element kernel: run it tile by tile (Tile). Rank 0: untiled.
  Tile tile{};
  // Reduce kernels (result<T>) whose result has rank N-1 over a rank-N domain: the
  // dimension of the domain the reduction eliminates (-1: the last). A result of rank
  // 0 takes the whole domain whatever this says.
  int reduce_dimension = -1;
  ReduceUpdate reduce_update = ReduceUpdate::combine;
};

// What a launch did, cheap enough to return from every launch.
struct LaunchSummary {
  Mode mode = Mode::direct;
  // The rank the stub ran at: below the domain's where dimensions were fused
  // (RuntimeOptions::fuse_dimensions).
  int rank = 0;
  std::size_t dispatches = 0;
  // This launch ran the compiler for its stub; false when the stub was found in memory
  // or on disk, or another thread compiled it.
  bool compiled = false;
  // Specialize::background: this launch ran the kernel's generic stub, the one
  // specialized for its values being not yet ready (or failed). `compiled` then says
  // whether the generic stub was compiled by this launch.
  bool generic = false;
  // Group kernels and tiled launches: the threads that ran each group (1 on the CPU)
  // and the bytes of group-shared memory each had; 0 for untiled per-element launches.
  std::uint32_t group_size = 0;
  std::uint32_t shared_bytes = 0;
  // Reduce launches: the groups each of the result's elements was reduced by (their
  // partial values combined in a fixed order by the last to finish); 0 otherwise.
  std::uint32_t reduce_parts = 0;
};

// How Kernel::repeat runs a kernel until its flag says stop (docs/patterns.md).
struct RepeatOptions {
  // Each iteration's launch (its reduce_update is ignored: each iteration's flag is its
  // own).
  LaunchOptions launch{};
  // At most this many iterations (1 or more); a loop that has not stopped by then
  // returns with RepeatSummary::converged false.
  std::int64_t max_iterations = 1 << 20;
  // Double buffers: after each iteration but the last (whether the flag or
  // max_iterations ended the loop), the two fields of each pair trade places among the
  // arguments (every argument that is the first becomes the second, and the other way
  // round), so that what one iteration wrote is what the next reads. The two must have
  // the same type, extents, strides and access; a field trades in one pair only.
  std::vector<std::pair<Field, Field>> swaps{};
};

struct RepeatSummary {
  std::int64_t iterations = 0;  // the launches run
  bool converged = false;       // the flag said stop within max_iterations
  // The last iteration ran with the swaps' pairs traded (an odd number of trades):
  // what it wrote is in the pair's first field where its arguments started with the
  // second there.
  bool swapped = false;
  bool compiled = false;  // the loop compiled its stub (before or in its first iteration)
};

// A compiled stub's bytes, as the runtime's backend made them (Kernel::binary).
struct StubBinary {
  // "cubin" or "ptx" (CUDA), "amdgpu-code-object" (HIP), "elf-shared-object" (CPU: an
  // ELF shared object for the host's machine).
  std::string format;
  std::string target;  // the toolchain's target id, e.g. "sm_90", "gfx90a"
  std::string entry;   // the stub's entry point (an extern "C" symbol of the binary)
  // The disk-cache entry's name (32 hex digits; `stubjit cache ls` shows it).
  std::string cache_name;
  Mode mode = Mode::direct;
  int rank = 0;
  std::vector<char> bytes;
};

// A handle to a kernel of one runtime; cheap to copy, safe to launch from many
// threads at once.
class STUBJIT_API Kernel {
 public:
  Kernel() = default;

  const std::string& name() const;
  const Signature& signature() const;

  // Binds args to the signature, plans, finds or compiles the stub, and launches.
  // Throws before anything runs if an argument does not match (ArgumentError,
  // AliasError), the domain cannot be covered (PlanError) or the stub does not
  // compile (CompileError).
  template <class... A>
  LaunchSummary launch(const Domain& domain, A&&... args) {
    return launch(LaunchOptions{}, domain, std::forward<A>(args)...);
  }
  template <class... A>
  LaunchSummary launch(const LaunchOptions& options, const Domain& domain, A&&... args) {
    const std::array<Arg, sizeof...(A)> packed{Arg(std::forward<A>(args))...};
    return launch_args(domain, packed.data(), packed.size(), options);
  }
  LaunchSummary launch_args(const Domain& domain, const Arg* args, std::size_t count,
                            const LaunchOptions& options = {});

  // A reduce kernel whose result has rank 0: the combination of its values over the
  // whole domain (the combiner's identity for an empty domain), returned to the host.
  // `args` are the launch's arguments without the result (the launch writes it to a
  // field of its own, which it allocates); T must be the result's element type
  // (ArgumentError otherwise). Waits for the launch to finish.
  template <class T, class... A>
  T reduce(const Domain& domain, A&&... args) {
    return reduce<T>(LaunchOptions{}, domain, std::forward<A>(args)...);
  }
  template <class T, class... A>
  T reduce(const LaunchOptions& options, const Domain& domain, A&&... args) {
    const std::array<Arg, sizeof...(A)> packed{Arg(std::forward<A>(args))...};
    T value{};
    reduce_args(domain, packed.data(), packed.size(), options, element_type_v<T>, &value);
    return value;
  }
  // The same with the arguments as an array; writes the value's bytes to `value`.
  LaunchSummary reduce_args(const Domain& domain, const Arg* args, std::size_t count,
                            const LaunchOptions& options, ElementType type, void* value);

  // IrGL's loop: launches a reduce kernel whose result is a rank-0 bool flag again and
  // again, each launch's flag its own, until the flag says stop: a result with
  // Combiner::any stops after the first launch where no index set it ("nothing
  // changed"), one with Combiner::all after the first where every index did ("all
  // done"). `args` are the launch's arguments without the result, as for reduce;
  // RepeatOptions::swaps trades double buffers between iterations. Throws before
  // anything runs (ArgumentError) for another kernel or bad options; waits for the
  // last launch. On the CPU backend the flag is in host memory; on a GPU each
  // iteration waits for its launch and copies the flag back (one byte).
  template <class... A>
  RepeatSummary repeat(const Domain& domain, A&&... args) {
    return repeat(RepeatOptions{}, domain, std::forward<A>(args)...);
  }
  template <class... A>
  RepeatSummary repeat(const RepeatOptions& options, const Domain& domain, A&&... args) {
    const std::array<Arg, sizeof...(A)> packed{Arg(std::forward<A>(args))...};
    return repeat_args(domain, packed.data(), packed.size(), options);
  }
  RepeatSummary repeat_args(const Domain& domain, const Arg* args, std::size_t count,
                            const RepeatOptions& options);

  // Compiles, or finds in memory or on disk, the stub a launch with these arguments
  // would need, and returns without running the kernel: the following launch is a
  // memory hit (its summary says compiled false). Loading the stub on the CPU runs the
  // constructors of namespace-scope objects in the kernel's helpers, as any launch's
  // first load does. Makes the checks a launch makes and throws what it would throw
  // (ArgumentError, AliasError, PlanError, CompileError; an Error for a null stream or
  // one of another runtime), except what only issuing needs: on a compile-only
  // runtime (no device) it fills the binary stores, the disk cache included, and
  // loads nothing. A domain with no index plans no dispatch and needs no stub: nothing
  // is compiled. The summary is the one the launch would return, `compiled` true
  // when this call ran the compiler. Fields are neither read nor written.
  template <class... A>
  LaunchSummary prepare(const Domain& domain, A&&... args) {
    return prepare(LaunchOptions{}, domain, std::forward<A>(args)...);
  }
  template <class... A>
  LaunchSummary prepare(const LaunchOptions& options, const Domain& domain, A&&... args) {
    const std::array<Arg, sizeof...(A)> packed{Arg(std::forward<A>(args))...};
    return prepare_args(domain, packed.data(), packed.size(), options);
  }
  LaunchSummary prepare_args(const Domain& domain, const Arg* args, std::size_t count,
                             const LaunchOptions& options = {});

  // The compiled stub a launch with these arguments would run, prepared as by
  // prepare (compiled only when no store has it). Works on compile-only runtimes.
  // Throws DomainError for a domain with no index (such a launch runs no stub).
  StubBinary binary(const Domain& domain, const std::vector<Arg>& args,
                    std::optional<Mode> forced = std::nullopt);
  // The same for a launch with these options (a tile, a group size).
  StubBinary binary(const Domain& domain, const std::vector<Arg>& args,
                    const LaunchOptions& options);

  // Specialize::background: waits until this kernel's queue of specialized stubs is
  // empty and its worker idle (stubs other threads queue meanwhile included): each is
  // compiled or has failed. Launches after it with those values run them. Returns at
  // once for other kernels.
  void finish_specializing();

  // The plan for `domain` as given, without launching (PlanError where a launch over it
  // would be refused). For a group kernel: its groups, one per index, spread over the
  // grid, each of the size a launch without a group size gets (docs/groups.md). A launch may run
  // over fewer or reordered dimensions, depending on its fields (RuntimeOptions::fuse_dimensions);
  // LaunchSummary, prepare and stub_source describe what it runs.
  Plan plan(const Domain& domain, std::optional<Mode> forced = std::nullopt) const;

  // The generated stub a launch with these arguments would compile, without
  // compiling or launching (same checks as launch).
  std::string stub_source(const Domain& domain, const std::vector<Arg>& args,
                          std::optional<Mode> forced = std::nullopt) const;
  // The same for a launch with these options (a tile, a group size).
  std::string stub_source(const Domain& domain, const std::vector<Arg>& args,
                          const LaunchOptions& options) const;

 private:
  friend class Runtime;
  friend class StubExchange;  // stubjit/stub_exchange.hpp
  friend class SplitKernel;   // stubjit/split.hpp: checks each part as its launch would
  std::shared_ptr<detail::KernelState> state_;
};

}  // namespace stubjit
