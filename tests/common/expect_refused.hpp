// A launch (or any call) that must be refused before anything runs: the pattern
// suites' error tests (cpu/reduce_test.cpp, cpu/scan_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "stubjit/stubjit.hpp"

namespace stubjit::test {

// Runs `launch`, expects an exception of type E whose message holds each of `parts`,
// and checks that nothing was compiled or launched.
template <class E>
void expect_refused(Runtime& runtime, const std::function<void()>& launch,
                    const std::vector<std::string>& parts) {
  const CacheCounters before = runtime.counters();
  try {
    launch();
    ADD_FAILURE() << "not refused";
  } catch (const E& error) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << error.what() << " lacks '" << part << "'";
  } catch (const std::exception& error) {
    ADD_FAILURE() << "another error: " << error.what();
  }
  EXPECT_EQ(runtime.counters().compiles, before.compiles);
  EXPECT_EQ(runtime.counters().launches, before.launches);
}

}  // namespace stubjit::test
