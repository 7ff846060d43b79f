// The logger's facade (support/log.hpp): arguments packed where a message is logged
// and formatted in log.cpp, only at or above the level, and a message that does not
// format written as it is instead of throwing.
#include <gtest/gtest.h>

#include <string>

#include "support/log.hpp"

namespace stubjit::detail {
namespace {

class LoggerAtInfo : public ::testing::Test {
 protected:
  LoggerAtInfo() : saved_(logger().level()) { logger().set_level(LogLevel::info); }
  ~LoggerAtInfo() override { logger().set_level(saved_); }

 private:
  LogLevel saved_;
};

TEST_F(LoggerAtInfo, FormatsTheArgumentsOfWhatItWrites) {
  EXPECT_TRUE(logger().should_log(LogLevel::warn));
  EXPECT_TRUE(logger().should_log(LogLevel::info));
  EXPECT_FALSE(logger().should_log(LogLevel::debug));
  EXPECT_EQ(logger().level(), LogLevel::info);
  testing::internal::CaptureStderr();
  logger().info("{} stubs of {} in {:.1f} ms", 3, std::string("saxpy"), 2.25);
  logger().debug("below the level: {}", 1);
  logger().warn("no arguments");
  const std::string written = testing::internal::GetCapturedStderr();
  EXPECT_EQ(written,
            "[stubjit] [info] 3 stubs of saxpy in 2.2 ms\n[stubjit] [warning] no arguments\n");
}

TEST_F(LoggerAtInfo, AMessageThatDoesNotFormatIsWrittenAsItIs) {
  testing::internal::CaptureStderr();
  EXPECT_NO_THROW(logger().warn(fmt::runtime("{} and {}"), 1));
  const std::string written = testing::internal::GetCapturedStderr();
  EXPECT_NE(written.find("[stubjit] [warning] {} and {} (unformatted: "), std::string::npos)
      << written;
}

TEST_F(LoggerAtInfo, OffWritesNothing) {
  logger().set_level(LogLevel::off);
  EXPECT_FALSE(logger().should_log(LogLevel::error));
  testing::internal::CaptureStderr();
  logger().error("not written");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace stubjit::detail
