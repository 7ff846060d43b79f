#include "runtime/part_threads.hpp"

namespace stubjit::detail {

PartThreads::PartThreads(std::size_t parts) : failures_(parts) {
  threads_.reserve(parts > 0 ? parts - 1 : 0);
  try {
    for (std::size_t part = 1; part < parts; ++part)
      threads_.emplace_back([this, part] { serve(part); });
  } catch (...) {
    stop_and_join();  // the destructor does not run for a constructor that throws
    throw;
  }
}

PartThreads::~PartThreads() { stop_and_join(); }

void PartThreads::stop_and_join() noexcept {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  start_.notify_all();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
}

void PartThreads::serve(std::size_t part) {
  std::uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    start_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    const std::function<void(std::size_t)>& job = *job_;
    lock.unlock();
    std::exception_ptr failure;
    try {
      job(part);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    failures_[part] = failure;
    if (--running_ == 0) done_.notify_one();
  }
}

std::vector<std::exception_ptr> PartThreads::run(const std::function<void(std::size_t)>& job) {
  const std::lock_guard<std::mutex> call(calls_);
  if (failures_.empty()) return {};
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    running_ = threads_.size();
    ++generation_;
  }
  start_.notify_all();
  std::exception_ptr first;
  try {
    job(0);
  } catch (...) {
    first = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return running_ == 0; });
  job_ = nullptr;
  std::vector<std::exception_ptr> failures = failures_;
  failures[0] = first;
  return failures;
}

}  // namespace stubjit::detail
