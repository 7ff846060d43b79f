#include "runtime/stage_prefetch.hpp"

#include <system_error>

#include "runtime/launch_steps.hpp"
#include "runtime/stub_builder.hpp"
#include "support/compile_cap.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

StagePrefetch::~StagePrefetch() {
  if (thread_.joinable()) thread_.join();
}

void StagePrefetch::start(KernelState& kernel, const StubIdentity& first, const StubIdentity& later,
                          Start when) {
  // The kernel's table first: a launch that finds its stubs there asks nothing else.
  if (thread_.joinable() || kernel.stubs.full() || kernel.stubs.find(first) ||
      kernel.stubs.find(later) || StubCollection::active_for(*kernel.runtime))
    return;
  if (compile_cap_from_environment().slots == 1) return;
  const std::size_t ready = kernel.runtime->toolchain->ready_compilers();
  if (ready == 1 || (ready == 0 && when == Start::short_later)) return;
  later_.emplace(later);
  try {
    thread_ = std::thread([this, &kernel] {
      try {
        stub_ = &stub_for(kernel, *later_, compiled_, hold_);
      } catch (...) {  // thrown again by get(), on the launch's thread
        failure_ = std::current_exception();
      }
    });
  } catch (const std::system_error& error) {  // no thread to be had: one stage after the other
    later_.reset();
    logger().debug("kernel '{}': the stages' stubs are built one after the other ({})",
                   kernel.source.name, error.what());
  }
}

const LoadedStub& StagePrefetch::get(KernelState& kernel, const StubIdentity& later,
                                     LaunchSummary& summary,
                                     std::shared_ptr<const LoadedStub>& hold) {
  if (!thread_.joinable() || !(*later_ == later)) return stub_found(kernel, later, summary, hold);
  thread_.join();
  if (failure_) std::rethrow_exception(failure_);
  summary.compiled = summary.compiled || compiled_;
  hold = hold_;
  return *stub_;
}

}  // namespace stubjit::detail
