// The kernel-parameter array a driver launch takes (cuLaunchKernel's kernelParams):
// one pointer per parameter of the entry, each at the bytes the driver copies for it.
// For an entry of the two-struct convention, the packed arguments and the
// LaunchParams; for one that takes its values one by one (EntryParameters), a pointer
// into either per value. The driver reads each parameter's size from the binary, so
// nothing but the pointers is passed.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "stubjit/error.hpp"
#include "stubjit/launch.h"
#include "support/entry_parameters.hpp"

namespace stubjit::detail {

class KernelParams {
 public:
  // Throws BackendError, before anything is launched, when a parameter lies outside
  // the packed arguments (`args_size` bytes) or the LaunchParams.
  KernelParams(const EntryParameters& parameters, const void* args, std::size_t args_size,
               const LaunchParams& lp) {
    if (parameters.empty()) {
      pointers_[0] = const_cast<void*>(args);
      pointers_[1] = const_cast<LaunchParams*>(&lp);
      return;
    }
    if (parameters.size() > pointers_.size()) more_.resize(parameters.size());
    void** out = data();
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const EntryParameter& p = parameters[i];
      const bool from_args = p.source == EntryParameter::Source::arguments;
      const std::size_t limit = from_args ? args_size : sizeof(LaunchParams);
      if (p.size == 0 || p.offset > limit || p.size > limit - p.offset) {
        throw BackendError("parameter " + std::to_string(i) + " of the entry (" +
                           std::to_string(p.size) + " bytes at " + std::to_string(p.offset) +
                           ") lies outside the " +
                           (from_args ? "packed arguments (" : "launch parameters (") +
                           std::to_string(limit) + " bytes)");
      }
      const char* base =
          from_args ? static_cast<const char*>(args) : reinterpret_cast<const char*>(&lp);
      out[i] = const_cast<char*>(base + p.offset);
    }
  }

  void** data() { return more_.empty() ? pointers_.data() : more_.data(); }

  // Values an entry can take without an allocation on the launch path: every launch
  // value of a rank-8 dispatch (at most 48) and one per 8 bytes of packed arguments up
  // to the 2 KiB the launch path keeps without allocating (docs/architecture.md).
  static constexpr std::size_t inline_capacity = 48 + 2048 / 8;

 private:
  std::array<void*, inline_capacity> pointers_{};
  std::vector<void*> more_;
};

}  // namespace stubjit::detail
