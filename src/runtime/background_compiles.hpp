// Specialize::background: one worker thread per kernel compiling the stubs its
// launches asked for, one at a time, in the order asked, and what became of each: a
// launch that finds its stub queued or failed runs the generic one; one whose stub
// is ready runs it (from the kernel's table, or the runtime's cache where the table
// is full).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cache/stub_identity.hpp"

namespace stubjit::detail {

class BackgroundCompiles {
 public:
  enum class Outcome : std::uint8_t { queued, ready, failed };
  // What a job reports: ready, failed for good (a CompileError: the same source fails
  // the same way), or failed for now (another error: the next launch asks again).
  enum class Result : std::uint8_t { ready, failed, retry };

  // `compile` builds one identity's stub on the worker thread.
  explicit BackgroundCompiles(std::function<Result(const StubIdentity&)> compile)
      : compile_(std::move(compile)) {}
  BackgroundCompiles(const BackgroundCompiles&) = delete;
  BackgroundCompiles& operator=(const BackgroundCompiles&) = delete;
  // Drops what is queued and waits for the compile under way: the kernel whose
  // state the jobs use is going.
  ~BackgroundCompiles();

  // The outcome for `identity`; the first time (or after a retry), queues its
  // compile and says queued. The worker starts with the first.
  Outcome request(const StubIdentity& identity);
  // Waits until the queue is empty and no job runs (jobs queued meanwhile included).
  void wait_idle();

 private:
  struct Entry {
    StubIdentity identity;
    Outcome outcome;
  };
  void run();
  Entry* find(const StubIdentity& identity);
  void settle(const StubIdentity& identity, Result result);

  const std::function<Result(const StubIdentity&)> compile_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<StubIdentity> queue_;
  std::unordered_map<std::uint64_t, std::vector<Entry>> asked_;  // by identity hash
  bool busy_ = false;
  bool stopping_ = false;
  std::thread worker_;  // last: started after the members it uses, joined first
};

}  // namespace stubjit::detail
