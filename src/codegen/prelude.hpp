// The device-side prelude (kernels/stubjit/*.h), embedded at build time.
#pragma once

#include <string_view>

namespace stubjit::detail {

std::string_view prelude_source();

}  // namespace stubjit::detail
