// Domains split across devices (docs/cluster.md): a pure planner that cuts a domain into
// weighted parts along one dimension, each with the halo its fields hold, and a kernel
// launched over a set of runtimes (one per device), each part with its own fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "stubjit/domain.hpp"
#include "stubjit/error.hpp"
#include "stubjit/export.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit {

class Runtime;

namespace detail {
class SplitState;
}  // namespace detail

// A split refused (bad weights, a dimension outside the domain, parts that do not match
// the runtimes), or one part's failure, with that part's own error kept in cause().
class STUBJIT_API SplitError : public Error {
 public:
  SplitError(std::string parameter, int part, const std::string& message,
             std::exception_ptr cause = nullptr);
  // What was refused: "dimension", "weights", "halo", "runtimes", "source", "parts",
  // "options.stream".
  const std::string& parameter() const noexcept { return parameter_; }
  // The part (or weight, or runtime) at fault; -1 when none is.
  int part() const noexcept { return part_; }
  // The part's own error (an ArgumentError, a CompileError, ...), null when none.
  const std::exception_ptr& cause() const noexcept { return cause_; }

 private:
  std::string parameter_;
  int part_;
  std::exception_ptr cause_;
};

// Indices along the split dimension that a part's fields hold beyond its own: `below`
// under its lowest logical index, `above` over its highest. A stencil reading i - 1 and
// i + 1 along that dimension takes {1, 1}.
struct Halo {
  std::int64_t below = 0;
  std::int64_t above = 0;
};

// One part of a split domain. Along every dimension but the split one it is the whole
// domain; `dimension` below means the split one.
struct DomainPart {
  // The part's own indices, as logical indices of the whole domain (same order, same
  // steps): positions offset .. offset + count - 1 of the whole along `dimension`.
  Domain domain;
  // The same indices numbered as the part's fields hold them: along `dimension`, the
  // whole domain's index field_first is 0 here. Launch the part over this.
  Domain local;
  // The part's first position along `dimension` in the whole (0 .. count of the whole).
  std::int64_t offset = 0;
  // What the part's fields hold along `dimension`: the whole domain's logical indices
  // field_first .. field_first + field_count - 1, from the part's lowest index less
  // halo.below to its highest plus halo.above, indices between its own included. Not
  // clipped to the whole domain: at its edges the halo is the application's boundary.
  // An empty part holds nothing (field_count 0).
  std::int64_t field_first = 0;
  std::int64_t field_count = 0;
};

// Cuts `domain` along `dimension` (a logical dimension, 0..rank-1, whatever its order)
// into weights.size() parts, in order: part i takes a run of consecutive positions in
// proportion to weights[i]. With N the count along `dimension`, W the sum of the weights
// and S_i that of weights 0..i, part i ends at position round(N * S_i / W) (halves up),
// and the last part with a positive weight at N. So the counts sum to N, a weight of 0
// gets no index, and the same arguments give the same parts on every machine (IEEE
// double arithmetic, no library rounding mode). Each count is its share N * w_i / W
// rounded down or up where N * S_i is exact in a double (whole weights, N * W below
// 2^53); with fractional weights whose sums a double rounds (0.1 + 0.2), a count can be
// one more or less than that. Pure: nothing is allocated on a device.
// SplitError (parameter "dimension", "weights" or "halo") for a dimension outside the
// domain, no weights, a weight that is negative, NaN or infinite, weights that are all
// 0 or whose sum overflows, a negative halo, or a halo that takes a part's field indices
// beyond 64 bits.
STUBJIT_API std::vector<DomainPart> split_domain(const Domain& domain, int dimension,
                                                 const std::vector<double>& weights,
                                                 Halo halo = {});

// One part's launch: its domain (DomainPart::local, usually) and its arguments, every
// field one of its runtime. `args` keeps pointers to the fields: they must outlive the
// launch call.
struct PartLaunch {
  Domain domain;
  std::vector<Arg> args;
  // A stream of the part's runtime; nullptr: that runtime's default stream.
  const Stream* stream = nullptr;
};

// One kernel over a set of runtimes, part i always on runtime i. Made once (a Kernel per
// runtime, kept with its stubs) and launched many times:
//
//   SplitKernel step({&gpu0, &gpu1}, source);
//   step.launch({{parts[0].local, {u0, out0}}, {parts[1].local, {u1, out1}}});
//
// launch() checks every part first, the way Kernel::prepare does (arguments against the
// signature, fields of the part's runtime, plan, stub compiled or found: the stub the
// part's launch runs, so with Specialize::background the generic one while the
// specialized one compiles), all parts at once, and launches nothing if any part fails. Then it
// launches every part at once, one thread each (the calling thread takes part 0; the others are
// kept by the SplitKernel), and returns when every launch has returned: on the CPU they have run;
// on a GPU they are queued on their streams (Runtime::synchronize waits for them). A part that
// fails then does not stop the others. One launch() at a time per SplitKernel (calls are
// serialized).
class STUBJIT_API SplitKernel {
 public:
  // SplitError: no runtimes, a null one ("runtimes"), or a source a runtime refuses
  // ("source", with the runtime's error as cause()).
  SplitKernel(const std::vector<Runtime*>& runtimes, const KernelSource& source);
  ~SplitKernel();
  SplitKernel(SplitKernel&&) noexcept;
  SplitKernel& operator=(SplitKernel&&) noexcept;

  std::size_t parts() const noexcept;
  // Part i's kernel, of runtime i (a launch of one part alone, prepare, binary).
  Kernel& kernel(std::size_t part);

  // Each part's LaunchSummary, in order. `options` apply to every part, except its
  // stream, which must be null: each part names its own (a stream is one runtime's).
  // SplitError: parts.size() other than parts() ("parts"), a stream in options
  // ("options.stream"), a part refused before anything was launched ("parts", part(),
  // cause(): what its check threw, as Kernel::prepare would but for the stub its launch
  // runs), or a part whose launch failed (the same, the
  // message saying the other parts were launched); the lowest failing part is reported.
  std::vector<LaunchSummary> launch(const std::vector<PartLaunch>& parts,
                                    const LaunchOptions& options = {});

 private:
  std::unique_ptr<detail::SplitState> state_;
};

}  // namespace stubjit
