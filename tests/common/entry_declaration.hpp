// The parameters a generated entry declares, read from its source: for the tests of the
// CUDA and HIP backends against their fakes, which record each parameter a launch passes
// at the size the binary declares.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace stubjit::test {

// (type, name) of each parameter of `entry`, in order, from its definition
// ("extern \"C\" __global__ void ... entry(type name, ...)").
inline std::vector<std::pair<std::string, std::string>> entry_parameters(const std::string& source,
                                                                         const std::string& entry) {
  const std::size_t open = source.find(entry + "(");
  EXPECT_NE(open, std::string::npos) << entry;
  if (open == std::string::npos) return {};
  const std::size_t begin = open + entry.size() + 1;
  std::stringstream list(source.substr(begin, source.find(')', begin) - begin));
  std::vector<std::pair<std::string, std::string>> parameters;
  for (std::string declaration; std::getline(list, declaration, ',');) {
    const std::size_t name = declaration.find_last_of(" *") + 1;
    std::string type = declaration.substr(0, name);
    type.erase(0, type.find_first_not_of(' '));
    type.erase(type.find_last_not_of(' ') + 1);
    parameters.emplace_back(type, declaration.substr(name));
  }
  return parameters;
}

}  // namespace stubjit::test
