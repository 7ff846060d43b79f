#include "backends/hip/hip_objects.hpp"

#include "backends/hip/hip_device.hpp"
#include "support/log.hpp"

namespace stubjit::detail::hip {

HipModule::HipModule(const RuntimeApi& api, int device, const std::vector<char>& code_object,
                     const std::string& entry)
    : api_(api), device_(device) {
  const DeviceScope selected(api_, device_);
  check(api_, api_.ModuleLoadData(&module_, code_object.data()), "hipModuleLoadData");
  const hipError_t found = api_.ModuleGetFunction(&function_, module_, entry.c_str());
  if (found != hip_success) {
    api_.ModuleUnload(module_);
    check(api_, found, ("hipModuleGetFunction(" + entry + ")").c_str());
  }
}

HipModule::~HipModule() {
  const DeviceScope selected(api_, device_, std::nothrow);
  if (!selected.entered()) return;
  if (api_.ModuleUnload(module_) != hip_success) logger().warn("hip: hipModuleUnload failed");
}

HipStream::HipStream(const RuntimeApi& api, int device) : api_(api), device_(device) {
  const DeviceScope selected(api_, device_);
  check(api_, api_.StreamCreate(&stream_), "hipStreamCreate");
}

HipStream::~HipStream() {
  const DeviceScope selected(api_, device_, std::nothrow);
  if (!selected.entered()) return;
  // Destroying a stream waits for its work; a failure here can only be reported.
  if (api_.StreamDestroy(stream_) != hip_success) logger().warn("hip: hipStreamDestroy failed");
}

void HipStream::synchronize() {
  // A stream belongs to its device whichever device the calling thread has selected.
  check(api_, api_.StreamSynchronize(stream_), "hipStreamSynchronize");
}

}  // namespace stubjit::detail::hip
