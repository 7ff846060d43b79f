// A fresh private directory per test, removed afterwards, and helpers for the
// environment variables the cache reads.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/scoped_env.hpp"

namespace stubjit::test {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "stubjit-cache-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    // Restore permissions a test may have removed, so cleanup works for any user.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ignored);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
      if (it->is_directory(ignored)) ::chmod(it->path().c_str(), 0700);
    }
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// The cache's environment cleared, so that a developer's or CI's settings cannot
// change what a test sees.
struct NeutralCacheEnv {
  ScopedEnv cache{"STUBJIT_CACHE", std::nullopt};
  ScopedEnv dir{"STUBJIT_CACHE_DIR", std::nullopt};
  ScopedEnv cap{"STUBJIT_CACHE_MAX_BYTES", std::nullopt};
  ScopedEnv timeout{"STUBJIT_CACHE_LOCK_TIMEOUT_MS", std::nullopt};
  ScopedEnv layers{"STUBJIT_CACHE_LAYERS", std::nullopt};
};

}  // namespace stubjit::test
