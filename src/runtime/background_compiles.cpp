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

BackgroundCompiles::Entry* BackgroundCompiles::find(const StubIdentity& identity) {
  const auto bucket = asked_.find(identity.hash);
  if (bucket == asked_.end()) return nullptr;
  for (Entry& entry : bucket->second)
    if (entry.identity == identity) return &entry;
  return nullptr;
}

BackgroundCompiles::Outcome BackgroundCompiles::request(const StubIdentity& identity) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry* entry = find(identity)) return entry->outcome;
    // The worker first: if it cannot start, nothing is left queued or marked asked.
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    queue_.push_back(identity);
    asked_[identity.hash].push_back(Entry{identity, Outcome::queued});
  }
  changed_.notify_all();
  return Outcome::queued;
}

void BackgroundCompiles::settle(const StubIdentity& identity, Result result) {
  Entry* entry = find(identity);
  if (!entry) return;
  if (result == Result::retry) {
    std::vector<Entry>& bucket = asked_[identity.hash];
    bucket.erase(bucket.begin() + (entry - bucket.data()));
    return;
  }
  entry->outcome = result == Result::ready ? Outcome::ready : Outcome::failed;
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
    const StubIdentity identity = queue_.front();
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Result result = Result::retry;
    try {
      result = compile_(identity);  // logs its own failures (kernel.cpp)
    } catch (...) {
      // Nothing may leave the thread (std::terminate); the next launch asks again.
    }
    lock.lock();
    settle(identity, result);
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace stubjit::detail
