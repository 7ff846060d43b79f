#include "support/compile_cap.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>
#include <thread>

#include "support/env.hpp"
#include "support/log.hpp"

namespace stubjit::detail {

std::optional<unsigned> parse_compile_cap(const std::string& text) {
  std::string word = text;
  std::transform(word.begin(), word.end(), word.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (word == "off" || word == "no" || word == "false") return 0u;
  if (word.empty() || word.size() > 5 || word.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const unsigned long count = std::stoul(word);
  if (count > max_compile_slots) return std::nullopt;
  return static_cast<unsigned>(count);
}

unsigned default_compile_cap() {
  // Not the affinity mask: ranks pinned to one core each would each count 1 and,
  // agreeing on that, serialize every compile of the node.
  // Read once: the cap is asked for at every compile, and reading it costs a file of
  // /sys each time.
  static const unsigned count = [] {
    const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<unsigned>(online) : std::thread::hardware_concurrency();
  }();
  return std::clamp(count, 1u, max_compile_slots);
}

CompileCap compile_cap_from_environment() {
  CompileCap cap;
  cap.scope = env_or("STUBJIT_COMPILE_CAP_SCOPE", "");
  const std::string text = env_or("STUBJIT_MAX_PARALLEL_COMPILES", "");
  cap.slots = default_compile_cap();
  if (text.empty()) return cap;
  if (const std::optional<unsigned> slots = parse_compile_cap(text)) {
    cap.slots = *slots;
    return cap;
  }
  // Read at every compile: say it once per value, not once per compile.
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (warned.insert(text).second) {
    logger().warn(
        "STUBJIT_MAX_PARALLEL_COMPILES={} is not a count of compiles (0 to {}, or off); "
        "keeping {} (the processors online)",
        text, max_compile_slots, cap.slots);
  }
  return cap;
}

}  // namespace stubjit::detail
