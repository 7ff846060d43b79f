// RAII owners of HIP runtime objects: a loaded code object with its entry, and a
// stream. Each is created and destroyed with its device selected (DeviceScope), so
// the calling thread's current device is left as the application chose it.
#pragma once

#include <string>
#include <vector>

#include "backends/device.hpp"
#include "backends/hip/hip_api.hpp"

namespace stubjit::detail::hip {

class HipModule final : public Module {
 public:
  // hipModuleLoadData + hipModuleGetFunction on `device`; throws BackendError.
  HipModule(const RuntimeApi& api, int device, const std::vector<char>& code_object,
            const std::string& entry);
  ~HipModule() override;
  HipModule(const HipModule&) = delete;
  HipModule& operator=(const HipModule&) = delete;

  hipFunction_t function() const { return function_; }

 private:
  const RuntimeApi& api_;
  int device_;
  hipModule_t module_ = nullptr;
  hipFunction_t function_ = nullptr;
};

class HipStream final : public StreamState {
 public:
  HipStream(const RuntimeApi& api, int device);  // hipStreamCreate; throws BackendError
  ~HipStream() override;
  HipStream(const HipStream&) = delete;
  HipStream& operator=(const HipStream&) = delete;

  void synchronize() override;
  hipStream_t handle() const { return stream_; }

 private:
  const RuntimeApi& api_;
  int device_;
  hipStream_t stream_ = nullptr;
};

}  // namespace stubjit::detail::hip
