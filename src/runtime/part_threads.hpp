// The threads of a SplitKernel: one job per part, all at once, the calling thread
// taking part 0. They are kept between calls, so that each part is launched from the
// same thread every time and that thread's launch memo (launch_memo.hpp) stays warm.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace stubjit::detail {

class PartThreads {
 public:
  // Starts parts - 1 threads (none for one part).
  explicit PartThreads(std::size_t parts);
  PartThreads(const PartThreads&) = delete;
  PartThreads& operator=(const PartThreads&) = delete;
  // Waits for the job under way, then stops and joins the threads.
  ~PartThreads();

  // Runs job(i) for every part i, part i > 0 on thread i, and returns when every job
  // has returned: each part's exception, null where its job returned normally. Calls
  // from several threads run one after the other.
  std::vector<std::exception_ptr> run(const std::function<void(std::size_t)>& job);

 private:
  void serve(std::size_t part);
  void stop_and_join() noexcept;

  std::mutex calls_;  // one run() at a time
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::uint64_t generation_ = 0;  // one more per run(): a thread runs each once
  std::size_t running_ = 0;       // threads still running this generation's job
  bool stopping_ = false;
  std::vector<std::exception_ptr> failures_;
  std::vector<std::thread> threads_;  // last: started after what they use
};

}  // namespace stubjit::detail
