// Specialize::background: one worker thread per kernel compiling the stubs its
// launches asked for, one at a time, in the order asked. Each stub is asked for once:
// a launch that finds its stub queued, compiling or failed runs the generic one.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cache/stub_identity.hpp"

namespace stubjit::detail {

class BackgroundCompiles {
 public:
  BackgroundCompiles() = default;
  BackgroundCompiles(const BackgroundCompiles&) = delete;
  BackgroundCompiles& operator=(const BackgroundCompiles&) = delete;
  // Drops what is queued and waits for the compile under way: the kernel whose
  // state the jobs use is going.
  ~BackgroundCompiles();

  // Queues `job` for `identity` unless it was queued before (true when queued now).
  // The worker starts with the first job.
  bool submit(const StubIdentity& identity, std::function<void()> job);
  // Waits until the queue is empty and no job runs.
  void wait_idle();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
  std::vector<StubIdentity> asked_;  // every identity ever queued
  bool busy_ = false;
  bool stopping_ = false;
  std::thread worker_;  // last: started after the members it uses, joined first
};

}  // namespace stubjit::detail
