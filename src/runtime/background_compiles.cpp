#include "runtime/background_compiles.hpp"

#include <algorithm>
#include <utility>

#include "support/log.hpp"

namespace stubjit::detail {

BackgroundCompiles::~BackgroundCompiles() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

bool BackgroundCompiles::submit(const StubIdentity& identity, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(asked_.begin(), asked_.end(), identity) != asked_.end()) return false;
    asked_.push_back(identity);
    queue_.push_back(std::move(job));
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
  }
  changed_.notify_all();
  return true;
}

void BackgroundCompiles::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void BackgroundCompiles::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      job();  // logs what fails (kernel.cpp)
    } catch (...) {
      logger().error("a background compile failed with an unknown exception");
    }
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace stubjit::detail
