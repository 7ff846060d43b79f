// SplitKernel: one kernel over a set of runtimes, each part of a split domain on its
// own. Every part is checked (Kernel::prepare) before any is launched, so that bad input
// launches nothing; then the parts are launched at once, one thread each.
#include <condition_variable>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>

#include "runtime/launch_steps.hpp"
#include "runtime/part_threads.hpp"
#include "stubjit/error.hpp"
#include "stubjit/runtime.hpp"
#include "stubjit/split.hpp"

namespace stubjit {
namespace detail {

// The threads of the parts, or a SplitError where the system cannot start them.
PartThreads start_part_threads(std::size_t parts) {
  try {
    return PartThreads(parts);
  } catch (const std::system_error& error) {
    throw SplitError("runtimes", -1,
                     "SplitKernel: cannot start a thread for each of " + std::to_string(parts) +
                         " parts: " + error.what());
  }
}

class SplitState {
 public:
  explicit SplitState(std::vector<Kernel> kernels_)
      : kernels(std::move(kernels_)), threads(start_part_threads(kernels.size())) {}
  std::vector<Kernel> kernels;  // part i's, of runtime i
  PartThreads threads;
};

namespace {

// Where the parts' threads meet between checking and launching: each says whether its
// part passed and waits for the others; all launch, or none.
class LaunchGate {
 public:
  explicit LaunchGate(std::size_t parts) : waiting_(parts) {}
  bool all_passed(bool passed) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!passed) any_refused_ = true;
    if (--waiting_ == 0) {
      arrived_.notify_all();
    } else {
      arrived_.wait(lock, [&] { return waiting_ == 0; });
    }
    return !any_refused_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::size_t waiting_;
  bool any_refused_ = false;
};

std::string part_name(std::size_t part, std::size_t parts) {
  return "part " + std::to_string(part) + " of " + std::to_string(parts);
}

std::string what_of(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& error) {
    return error.what();
  } catch (...) {
    return "an exception that is no std::exception";
  }
}

// The lowest part that failed, as a SplitError keeping its own error; `after` says what
// became of the others.
void throw_first_failure(const std::vector<std::exception_ptr>& failures, const char* after) {
  for (std::size_t part = 0; part < failures.size(); ++part) {
    if (!failures[part]) continue;
    throw SplitError("parts", static_cast<int>(part),
                     "SplitKernel::launch: " + part_name(part, failures.size()) + " failed (" +
                         after + "): " + what_of(failures[part]),
                     failures[part]);
  }
}

std::vector<Kernel> kernels_for(const std::vector<Runtime*>& runtimes, const KernelSource& source) {
  if (runtimes.empty())
    throw SplitError("runtimes", -1, "SplitKernel: no runtimes: give one runtime per part");
  std::vector<Kernel> kernels;
  kernels.reserve(runtimes.size());
  for (std::size_t part = 0; part < runtimes.size(); ++part) {
    if (!runtimes[part]) {
      throw SplitError("runtimes", static_cast<int>(part),
                       "SplitKernel: runtime " + std::to_string(part) + " of " +
                           std::to_string(runtimes.size()) + " is null");
    }
    try {
      kernels.push_back(runtimes[part]->kernel(source));
    } catch (const std::exception& error) {
      throw SplitError("source", static_cast<int>(part),
                       "SplitKernel: runtime " + std::to_string(part) + " of " +
                           std::to_string(runtimes.size()) + " (" + runtimes[part]->backend_name() +
                           ") refused kernel '" + source.name + "': " + error.what(),
                       std::current_exception());
    }
  }
  return kernels;
}

}  // namespace
}  // namespace detail

SplitKernel::SplitKernel(const std::vector<Runtime*>& runtimes, const KernelSource& source)
    : state_(std::make_unique<detail::SplitState>(detail::kernels_for(runtimes, source))) {}

SplitKernel::~SplitKernel() = default;
SplitKernel::SplitKernel(SplitKernel&&) noexcept = default;
SplitKernel& SplitKernel::operator=(SplitKernel&&) noexcept = default;

std::size_t SplitKernel::parts() const noexcept { return state_ ? state_->kernels.size() : 0; }

Kernel& SplitKernel::kernel(std::size_t part) {
  if (part >= parts()) {
    throw SplitError("parts", static_cast<int>(part),
                     "SplitKernel::kernel(" + std::to_string(part) + "): the parts are 0.." +
                         std::to_string(static_cast<long long>(parts()) - 1));
  }
  return state_->kernels[part];
}

std::vector<LaunchSummary> SplitKernel::launch(const std::vector<PartLaunch>& parts,
                                               const LaunchOptions& options) {
  if (!state_) throw SplitError("parts", -1, "SplitKernel::launch of a moved-from SplitKernel");
  std::vector<Kernel>& kernels = state_->kernels;
  if (parts.size() != kernels.size()) {
    throw SplitError("parts", -1,
                     "SplitKernel::launch: " + std::to_string(parts.size()) +
                         " parts for a SplitKernel of " + std::to_string(kernels.size()) +
                         " runtimes: give one part per runtime");
  }
  if (options.stream) {
    throw SplitError("options.stream", -1,
                     "SplitKernel::launch: a stream in the options would be one runtime's: give "
                     "each part its own in PartLaunch::stream");
  }
  // Each part's thread checks the part (and finds or compiles its stub: a cold start
  // compiles on every runtime at once), then waits at the gate for the others, and
  // launches only when every part passed: a refusal launches nothing.
  detail::LaunchGate gate(parts.size());
  std::vector<std::exception_ptr> refused(parts.size());
  std::vector<LaunchSummary> summaries(parts.size());
  const std::vector<std::exception_ptr> failed = state_->threads.run([&](std::size_t part) {
    const PartLaunch& p = parts[part];
    LaunchOptions own = options;
    own.stream = p.stream;
    LaunchSummary checked;
    try {
      checked =
          detail::check_launch(*kernels[part].state_, p.domain, p.args.data(), p.args.size(), own);
    } catch (...) {
      refused[part] = std::current_exception();
    }
    if (!gate.all_passed(!refused[part])) return;
    summaries[part] = kernels[part].launch_args(p.domain, p.args.data(), p.args.size(), own);
    // Where the launch ran the stub the check found (not the specialized one that the
    // kernel's worker finished in between), a compile by the check was the launch's.
    if (checked.generic == summaries[part].generic)
      summaries[part].compiled = summaries[part].compiled || checked.compiled;
  });
  detail::throw_first_failure(refused, "nothing was launched");
  detail::throw_first_failure(failed, "the parts that did not fail were launched");
  return summaries;
}

}  // namespace stubjit
