// stubjit info: the backends stubjit knows (available or why not), their device,
// limits and toolchain, and the disk cache.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stubjit/cache.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit::tool {
namespace {

using json = nlohmann::ordered_json;

json limits_json(const DeviceLimits& limits) {
  return {{"max_grid", limits.max_grid},
          {"max_block", limits.max_block},
          {"max_threads_per_block", limits.max_threads_per_block},
          {"max_threads_per_dim", limits.max_threads_per_dim},
          {"warp_size", limits.warp_size}};
}

json backend_json(const BackendStatus& status) {
  json backend = {{"name", status.name}, {"available", status.available}};
  if (!status.available) {
    backend["reason"] = status.detail;
    return backend;
  }
  backend["detail"] = status.detail;
  try {
    RuntimeOptions options;
    options.backend = status.name;
    options.disk_cache = false;  // looking must not create the cache directory
    Runtime runtime(options);
    backend["target"] = runtime.target_id();
    backend["compiler"] = runtime.compiler_id();
    backend["limits"] = limits_json(runtime.limits());
  } catch (const Error& error) {
    backend["available"] = false;
    backend["reason"] = error.what();
  }
  return backend;
}

json info_json() {
  json backends = json::array();
  for (const BackendStatus& status : Runtime::probe_backends())
    backends.push_back(backend_json(status));
  const DiskCacheInfo cache = disk_cache_info();
  json layers = json::array();
  for (const CacheLayerInfo& layer : cache.layers)
    layers.push_back({{"path", layer.path}, {"usable", layer.usable}, {"problem", layer.problem}});
  return {{"version", STUBJIT_VERSION},
          {"backends", backends},
          {"cache",
           {{"enabled", cache.enabled},
            {"root", cache.root},
            {"reason", cache.reason},
            {"max_bytes", cache.max_bytes},
            {"format_version", cache.format_version},
            {"layers", layers}}}};
}

std::string join3(const json& values) {
  std::string text;
  for (const json& v : values) text += (text.empty() ? "" : " x ") + v.dump();
  return text;
}

void print_text(const json& info) {
  std::printf("stubjit %s\n\nbackends (in automatic-selection order):\n",
              info["version"].get<std::string>().c_str());
  for (const json& b : info["backends"]) {
    const std::string name = b["name"];
    if (!b["available"].get<bool>()) {
      std::printf("  %-5s not available: %s\n", name.c_str(),
                  b["reason"].get<std::string>().c_str());
      continue;
    }
    const json& l = b["limits"];
    std::printf("  %-5s available: %s\n", name.c_str(), b["detail"].get<std::string>().c_str());
    std::printf("        target    %s\n", b["target"].get<std::string>().c_str());
    std::printf("        compiler  %s\n", b["compiler"].get<std::string>().c_str());
    std::printf("        limits    grid %s, block %s, %u threads per block, warp %u\n",
                join3(l["max_grid"]).c_str(), join3(l["max_block"]).c_str(),
                l["max_threads_per_block"].get<unsigned>(), l["warp_size"].get<unsigned>());
  }
  const json& c = info["cache"];
  std::printf("\ndisk cache:\n  root      %s\n", c["root"].get<std::string>().c_str());
  if (c["enabled"].get<bool>()) {
    std::printf("  state     on\n");
  } else {
    std::printf("  state     off: %s\n", c["reason"].get<std::string>().c_str());
  }
  std::printf("  size cap  %llu bytes\n  format    version %u\n",
              static_cast<unsigned long long>(c["max_bytes"].get<std::uint64_t>()),
              c["format_version"].get<unsigned>());
  for (const json& layer : c["layers"]) {
    const bool usable = layer["usable"].get<bool>();
    std::printf("  layer     %s%s%s\n", layer["path"].get<std::string>().c_str(),
                usable ? " (read-only)" : ": skipped, ",
                usable ? "" : layer["problem"].get<std::string>().c_str());
  }
}

}  // namespace

int run_info(bool as_json) {
  const json report = info_json();
  if (as_json) {
    std::printf("%s\n", report.dump(2).c_str());
  } else {
    print_text(report);
  }
  return exit_ok;
}

}  // namespace stubjit::tool
