// Where the disk cache lives and how it behaves, from RuntimeOptions and the
// environment (STUBJIT_CACHE, STUBJIT_CACHE_DIR, XDG_CACHE_HOME, HOME,
// STUBJIT_CACHE_MAX_BYTES, STUBJIT_CACHE_LOCK_TIMEOUT_MS, STUBJIT_CACHE_LAYERS).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stubjit/runtime.hpp"

namespace stubjit::detail {

inline constexpr std::uint64_t default_cache_max_bytes = std::uint64_t(1) << 30;  // 1 GiB

struct DiskCacheSettings {
  bool enabled = true;
  std::string root;
  std::string disabled_reason;  // why, when !enabled
  std::uint64_t max_bytes = default_cache_max_bytes;
  // How long a process waits for another one compiling the same key before it
  // compiles itself (correctness never depends on the lock).
  // $STUBJIT_CACHE_LOCK_TIMEOUT_MS overrides it.
  std::chrono::milliseconds lock_timeout{60000};
  // Read-only cache layers (cache_layer.hpp) searched, in this order, after the
  // writable root: RuntimeOptions::cache_layers, else $STUBJIT_CACHE_LAYERS. Absolute,
  // normalised, without repeats or the writable root itself. Empty when the disk cache
  // is switched off (STUBJIT_CACHE=off, RuntimeOptions::disk_cache = false); kept when
  // only the writable root is missing (no HOME).
  std::vector<std::string> layers;
};

DiskCacheSettings resolve_cache_settings(const RuntimeOptions& options);

// The directories of a $STUBJIT_CACHE_LAYERS value: separated by ':', empty parts
// skipped ("/site/stubjit::/proj/cache:" is two), each normalised (normalize_root),
// repeats dropped.
std::vector<std::string> parse_cache_layers(const std::string& text);

// "1048576", "512K", "64M", "1G" (also KiB/MiB/GiB, case-insensitive); nullopt if
// not a size or zero.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

}  // namespace stubjit::detail
