// stubjit: run-time kernel specialization. Include this one header.
#pragma once

#include "stubjit/cache.hpp"
#include "stubjit/cache_bundle.hpp"
#include "stubjit/domain.hpp"
#include "stubjit/error.hpp"
#include "stubjit/field.hpp"
#include "stubjit/kernel.hpp"
#include "stubjit/plan.hpp"
#include "stubjit/runtime.hpp"
#include "stubjit/signature.hpp"
#include "stubjit/split.hpp"
#include "stubjit/stub.hpp"
#include "stubjit/stub_exchange.hpp"
#include "stubjit/types.hpp"
