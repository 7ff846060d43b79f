#include "cache/background_writer.hpp"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "support/log.hpp"

namespace stubjit::detail {
namespace {

// Set once the writer has drained at exit: a job submitted later (from another
// static destructor) runs on its caller's thread. Constant-initialized and never
// destroyed, so it can be read at any point of the exit.
std::atomic<bool> writer_gone{false};

void run_job(WriteJob& job) noexcept {
  try {
    job();
  } catch (const std::exception& error) {
    logger().warn("a disk-cache write failed: {}", error.what());
  } catch (...) {
    logger().warn("a disk-cache write failed");
  }
  // What the job held (the binary, the key's compile locks) goes before the job
  // counts as done.
  job = nullptr;
}

struct Queue {
  std::mutex mutex;
  std::condition_variable work;      // a job was queued, or stopping
  std::condition_variable progress;  // a job finished
  std::deque<WriteJob> jobs;
  std::uint64_t submitted = 0;
  std::uint64_t done = 0;
  bool running = false;  // a job is being run, outside the mutex
  bool stopping = false;
  std::thread thread;  // started by the first job
};

void serve(Queue& queue) {
  std::unique_lock<std::mutex> lock(queue.mutex);
  for (;;) {
    queue.work.wait(lock, [&] { return !queue.jobs.empty() || queue.stopping; });
    if (queue.jobs.empty()) return;  // stopping, and everything written
    WriteJob job = std::move(queue.jobs.front());
    queue.jobs.pop_front();
    queue.running = true;
    lock.unlock();
    run_job(job);
    lock.lock();
    queue.running = false;
    ++queue.done;
    queue.progress.notify_all();
  }
}

class Writer {
 public:
  Writer() : queue_(std::make_unique<Queue>()) {
    // The logger is made first, so it is destroyed after the writer: jobs drained at
    // exit may still warn.
    logger();
    ::pthread_atfork(&Writer::before_fork, &Writer::after_fork_in_parent,
                     &Writer::after_fork_in_child);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // At exit: every pending write is done before the process goes.
  ~Writer() {
    {
      std::lock_guard<std::mutex> lock(queue_->mutex);
      queue_->stopping = true;
    }
    queue_->work.notify_all();
    if (queue_->thread.joinable()) queue_->thread.join();
    writer_gone.store(true);
  }

  std::uint64_t submit(WriteJob job) {
    std::unique_lock<std::mutex> lock(queue_->mutex);
    if (queue_->stopping) {
      lock.unlock();
      run_job(job);
      return 0;
    }
    if (!queue_->thread.joinable()) {
      try {
        queue_->thread = std::thread(serve, std::ref(*queue_));
      } catch (const std::system_error& error) {
        // No thread to be had: write on the caller's thread, as before there was one.
        lock.unlock();
        logger().debug("no disk-cache writer thread ({}); writing in place", error.what());
        run_job(job);
        return 0;
      }
    }
    queue_->jobs.push_back(std::move(job));
    const std::uint64_t ticket = ++queue_->submitted;
    queue_->work.notify_one();
    return ticket;
  }

  void wait(std::uint64_t ticket) {
    std::unique_lock<std::mutex> lock(queue_->mutex);
    queue_->progress.wait(lock, [&] { return queue_->done >= ticket; });
  }

 private:
  // A fork waits until the writer is between jobs and holds the queue's mutex across
  // it: no job is half done in the child, so no lock a job takes (the cache's, the
  // logger's) is held there by a thread the child does not have.
  static void before_fork() {
    if (writer_gone.load()) return;
    Queue& queue = *instance().queue_;
    std::unique_lock<std::mutex> lock(queue.mutex);
    queue.progress.wait(lock, [&] { return !queue.running; });
    static_cast<void>(lock.release());  // unlocked after the fork, in both processes
  }
  static void after_fork_in_parent() {
    if (!writer_gone.load()) instance().queue_->mutex.unlock();
  }
  // The child has no writer thread, and its copies of the pending jobs are the
  // parent's (with the parent's compile locks, which the child must not release).
  // It gets a fresh queue in which the parent's tickets count as done; the old one
  // is left alone, never destroyed: that would end a std::thread the child does not
  // have, and run the parent's jobs' destructors.
  static void after_fork_in_child() {
    if (writer_gone.load()) return;
    Writer& writer = instance();
    auto fresh = std::make_unique<Queue>();
    fresh->submitted = fresh->done = writer.queue_->submitted;
    static_cast<void>(writer.queue_.release());
    writer.queue_ = std::move(fresh);
  }

 public:
  static Writer& instance() {
    static Writer writer;
    return writer;
  }

 private:
  std::unique_ptr<Queue> queue_;
};

}  // namespace

std::uint64_t submit_write(WriteJob job) {
  if (writer_gone.load()) {
    run_job(job);
    return 0;
  }
  return Writer::instance().submit(std::move(job));
}

void wait_for_writes(std::uint64_t ticket) {
  if (ticket == 0 || writer_gone.load()) return;
  Writer::instance().wait(ticket);
}

}  // namespace stubjit::detail
