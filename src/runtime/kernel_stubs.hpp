// The stubs one kernel has used, found on the launch's fast path without a lock and
// without allocating: a fixed table of slots, each published once and never changed,
// probed from the identity's hash and compared in full.
#pragma once

#include <array>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "cache/stub_identity.hpp"
#include "runtime/runtime_state.hpp"

namespace stubjit::detail {

class KernelStubs {
 public:
  // More variants than this still launch, through the runtime's cache (slower).
  static constexpr std::size_t capacity = 64;

  // A stub, or the CompileError its source gave (thrown again without compiling).
  struct Record {
    StubIdentity identity;
    std::shared_ptr<const LoadedStub> stub;
    std::exception_ptr failure;
  };

  const Record* find(const StubIdentity& identity) const noexcept {
    for (std::size_t probe = 0; probe < capacity; ++probe) {
      const Record* record =
          slots_[(identity.hash + probe) % capacity].load(std::memory_order_acquire);
      if (!record) return nullptr;
      if (record->identity == identity) return record;
    }
    return nullptr;
  }

  // Whether every slot is taken: a stub not in the table is then found (or built) in the
  // runtime's cache on every launch that needs it.
  bool full() const noexcept { return kept_.load(std::memory_order_acquire) >= capacity; }

  // Publishes a result; does nothing when the identity is known or the table is full.
  void remember(const StubIdentity& identity, std::shared_ptr<const LoadedStub> stub,
                std::exception_ptr failure) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t probe = 0; probe < capacity; ++probe) {
      std::atomic<const Record*>& slot = slots_[(identity.hash + probe) % capacity];
      const Record* record = slot.load(std::memory_order_relaxed);
      if (record && record->identity == identity) return;
      if (record) continue;
      records_.push_back(
          std::make_unique<const Record>(Record{identity, std::move(stub), std::move(failure)}));
      slot.store(records_.back().get(), std::memory_order_release);
      kept_.store(records_.size(), std::memory_order_release);
      return;
    }
  }

 private:
  std::array<std::atomic<const Record*>, capacity> slots_{};
  std::atomic<std::size_t> kept_{0};
  std::mutex mutex_;
  std::vector<std::unique_ptr<const Record>> records_;  // owned until the kernel goes
};

}  // namespace stubjit::detail
