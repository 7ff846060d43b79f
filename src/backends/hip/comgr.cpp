#include "backends/hip/comgr.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "backends/hip/hip_library.hpp"
#include "support/log.hpp"
#include "support/sanitizers.hpp"
#include "support/shared_library.hpp"

namespace stubjit::detail::hip {
namespace {

// The few comgr declarations used (amd_comgr.h, stable since ROCm 4).
using comgr_status = int;  // AMD_COMGR_STATUS_SUCCESS = 0
struct ActionInfo {
  std::uint64_t handle;
};
struct ComgrApi {
  comgr_status (*create_action_info)(ActionInfo*) = nullptr;
  comgr_status (*destroy_action_info)(ActionInfo) = nullptr;
  comgr_status (*set_isa_name)(ActionInfo, const char*) = nullptr;
  comgr_status (*get_isa_count)(std::size_t*) = nullptr;
  comgr_status (*get_isa_name)(std::size_t, const char**) = nullptr;
};

constexpr const char isa_prefix[] = "amdgcn-amd-amdhsa--";

// The one comgr loaded (from the chosen ROCm root), if any.
struct LoadedComgr {
  ComgrApi api;
  std::string file;
};
std::optional<LoadedComgr>& loaded() {
  static std::optional<LoadedComgr> comgr;
  return comgr;
}

std::string known_processors(const ComgrApi& api) {
  std::size_t count = 0;
  if (api.get_isa_count(&count) != 0) return "unknown";
  std::string list;
  for (std::size_t i = 0; i < count; ++i) {
    const char* name = nullptr;
    if (api.get_isa_name(i, &name) != 0 || !name) continue;
    std::string isa = name;
    if (isa.rfind(isa_prefix, 0) == 0) isa = isa.substr(sizeof(isa_prefix) - 1);
    list += (list.empty() ? "" : ", ") + isa;
  }
  return list;
}

}  // namespace

void load_comgr_isolated() {
  static std::once_flag once;
  std::call_once(once, [] {
    // AddressSanitizer and ThreadSanitizer abort the process on RTLD_DEEPBIND; the
    // backend reports itself unavailable under them (hip_backend.cpp) and nothing is
    // loaded here.
    if (sanitizer_refusing_deepbind()) return;
    // Exactly one, from the installation the runtime and hipRTC come from: another
    // installation's comgr could refuse a target this one knows (Debian's ROCm 5.2
    // comgr does not know gfx942).
    for (const std::string& candidate :
         in_root(chosen_rocm_root(), {"libamd_comgr.so.3", "libamd_comgr.so.2"})) {
      std::string why;
      // Never unmapped (SharedLibrary uses RTLD_NODELETE): the HIP library's own
      // dlopen of the same soname later finds this instance.
      const std::shared_ptr<SharedLibrary> library =
          SharedLibrary::open(candidate, why, SharedLibrary::Scope::own_first);
      if (!library) continue;
      logger().debug("hip: loaded {} in its own symbol scope", candidate);
      ComgrApi api;
      if (library->bind(api.create_action_info, "amd_comgr_create_action_info") &&
          library->bind(api.destroy_action_info, "amd_comgr_destroy_action_info") &&
          library->bind(api.set_isa_name, "amd_comgr_action_info_set_isa_name") &&
          library->bind(api.get_isa_count, "amd_comgr_get_isa_count") &&
          library->bind(api.get_isa_name, "amd_comgr_get_isa_name")) {
        loaded() = LoadedComgr{api, candidate};
      }
      break;
    }
  });
}

std::string comgr_target_problem(const std::string& target_id) {
  load_comgr_isolated();
  if (!loaded()) return "";
  const ComgrApi& api = loaded()->api;
  const std::string isa = isa_prefix + target_id;
  ActionInfo info{};
  if (api.create_action_info(&info) != 0) return "";
  const comgr_status status = api.set_isa_name(info, isa.c_str());
  api.destroy_action_info(info);
  if (status != 0) {
    return "its code object manager (comgr, " + loaded()->file + ") does not know " + target_id +
           "; it knows: " + known_processors(api) +
           " (target features: only xnack and sramecc, where the processor has them)";
  }
  return "";
}

std::string loaded_comgr() {
  load_comgr_isolated();
  return loaded() ? loaded()->file : "";
}

}  // namespace stubjit::detail::hip
