#include "support/compile_slot.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "support/compile_cap.hpp"
#include "support/compile_trace.hpp"
#include "support/log.hpp"
#include "support/slot_semaphore.hpp"

namespace stubjit::detail {
namespace {

// The semaphore sets this process has opened, by cap; null where none could be had.
// Opened once each: a compile after the first only waits.
class OpenedCaps {
 public:
  std::shared_ptr<SlotSemaphore> find(const CompileCap& cap) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = opened_.try_emplace({cap.slots, cap.scope});
    if (!inserted) return it->second;
    auto semaphore = std::make_shared<SlotSemaphore>(cap.slots, cap.scope);
    if (semaphore->valid()) {
      it->second = std::move(semaphore);
    } else {
      logger().info("compiles are not capped at {} on this node: {}", cap.slots, semaphore->why());
    }
    return it->second;
  }

  // A set that failed (removed under us): the next compile opens it afresh. Compiles
  // holding a slot of it keep it (shared).
  void forget(const CompileCap& cap) {
    std::lock_guard<std::mutex> lock(mutex_);
    opened_.erase({cap.slots, cap.scope});
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<unsigned, std::string>, std::shared_ptr<SlotSemaphore>> opened_;
};

OpenedCaps& opened_caps() {
  static OpenedCaps caps;
  return caps;
}

}  // namespace

CompileSlot::CompileSlot(std::string kernel) : kernel_(std::move(kernel)) {
  const CompileCap cap = compile_cap_from_environment();
  const std::int64_t asked = steady_ns();
  if (cap.slots > 0) {
    if (std::shared_ptr<SlotSemaphore> semaphore = opened_caps().find(cap)) {
      std::string problem;
      if (semaphore->acquire(problem)) {
        cap_ = cap.slots;
        semaphore_ = std::move(semaphore);
      } else {
        logger().info("compiling {} without a slot: {}", kernel_, problem);
        opened_caps().forget(cap);
      }
    }
  }
  const std::int64_t waited = steady_ns() - asked;
  if (cap_ > 0) logger().debug("compile slot for {} after {} µs", kernel_, waited / 1000);
  trace_compile("acquired", waited, cap_, kernel_);
}

CompileSlot::~CompileSlot() {
  // Traced before the slot goes back: the traced spans lie inside the held ones.
  trace_compile("released", 0, cap_, kernel_);
  if (semaphore_) semaphore_->release();
}

}  // namespace stubjit::detail
