// The parameters a generated entry declares, read from its source: for the tests of the
// CUDA and HIP backends against their fakes, which record each parameter a launch passes
// at the size the binary declares.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
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

// Checks what a fake recorded for each parameter of the last launch, as `declared` lists
// them: `read(i, bytes, capacity)` copies parameter i's bytes and returns its size as
// the binary declares it. The float parameter `scalar` holds `scalar_value`; every
// other one is in `expected` (4 bytes for a stubjit::u32, else 8) with that value; and
// each of `required` is declared.
inline void expect_parameter_values(
    const std::vector<std::pair<std::string, std::string>>& declared,
    const std::function<std::size_t(std::size_t, void*, std::size_t)>& read,
    const std::string& scalar, float scalar_value,
    const std::map<std::string, std::int64_t>& expected, const std::vector<std::string>& required) {
  bool took_scalar = false;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& [type, name] = declared[i];
    SCOPED_TRACE(type + " " + name);
    unsigned char bytes[16] = {};
    const std::size_t size = read(i, bytes, sizeof bytes);
    if (name == scalar) {
      ASSERT_EQ(size, sizeof(float));
      float value = 0;
      std::memcpy(&value, bytes, sizeof value);
      EXPECT_EQ(value, scalar_value);
      took_scalar = true;
      continue;
    }
    const auto found = expected.find(name);
    ASSERT_NE(found, expected.end()) << "a parameter the test does not know";
    ASSERT_EQ(size, type == "stubjit::u32" ? 4u : 8u) << "the binary's size for it";
    std::int64_t value = 0;
    std::memcpy(&value, bytes, size);  // little-endian: the low bytes
    EXPECT_EQ(value, found->second);
  }
  EXPECT_TRUE(took_scalar) << "the scalar is a parameter";
  for (const std::string& name : required) {
    EXPECT_TRUE(std::any_of(declared.begin(), declared.end(), [&](const auto& parameter) {
      return parameter.second == name;
    })) << name;
  }
}

}  // namespace stubjit::test
