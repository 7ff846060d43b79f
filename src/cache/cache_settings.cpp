#include "cache/cache_settings.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "cache/cache_layout.hpp"
#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string home_directory() {
  std::string home = env_or("HOME", "");
  if (!home.empty()) return home;
  // No $HOME (daemons, some batch systems): the password database still knows.
  if (const passwd* entry = ::getpwuid(::geteuid()); entry && entry->pw_dir) return entry->pw_dir;
  return {};
}

// Option, then STUBJIT_CACHE_DIR, then the XDG base directory (only if absolute, as
// the XDG specification requires), then ~/.cache.
std::string cache_root(const RuntimeOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (std::string dir = env_or("STUBJIT_CACHE_DIR", ""); !dir.empty()) return dir;
  if (std::string xdg = env_or("XDG_CACHE_HOME", ""); !xdg.empty() && xdg[0] == '/') {
    return xdg + "/stubjit";
  }
  const std::string home = home_directory();
  return home.empty() ? std::string() : home + "/.cache/stubjit";
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 19) return std::nullopt;
  const std::uint64_t number = std::stoull(text.substr(0, digits));
  const std::string unit = lower(text.substr(digits));
  std::uint64_t scale = 1;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kib" || unit == "kb") {
    scale = std::uint64_t(1) << 10;
  } else if (unit == "m" || unit == "mib" || unit == "mb") {
    scale = std::uint64_t(1) << 20;
  } else if (unit == "g" || unit == "gib" || unit == "gb") {
    scale = std::uint64_t(1) << 30;
  } else {
    return std::nullopt;
  }
  if (number == 0 || number > std::numeric_limits<std::uint64_t>::max() / scale) {
    return std::nullopt;
  }
  return number * scale;
}

std::vector<std::string> parse_cache_layers(const std::string& text) {
  std::vector<std::string> layers;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(':', begin);
    if (end == std::string::npos) end = text.size();
    const std::string layer = normalize_root(text.substr(begin, end - begin));
    if (!layer.empty() && std::find(layers.begin(), layers.end(), layer) == layers.end())
      layers.push_back(layer);
    begin = end + 1;
  }
  return layers;
}

namespace {

// The read-only layers under `root`: the option's, else the environment's.
std::vector<std::string> cache_layers(const RuntimeOptions& options, const std::string& root) {
  std::vector<std::string> layers;
  if (options.cache_layers.empty()) {
    layers = parse_cache_layers(env_or("STUBJIT_CACHE_LAYERS", ""));
  } else {
    for (const std::string& given : options.cache_layers) {
      const std::string layer = normalize_root(given);
      if (!layer.empty() && std::find(layers.begin(), layers.end(), layer) == layers.end())
        layers.push_back(layer);
    }
  }
  // The writable root is searched first anyway; as a layer too it would be read twice.
  layers.erase(std::remove(layers.begin(), layers.end(), root), layers.end());
  return layers;
}

}  // namespace

DiskCacheSettings resolve_cache_settings(const RuntimeOptions& options) {
  DiskCacheSettings settings;
  const std::string switch_value = lower(env_or("STUBJIT_CACHE", "on"));
  if (!options.disk_cache) {
    settings.enabled = false;
    settings.disabled_reason = "disabled by RuntimeOptions::disk_cache";
  } else if (switch_value == "off" || switch_value == "0" || switch_value == "false" ||
             switch_value == "no") {
    settings.enabled = false;
    settings.disabled_reason = "disabled by STUBJIT_CACHE=" + env_or("STUBJIT_CACHE", "");
  } else if (switch_value != "on" && switch_value != "1" && switch_value != "true" &&
             switch_value != "yes") {
    logger().warn("STUBJIT_CACHE={} is neither on nor off; the disk cache stays on",
                  env_or("STUBJIT_CACHE", ""));
  }
  // Normalised once here, so that paths built from it and containment checks agree
  // however the directory was spelt ("/a/b/", "/a/./b").
  settings.root = normalize_root(cache_root(options));
  // Switched off means off: no layer is read either. A missing root (no HOME) still
  // leaves the layers.
  if (settings.enabled) settings.layers = cache_layers(options, settings.root);
  if (settings.enabled && settings.root.empty()) {
    settings.enabled = false;
    settings.disabled_reason = "no cache directory: set STUBJIT_CACHE_DIR, XDG_CACHE_HOME or HOME";
  }
  if (options.cache_max_bytes != 0) {
    settings.max_bytes = options.cache_max_bytes;
  } else if (const std::string cap = env_or("STUBJIT_CACHE_MAX_BYTES", ""); !cap.empty()) {
    if (const auto bytes = parse_byte_size(cap)) {
      settings.max_bytes = *bytes;
    } else {
      logger().warn("STUBJIT_CACHE_MAX_BYTES={} is not a size (e.g. 512M); using {} bytes", cap,
                    default_cache_max_bytes);
    }
  }
  if (const std::string wait = env_or("STUBJIT_CACHE_LOCK_TIMEOUT_MS", ""); !wait.empty()) {
    const bool digits = wait.find_first_not_of("0123456789") == std::string::npos;
    if (digits && wait.size() <= 9) {
      settings.lock_timeout = std::chrono::milliseconds(std::stol(wait));
    } else {
      logger().warn("STUBJIT_CACHE_LOCK_TIMEOUT_MS={} is not a number of milliseconds; using {}",
                    wait, settings.lock_timeout.count());
    }
  }
  return settings;
}

}  // namespace stubjit::detail
