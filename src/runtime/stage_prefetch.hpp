// A launch of two stages whose stubs must both be built (a sort split into parts: runs,
// then merges; a host scan of several parts: partials, then the scan) builds one stage's
// stub (`later`: the one the launch looks for second, a sort's merges, a scan's
// partials) on a thread of its own while the caller builds the other's (`first`). A cold
// launch then waits for the longer compile instead of for both, one after the other.
// Two compiles at once go to two compile workers (remote_toolchain.hpp), or run on two
// threads of the in-process toolchain. A worker not yet started loads the compiler
// first (about 140 ms on the 2-core test VM), which is longer than a short stage's
// compile: `Start` says whether the later stage's compile is worth starting one for.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <thread>

#include "runtime/kernel_state.hpp"

namespace stubjit::detail {

class StagePrefetch {
 public:
  enum class Start {
    // Where two compilers are ready, or none (a process's first compiles, which then
    // start theirs side by side): the later stage's compile is long enough to hide a
    // compiler's start (a sort's merge stage, 2 to 2.7 times its runs stage's). Not
    // where one is: which compile gets it is a race, and the long one waiting for a
    // start takes longer than both in turn.
    long_later,
    // Only where two compilers are ready: otherwise one would be started for a
    // compile shorter than its start (a scan's stages).
    short_later,
  };

  StagePrefetch() = default;
  ~StagePrefetch();  // waits for the thread: it uses the kernel
  StagePrefetch(const StagePrefetch&) = delete;
  StagePrefetch& operator=(const StagePrefetch&) = delete;

  // Starts building the stub of `later` on a thread where it and the stub of `first`
  // (both the identities a launch runs: generic_stub_instead applied) are both still to
  // be found or built. Does nothing, and allocates nothing, where either is in the
  // kernel's table (a launch's fast path) or the table is full (a stub the runtime's
  // cache holds would start a thread on every launch), where a StubCollection for the
  // runtime is alive on this thread (it defers on its own thread only), where the node
  // runs one compile at a time (STUBJIT_MAX_PARALLEL_COMPILES=1), or where `when`
  // says the compilers ready (Toolchain::ready_compilers) do not pay.
  void start(KernelState& kernel, const StubIdentity& first, const StubIdentity& later, Start when);
  bool started() const noexcept { return thread_.joinable(); }

  // The stub of `later`, as stub_for finds it: the thread's, waited for (what the thread
  // threw is thrown here), or found here where no thread was started for it.
  // `summary.compiled` is set where the compiler ran for it.
  const LoadedStub& get(KernelState& kernel, const StubIdentity& later, LaunchSummary& summary,
                        std::shared_ptr<const LoadedStub>& hold);

 private:
  std::optional<StubIdentity> later_;  // the thread's
  std::thread thread_;
  const LoadedStub* stub_ = nullptr;
  std::shared_ptr<const LoadedStub> hold_;
  bool compiled_ = false;
  std::exception_ptr failure_;
};

}  // namespace stubjit::detail
