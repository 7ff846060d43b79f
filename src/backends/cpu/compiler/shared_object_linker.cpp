#include "backends/cpu/compiler/shared_object_linker.hpp"

#include <fcntl.h>
#include <lld/Common/CommonLinkerContext.h>
#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "backends/cpu/compiler_flags.hpp"

namespace stubjit::cpu_compiler {
namespace {

// A private directory (0700, from mkdtemp) for one link: lld reads and writes files
// by path. Removed with everything in it when the link is done.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/stubjit-link-XXXXXX";
    if (::mkdtemp(pattern.data()))
      path_ = pattern;
    else
      problem_ = "cannot create a directory in " + pattern + ": " + std::strerror(errno);
  }
  ~ScratchDirectory() {
    if (path_.empty()) return;
    for (const std::string& file : files_) ::unlink((path_ + "/" + file).c_str());
    ::rmdir(path_.c_str());
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::string& problem() const { return problem_; }
  // The path of `name` inside, which is removed with the directory.
  std::string file(const std::string& name) {
    files_.push_back(name);
    return path_ + "/" + name;
  }

 private:
  std::string path_;
  std::string problem_;
  std::vector<std::string> files_;
};

std::string write_file(const std::string& path, const std::vector<char>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return "cannot create " + path + ": " + std::strerror(errno);
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return "cannot write " + path + ": " + why;
    }
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return {};
}

std::string read_file(const std::string& path, std::vector<char>& bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path + ": " + std::strerror(errno);
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    ::close(fd);
    return "cannot stat " + path;
  }
  bytes.resize(static_cast<std::size_t>(status.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return "cannot read " + path;
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  return {};
}

}  // namespace

SharedObject link_shared_object(const std::vector<char>& object) {
  ScratchDirectory scratch;
  if (!scratch.problem().empty()) return SharedObject{false, {}, scratch.problem()};
  const std::string input = scratch.file("stub.o");
  const std::string output = scratch.file("stub.so");
  if (std::string problem = write_file(input, object); !problem.empty())
    return SharedObject{false, {}, problem};

  std::vector<const char*> args = {"ld.lld"};
  for (const char* flag : detail::cpu_link_flags) args.push_back(flag);
  for (const char* last : {"-o", output.c_str(), input.c_str()}) args.push_back(last);
  std::string log;
  llvm::raw_string_ostream log_stream(log);
  bool linked = false;
  {
    // lld keeps its state in globals (one CommonLinkerContext at a time): one link
    // at a time per process, its context destroyed before the next.
    static std::mutex one_link;
    std::lock_guard<std::mutex> lock(one_link);
    linked = lld::elf::link(args, log_stream, log_stream, /*exitEarly=*/false,
                            /*disableOutput=*/false);
    lld::CommonLinkerContext::destroy();
  }
  log_stream.flush();
  SharedObject result;
  result.diagnostics = log;
  if (!linked) return result;
  if (std::string problem = read_file(output, result.bytes); !problem.empty()) {
    result.diagnostics += problem;
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace stubjit::cpu_compiler
