// Kernel::repeat: IrGL's loop of a kernel until its Any or All flag says stop
// (docs/patterns.md). Every check is made before the first launch: the options here,
// the arguments as the first iteration has them by that launch's own checks, and as
// the iterations after a trade have them by checking that launch as it will run
// (detail::check_launch: it binds and plans it and finds or compiles the stub the launch
// runs; under Specialize::background the generic one, so the loop does not wait for the
// specialized compile its worker makes). Each iteration is an ordinary reduce
// launch whose flag is assigned, then read back (on the CPU backend from host memory:
// no transfer), and the double buffers traded before the next.
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel_state.hpp"
#include "runtime/launch_steps.hpp"
#include "runtime/reduce_launch.hpp"
#include "runtime/runtime_state.hpp"
#include "stubjit/error.hpp"
#include "stubjit/kernel.hpp"

namespace stubjit {
namespace {

std::string call_of(const detail::KernelState& kernel) {
  return "Kernel::repeat of kernel '" + kernel.source.name + "'";
}

// The flag: a rank-0 bool result with Combiner::any or all.
const Param& flag_of(const detail::KernelState& kernel) {
  const Param* result = kernel.result;
  const bool flag = result && !result->is_scan() && !result->is_sort() && result->rank == 0 &&
                    result->type == ElementType::boolean &&
                    (result->combiner == Combiner::any || result->combiner == Combiner::all);
  if (!flag) {
    throw ArgumentError(result ? result->name : "",
                        call_of(kernel) +
                            ": the kernel needs a flag, a rank-0 result<bool> with Combiner::any "
                            "or Combiner::all (" +
                            (result ? "its '" + result->name + "' is " + to_string(*result)
                                    : std::string("it has no result")) +
                            ")");
  }
  return *result;
}

bool same_field(const Field& a, const Field& b) {
  return a.data() == b.data() && a.type() == b.type() && a.extents() == b.extents() &&
         a.strides() == b.strides();
}

// Each swap: two fields of the same type, extents, strides and access (so that either
// order binds to the same stub), not the same field, each among the arguments and in no
// other swap.
void check_swaps(const detail::KernelState& kernel, const std::vector<Arg>& args,
                 const RepeatOptions& options) {
  for (std::size_t s = 0; s < options.swaps.size(); ++s) {
    const auto& [first, second] = options.swaps[s];
    const std::string where = call_of(kernel) + ": swap " + std::to_string(s);
    if (!first || !second) throw ArgumentError("", where + " holds a null field");
    if (first.type() != second.type() || first.extents() != second.extents()) {
      throw ArgumentError("", where + " pairs fields of different types or extents");
    }
    if (first.strides() != second.strides() || first.writable() != second.writable()) {
      throw ArgumentError("", where +
                                  " pairs fields of different strides or access (a trade "
                                  "would change the launch's stub or bindings)");
    }
    if (same_field(first, second)) throw ArgumentError("", where + " pairs a field with itself");
    for (std::size_t t = 0; t < s; ++t) {
      for (const Field* field : {&first, &second}) {
        const auto& [earlier_first, earlier_second] = options.swaps[t];
        if (same_field(*field, earlier_first) || same_field(*field, earlier_second)) {
          throw ArgumentError("", where + " holds a field of swap " + std::to_string(t) +
                                      " too; each field trades in one pair");
        }
      }
    }
    for (const Field* field : {&first, &second}) {
      bool found = false;
      for (const Arg& arg : args)
        found = found || (arg.kind() == Arg::Kind::field && same_field(*arg.field(), *field));
      if (!found) {
        throw ArgumentError("", where + ": its " + (field == &first ? "first" : "second") +
                                    " field is not among the arguments");
      }
    }
  }
}

// Every argument that is a pair's field becomes the pair's other (no field is in two
// pairs: check_swaps).
void trade(std::vector<Arg>& args, const RepeatOptions& options) {
  for (Arg& arg : args) {
    if (arg.kind() != Arg::Kind::field) continue;
    for (const auto& [first, second] : options.swaps) {
      if (same_field(*arg.field(), first)) {
        arg = Arg(second);
        break;
      }
      if (same_field(*arg.field(), second)) {
        arg = Arg(first);
        break;
      }
    }
  }
}

}  // namespace

RepeatSummary Kernel::repeat_args(const Domain& domain, const Arg* args, std::size_t count,
                                  const RepeatOptions& options) {
  if (!state_) throw Error("repeat of a null kernel");
  detail::KernelState& kernel = *state_;
  const Param& flag = flag_of(kernel);
  detail::check_arguments_but_result(kernel, count, "Kernel::repeat");
  if (options.max_iterations < 1) {
    throw ArgumentError("", call_of(kernel) + ": max_iterations is " +
                                std::to_string(options.max_iterations) + "; at least 1");
  }
  const Field field =
      detail::allocate_field(kernel.runtime, ElementType::boolean, {}, Layout::row_major);
  std::vector<Arg> all = detail::arguments_with_result(kernel, args, count, field);
  check_swaps(kernel, all, options);
  LaunchOptions launch = options.launch;
  launch.reduce_update = ReduceUpdate::assign;
  RepeatSummary summary;
  if (!options.swaps.empty() && options.max_iterations > 1) {
    // The arguments after a trade: bound (types, access, aliasing), planned and the stub
    // their launch runs found or compiled now, not after the first iteration has written
    // a buffer.
    std::vector<Arg> traded = all;
    trade(traded, options);
    summary.compiled =
        detail::check_launch(kernel, domain, traded.data(), traded.size(), launch).compiled;
  }
  // The arguments as they are: the first launch's own checks, before it runs.
  const bool stop_when = flag.combiner == Combiner::all;  // all: done; any: nothing changed
  for (;;) {
    const LaunchSummary launched = launch_args(domain, all.data(), all.size(), launch);
    ++summary.iterations;
    summary.compiled = summary.compiled || launched.compiled;
    // A reduce launch always runs a group (an empty domain's writes the identity: an
    // empty any stops the loop, an empty all too).
    if (launched.dispatches == 0) throw Error(call_of(kernel) + " ran no group");
    detail::StreamState* stream =
        launch.stream ? launch.stream->state() : kernel.runtime->default_stream.get();
    stream->synchronize();
    bool value = !stop_when;
    field.copy_to_bytes(&value, sizeof value);
    if (value == stop_when) {
      summary.converged = true;
      break;
    }
    if (summary.iterations >= options.max_iterations) break;
    if (!options.swaps.empty()) {
      trade(all, options);
      summary.swapped = !summary.swapped;
    }
  }
  return summary;
}

}  // namespace stubjit
