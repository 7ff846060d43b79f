#include "backends/hip/hip_objects.hpp"

#include "backends/hip/hip_device.hpp"
#include "runtime/log.hpp"

namespace stubjit::detail::hip {

HipModule::HipModule(const RuntimeApi& api, const std::vector<char>& code_object,
                     const std::string& entry)
    : api_(api) {
  check(api_, api_.ModuleLoadData(&module_, code_object.data()), "hipModuleLoadData");
  const hipError_t found = api_.ModuleGetFunction(&function_, module_, entry.c_str());
  if (found != hip_success) {
    api_.ModuleUnload(module_);
    check(api_, found, ("hipModuleGetFunction(" + entry + ")").c_str());
  }
}

HipModule::~HipModule() {
  if (api_.ModuleUnload(module_) != hip_success) logger().warn("hip: hipModuleUnload failed");
}

HipStream::HipStream(const RuntimeApi& api) : api_(api) {
  check(api_, api_.StreamCreate(&stream_), "hipStreamCreate");
}

HipStream::~HipStream() {
  // Destroying a stream waits for its work; a failure here can only be reported.
  if (api_.StreamDestroy(stream_) != hip_success) logger().warn("hip: hipStreamDestroy failed");
}

void HipStream::synchronize() {
  check(api_, api_.StreamSynchronize(stream_), "hipStreamSynchronize");
}

}  // namespace stubjit::detail::hip
