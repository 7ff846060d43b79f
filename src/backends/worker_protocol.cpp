#include "backends/worker_protocol.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stubjit::detail {
namespace {

constexpr char request_magic[] = "stubjit-compile-request 2";
constexpr char response_magic[] = "stubjit-compile-response 1";
// Sources, binaries and logs are far below this; a larger length is a broken frame.
constexpr std::uint64_t max_frame_bytes = std::uint64_t(1) << 30;

void put_number(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}
void put_text(std::string& out, const std::string& text) {
  put_number(out, text.size());
  out += text;
}

class Cursor {
 public:
  explicit Cursor(const std::string& frame) : frame_(frame) {}
  bool number(std::uint64_t& value) {
    if (frame_.size() - at_ < 8) return false;
    value = 0;
    for (int i = 0; i < 8; ++i)
      value |= std::uint64_t(static_cast<unsigned char>(frame_[at_ + i])) << (8 * i);
    at_ += 8;
    return true;
  }
  bool text(std::string& value) {
    std::uint64_t size = 0;
    if (!number(size) || size > frame_.size() - at_) return false;
    value.assign(frame_, at_, size);
    at_ += size;
    return true;
  }
  bool done() const { return at_ == frame_.size(); }

 private:
  const std::string& frame_;
  std::size_t at_ = 0;
};

// Waits until `fd` is readable or `deadline` passes.
FrameRead wait_readable(int fd, std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (true) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return FrameRead::timed_out;
      timeout_ms = static_cast<int>(std::min<long long>(left.count() + 1, 60 * 60 * 1000));
    }
    pollfd item{fd, POLLIN, 0};
    const int ready = ::poll(&item, 1, timeout_ms);
    if (ready > 0) return FrameRead::read;
    if (ready < 0 && errno != EINTR) return FrameRead::failed;
  }
}

FrameRead read_exactly(int fd, char* bytes, std::size_t size,
                       std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::size_t done = 0;
  while (done < size) {
    if (const FrameRead ready = wait_readable(fd, deadline); ready != FrameRead::read) return ready;
    const ssize_t got = ::read(fd, bytes + done, size - done);
    if (got == 0) return FrameRead::closed;
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return FrameRead::failed;
    }
    done += static_cast<std::size_t>(got);
  }
  return FrameRead::read;
}

}  // namespace

std::string encode(const CompileRequest& request) {
  std::string out = request_magic;
  for (const std::string* text :
       {&request.backend, &request.target, &request.compiler, &request.file_name, &request.entry,
        &request.kernel, &request.source})
    put_text(out, *text);
  put_number(out, request.options.size());
  for (const std::string& option : request.options) put_text(out, option);
  return out;
}

std::string encode(const CompileResponse& response) {
  std::string out = response_magic;
  put_number(out, static_cast<std::uint64_t>(response.status));
  put_text(out, response.binary.format);
  put_text(out, std::string(response.binary.bytes.begin(), response.binary.bytes.end()));
  put_text(out, response.message);
  return out;
}

bool decode(const std::string& frame, CompileRequest& request) {
  const std::size_t magic = sizeof(request_magic) - 1;
  if (frame.compare(0, magic, request_magic) != 0) return false;
  const std::string body = frame.substr(magic);  // the magic is not length-prefixed
  Cursor in(body);
  std::uint64_t count = 0;
  if (!in.text(request.backend) || !in.text(request.target) || !in.text(request.compiler) ||
      !in.text(request.file_name) || !in.text(request.entry) || !in.text(request.kernel) ||
      !in.text(request.source) || !in.number(count) || count > 4096)
    return false;
  request.options.assign(count, std::string());
  for (std::string& option : request.options)
    if (!in.text(option)) return false;
  return in.done();
}

bool decode(const std::string& frame, CompileResponse& response) {
  const std::size_t magic = sizeof(response_magic) - 1;
  if (frame.compare(0, magic, response_magic) != 0) return false;
  const std::string body = frame.substr(magic);
  Cursor in(body);
  std::uint64_t status = 0;
  std::string bytes;
  if (!in.number(status) || status > 2 || !in.text(response.binary.format) || !in.text(bytes) ||
      !in.text(response.message) || !in.done())
    return false;
  response.status = static_cast<CompileResponse::Status>(status);
  response.binary.bytes.assign(bytes.begin(), bytes.end());
  return true;
}

bool write_frame(int fd, const std::string& frame) {
  std::string out;
  out.reserve(8 + frame.size());
  put_number(out, frame.size());
  out += frame;
  std::size_t done = 0;
  bool socket = true;
  while (done < out.size()) {
    // On a socket, a peer that is gone is an error, not a SIGPIPE that would end the
    // application; on a pipe (the worker's side) plain write.
    ssize_t put = socket ? ::send(fd, out.data() + done, out.size() - done, MSG_NOSIGNAL) : -1;
    if (socket && put < 0 && errno == ENOTSOCK) {
      socket = false;
      continue;
    }
    if (!socket) put = ::write(fd, out.data() + done, out.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    done += static_cast<std::size_t>(put);
  }
  return true;
}

FrameRead read_frame(int fd, std::string& frame,
                     std::optional<std::chrono::steady_clock::time_point> deadline) {
  char header[8];
  if (const FrameRead r = read_exactly(fd, header, sizeof header, deadline); r != FrameRead::read)
    return r;
  std::uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= std::uint64_t(static_cast<unsigned char>(header[i])) << (8 * i);
  if (size > max_frame_bytes) return FrameRead::failed;
  frame.assign(static_cast<std::size_t>(size), '\0');
  return read_exactly(fd, frame.data(), frame.size(), deadline);
}

}  // namespace stubjit::detail
