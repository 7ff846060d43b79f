// Symbol visibility for the public API: the shared library is built with hidden
// visibility so that only what is declared here is part of the ABI.
#pragma once

#if defined(STUBJIT_BUILDING_LIBRARY)
#define STUBJIT_API __attribute__((visibility("default")))
#else
#define STUBJIT_API
#endif
