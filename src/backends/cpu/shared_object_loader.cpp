#include "backends/cpu/shared_object_loader.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "stubjit/error.hpp"
#include "support/log.hpp"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U  // Linux 6.3: asks for an executable memfd where the default is not
#endif

namespace stubjit::detail {
namespace {

int create_memfd(const std::string& name) {
  // Kernels with vm.memfd_noexec set refuse to map a memfd for execution unless it
  // was created with MFD_EXEC; older kernels do not know the flag (EINVAL).
  int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && (errno == EINVAL || errno == EACCES || errno == EPERM))
    fd = ::memfd_create(name.c_str(), MFD_CLOEXEC | MFD_ALLOW_SEALING);
  return fd;
}

// Whether the dynamic linker still holds a library opened as `path`. Walks its list
// in memory: asking dlopen (RTLD_NOLOAD) would look the path up in the file system.
bool still_loaded(const std::string& path) {
  struct Search {
    const std::string* path;
    bool found;
  } search{&path, false};
  ::dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name && *s->path == info->dlpi_name) s->found = true;
        return s->found ? 1 : 0;
      },
      &search);
  return search.found;
}

std::string dl_error() {
  const char* message = ::dlerror();
  return message ? message : "unknown error";
}

}  // namespace

SealedImage::SealedImage(const std::vector<char>& bytes, const std::string& name) {
  fd_ = create_memfd(name);
  if (fd_ < 0) throw BackendError(std::string("memfd_create failed: ") + std::strerror(errno));
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd_);
      throw BackendError("cannot write a stub into memory: " + why);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fcntl(fd_, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw BackendError("cannot seal a stub's memory file: " + why);
  }
}

SealedImage::~SealedImage() { ::close(fd_); }

std::string SealedImage::path() const { return "/proc/self/fd/" + std::to_string(fd_); }

void SealedImage::renumber() {
  const int moved = ::fcntl(fd_, F_DUPFD_CLOEXEC, fd_ + 1);
  if (moved < 0)
    throw BackendError(std::string("cannot move a stub's descriptor: ") + std::strerror(errno));
  ::close(fd_);
  fd_ = moved;
}

CpuModule::CpuModule(const std::vector<char>& bytes, const std::string& entry) {
  SealedImage image(bytes, "stubjit:" + entry);
  // A library loaded earlier under this descriptor's path (whose descriptor has been
  // closed since) is still the dynamic linker's answer for that path: move to a
  // descriptor number no loaded library is named after.
  while (still_loaded(image.path())) image.renumber();
  path_ = image.path();
  // RTLD_LOCAL: a stub's symbols are never offered to anything loaded later.
  handle_ = ::dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw BackendError("cannot load the stub " + entry + ": " + dl_error());
  entry_ = reinterpret_cast<CpuEntry>(::dlsym(handle_, entry.c_str()));
  if (!entry_) {
    const std::string why = dl_error();
    ::dlclose(handle_);
    throw BackendError("stub entry '" + entry + "' not found: " + why);
  }
}

CpuModule::~CpuModule() {
  if (::dlclose(handle_) != 0) logger().warn("unloading a stub failed: {}", dl_error());
}

}  // namespace stubjit::detail
