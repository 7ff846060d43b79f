#include "backends/remote_toolchain.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "backends/worker_protocol.hpp"
#include "stubjit/error.hpp"
#include "support/env.hpp"
#include "support/library_files.hpp"
#include "support/log.hpp"

extern char** environ;

namespace stubjit::detail {
namespace {

// One worker process and our end of its socket.
struct Worker {
  pid_t pid = -1;
  int socket = -1;
};

// Stops a worker for good: no more requests, killed, reaped.
void stop(Worker& worker) {
  if (worker.socket >= 0) ::close(worker.socket);
  if (worker.pid > 0) {
    ::kill(worker.pid, SIGKILL);
    int status = 0;
    while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  worker = Worker{};
}

// What became of a worker that stopped answering: "killed by signal 11".
std::string ending_of(pid_t pid) {
  int status = 0;
  pid_t reaped = 0;
  for (int tries = 0; tries < 100; ++tries) {
    reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped != 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (reaped != pid) return "stopped answering";
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

std::optional<Worker> spawn_worker(const std::string& path, std::string& why) {
  // One socket pair: the worker reads requests from its stdin and answers on its
  // stdout, both its end; ours is written with MSG_NOSIGNAL, so a worker that died is
  // an error here, not a SIGPIPE that would end the application.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    why = std::string("socketpair: ") + std::strerror(errno);
    return std::nullopt;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], 0);
  posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
  // Nothing of the worker reaches the application's stderr: what it has to say comes
  // back in its answers.
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  if (spawned != 0) {
    why = "cannot start " + path + ": " + std::strerror(spawned);
    ::close(ends[0]);
    return std::nullopt;
  }
  return Worker{pid, ends[0]};
}

// Idle workers of the process, shared by every runtime: a compile takes one (or starts
// one) and gives it back when it ends normally.
class WorkerPool {
 public:
  ~WorkerPool() {
    for (Worker& worker : idle_) stop(worker);
  }

  std::optional<Worker> take(const std::string& path, std::string& why) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!idle_.empty()) {
        Worker worker = idle_.back();
        idle_.pop_back();
        return worker;
      }
    }
    return spawn_worker(path, why);
  }

  std::size_t idle() {
    std::lock_guard<std::mutex> lock(mutex_);
    return idle_.size();
  }

  void give_back(Worker worker) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (idle_.size() < max_idle()) {
      idle_.push_back(worker);
      return;
    }
    stop(worker);
  }

 private:
  static std::size_t max_idle() {
    // Once: this is asked after every compile, and hardware_concurrency asks the
    // kernel (a file of /sys, or the affinity mask) each time.
    static const std::size_t count = std::max<std::size_t>(2, std::thread::hardware_concurrency());
    return count;
  }
  std::mutex mutex_;
  std::vector<Worker> idle_;
};

WorkerPool& pool() {
  static WorkerPool instance;
  return instance;
}

std::string seconds(std::chrono::milliseconds limit) {
  const long long ms = limit.count();
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s"
                        : std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

class RemoteToolchain final : public Toolchain {
 public:
  RemoteToolchain(std::unique_ptr<Toolchain> local, std::string backend,
                  std::chrono::milliseconds limit)
      : local_(std::move(local)), backend_(std::move(backend)), limit_(limit) {}

  const TargetTraits& traits() const override { return local_->traits(); }
  std::string target_id() const override { return local_->target_id(); }
  std::string compiler_id() const override { return local_->compiler_id(); }
  DeviceLimits typical_limits() const override { return local_->typical_limits(); }
  // The workers waiting in the pool (any runtime's): a compile beyond them starts one,
  // which loads the compiler first. Without a worker to start, compiles run here.
  std::size_t ready_compilers() const override {
    return compile_worker_path().empty() ? local_->ready_compilers() : pool().idle();
  }

  Binary compile(const CompileJob& job) const override {
    const std::string path = compile_worker_path();
    const std::string chosen = env_or("STUBJIT_COMPILE_WORKER", "");
    std::string why = chosen.empty() ? "stubjit-compile-worker is not beside the library"
                                     : "STUBJIT_COMPILE_WORKER=" + chosen + " is no executable";
    std::optional<Worker> worker = path.empty() ? std::nullopt : pool().take(path, why);
    if (!worker) {
      std::call_once(warned_,
                     [&] { logger().warn("compiles run without their time limit: {}", why); });
      return local_->compile(job);
    }
    CompileRequest request{backend_,      local_->target_id(), local_->compiler_id(),
                           job.file_name, job.entry,           job.kernel,
                           job.source,    job.options};
    const auto deadline = std::chrono::steady_clock::now() + limit_;
    std::string frame;
    if (!write_frame(worker->socket, encode(request))) {
      const std::string ending = ending_of(worker->pid);
      stop(*worker);
      throw BackendError("the compile worker " + ending + " before it took the stub");
    }
    const FrameRead read = read_frame(worker->socket, frame, deadline);
    if (read == FrameRead::timed_out) {
      stop(*worker);
      throw CompileError(job.kernel,
                         "stubjit: compiling " + job.file_name +
                             " took longer than the compile time limit of " + seconds(limit_) +
                             " (RuntimeOptions::compile_timeout, STUBJIT_COMPILE_TIMEOUT); " +
                             "the compiler was stopped\n",
                         job.source);
    }
    CompileResponse response;
    if (read != FrameRead::read || !decode(frame, response)) {
      const std::string ending = ending_of(worker->pid);
      stop(*worker);
      // The compiler crashed on this source: the same source crashes it again.
      throw CompileError(
          job.kernel,
          "stubjit: the compiler " + ending + " while compiling " + job.file_name + "\n",
          job.source);
    }
    pool().give_back(*worker);
    switch (response.status) {
      case CompileResponse::Status::compiled:
        return std::move(response.binary);
      case CompileResponse::Status::compile_error:
        throw CompileError(job.kernel, response.message, job.source);
      case CompileResponse::Status::failed:
        break;
    }
    throw BackendError("the compile worker could not compile " + job.file_name + ": " +
                       response.message);
  }

 private:
  std::unique_ptr<Toolchain> local_;
  std::string backend_;
  std::chrono::milliseconds limit_;
  mutable std::once_flag warned_;
};

}  // namespace

std::string compile_worker_path() {
  const std::string chosen = env_or("STUBJIT_COMPILE_WORKER", "");
  if (!chosen.empty()) return ::access(chosen.c_str(), X_OK) == 0 ? chosen : "";
  // Found once: where the library lies does not change while it is loaded, and the
  // lookup (the library's own path, then the file) would be paid at every compile.
  // Not found is asked again (a worker installed later is used).
  static std::mutex mutex;
  static std::string found;
  std::lock_guard<std::mutex> lock(mutex);
  if (found.empty()) {
#ifdef STUBJIT_BUILD_TREE_WORKER
    const char* build_tree_worker = STUBJIT_BUILD_TREE_WORKER;
#else
    const char* build_tree_worker = nullptr;
#endif
    found = find_beside_library("stubjit-compile-worker", build_tree_worker, /*executable=*/true);
  }
  return found;
}

std::unique_ptr<Toolchain> make_remote_toolchain(std::unique_ptr<Toolchain> local,
                                                 std::string backend,
                                                 std::chrono::milliseconds limit) {
  return std::make_unique<RemoteToolchain>(std::move(local), std::move(backend), limit);
}

}  // namespace stubjit::detail
