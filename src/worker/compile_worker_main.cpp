// stubjit-compile-worker: compiles stubs for a runtime in a process of its own, so
// that a compile that runs past the runtime's time limit can be stopped (the runtime
// kills this process). It reads requests on stdin and answers on stdout
// (backends/worker_protocol.hpp) until stdin closes. It keeps the toolchains it made,
// so each compiler is loaded once per worker.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <utility>

#include "backends/registry.hpp"
#include "backends/worker_protocol.hpp"
#include "stubjit/error.hpp"

namespace {

using namespace stubjit;
using namespace stubjit::detail;

CompileResponse compile(
    const CompileRequest& request,
    std::map<std::pair<std::string, std::string>, std::unique_ptr<Toolchain>>& toolchains) {
  CompileResponse response;
  try {
    std::unique_ptr<Toolchain>& toolchain =
        toolchains[{request.backend, request.target + "\n" + request.compiler}];
    if (!toolchain) {
      const BackendEntry entry = backend_named(request.backend);
      if (!entry.toolchain_for)
        throw BackendError("backend '" + request.backend + "' compiles in process only");
      toolchain = entry.toolchain_for(request.target, request.compiler);
      // A binary from another compiler than the runtime's would be filed under the
      // runtime's compiler in the cache key: refused rather than made.
      if (!request.compiler.empty() && toolchain->compiler_id() != request.compiler) {
        const std::string differs = toolchain->compiler_id();
        toolchain.reset();
        throw BackendError("the compile worker compiles with " + differs + ", the runtime with " +
                           request.compiler);
      }
    }
    const CompileJob job{request.source, request.file_name, request.entry, request.kernel,
                         request.options};
    response.binary = toolchain->compile(job);
    response.status = CompileResponse::Status::compiled;
  } catch (const CompileError& error) {
    response.status = CompileResponse::Status::compile_error;
    response.message = error.log();
  } catch (const std::exception& error) {
    response.status = CompileResponse::Status::failed;
    response.message = error.what();
  }
  return response;
}

// A worker outlives no runtime. Its socket's other end closes when the process that
// started it ends, however it ends (killed too); the worker then stops at once, in the
// middle of a compile as well, rather than finish one no process waits for and whose
// time limit no process enforces (the compile's slot of the node's cap went back with
// that process). The kernel tells it with SIGIO (the socket is O_ASYNC), not a thread
// of its own that would watch: a second thread makes every malloc of the compiler
// take a lock, which costs NVRTC about 1 % (bench/results/cuda.md). (Started by hand
// with a pipe for stdin, it stops once the writer closes it.)
extern "C" void stop_if_the_runtime_is_gone(int) {
  const int saved = errno;
  pollfd socket{0, POLLRDHUP, 0};
  if (::poll(&socket, 1, 0) > 0 && (socket.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)))
    ::_exit(0);
  errno = saved;  // a request arrived: the main loop reads it
}

void stop_with_the_runtime() {
  struct sigaction action {};
  action.sa_handler = stop_if_the_runtime_is_gone;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  const int flags = ::fcntl(0, F_GETFL);
  // Where any step fails, compiles end as before.
  if (::sigaction(SIGIO, &action, nullptr) != 0 || flags < 0 ||
      ::fcntl(0, F_SETOWN, ::getpid()) != 0 || ::fcntl(0, F_SETFL, flags | O_ASYNC) != 0)
    return;
  stop_if_the_runtime_is_gone(SIGIO);  // gone already, before the signal was set up
}

}  // namespace

int main() {
  stop_with_the_runtime();
  std::map<std::pair<std::string, std::string>, std::unique_ptr<Toolchain>> toolchains;
  std::string frame;
  while (read_frame(0, frame, std::nullopt) == FrameRead::read) {
    CompileRequest request;
    CompileResponse response;
    if (decode(frame, request)) {
      response = compile(request, toolchains);
    } else {
      response.message = "a request this worker cannot read (another stubjit version?)";
    }
    if (!write_frame(1, encode(response))) return 1;
  }
  return 0;
}
