// The kernel-parameter array the GPU backends pass their drivers (backends/
// kernel_params.hpp): the two structs of the two-struct convention, or one pointer per
// value into the packed arguments and the launch parameters; a value outside either is
// refused before anything is launched.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>

#include "backends/kernel_params.hpp"

namespace stubjit::detail {
namespace {

using Source = EntryParameter::Source;

TEST(KernelParams, NoParametersMeansThePackedArgumentsAndTheLaunchParameters) {
  const std::array<char, 24> args{};
  const LaunchParams lp{};
  KernelParams params({}, args.data(), args.size(), lp);
  EXPECT_EQ(params.data()[0], static_cast<const void*>(args.data()));
  EXPECT_EQ(params.data()[1], static_cast<const void*>(&lp));
}

TEST(KernelParams, EachValuePointsAtItsBytes) {
  alignas(8) std::array<unsigned char, 40> args{};
  for (std::size_t i = 0; i < args.size(); ++i) args[i] = static_cast<unsigned char>(i);
  LaunchParams lp{};
  lp.count[1] = 77;
  lp.block[2] = 9;
  const EntryParameters parameters = {
      {Source::launch, static_cast<std::uint32_t>(offsetof(LaunchParams, count) + 8), 8},
      {Source::arguments, 16, 4},
      {Source::launch, static_cast<std::uint32_t>(offsetof(LaunchParams, block) + 8), 4},
      {Source::arguments, 32, 8},
  };
  KernelParams params(parameters, args.data(), args.size(), lp);
  void** p = params.data();
  EXPECT_EQ(*static_cast<const std::int64_t*>(p[0]), 77);
  EXPECT_EQ(p[1], static_cast<void*>(args.data() + 16));
  EXPECT_EQ(*static_cast<const unsigned char*>(p[1]), 16);
  EXPECT_EQ(*static_cast<const std::uint32_t*>(p[2]), 9u);
  EXPECT_EQ(p[3], static_cast<void*>(args.data() + 32));
}

// More values than the array on the stack holds: all of them, in order.
TEST(KernelParams, ManyValues) {
  constexpr std::size_t count = KernelParams::inline_capacity + 10;
  alignas(8) std::array<char, 8 * count> args{};
  const LaunchParams lp{};
  EntryParameters parameters;
  for (std::uint32_t i = 0; i < count; ++i) parameters.push_back({Source::arguments, 8 * i, 8});
  KernelParams params(parameters, args.data(), args.size(), lp);
  for (std::size_t i = 0; i < count; ++i)
    EXPECT_EQ(params.data()[i], static_cast<void*>(args.data() + 8 * i)) << i;
}

TEST(KernelParams, AValueOutsideWhatTheHostPackedIsRefused) {
  const std::array<char, 24> args{};
  const LaunchParams lp{};
  const auto refused = [&](EntryParameter p, const char* says) {
    try {
      KernelParams params({{Source::arguments, 0, 8}, p}, args.data(), args.size(), lp);
      ADD_FAILURE() << "accepted " << p.offset << "+" << p.size;
    } catch (const BackendError& error) {
      EXPECT_NE(std::string(error.what()).find(says), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("parameter 1"), std::string::npos) << error.what();
    }
  };
  refused({Source::arguments, 20, 8}, "outside the packed arguments (24 bytes)");
  refused({Source::arguments, 24, 1}, "outside the packed arguments");
  refused({Source::arguments, 0xffffffffu, 8}, "outside the packed arguments");
  refused({Source::arguments, 0, 0}, "0 bytes");
  refused({Source::launch, static_cast<std::uint32_t>(sizeof(LaunchParams)) - 4, 8},
          "outside the launch parameters");
  // The last bytes of either are within.
  EXPECT_NO_THROW(KernelParams({{Source::arguments, 16, 8}}, args.data(), args.size(), lp));
  EXPECT_NO_THROW(
      KernelParams({{Source::launch, static_cast<std::uint32_t>(sizeof(LaunchParams)) - 4, 4}},
                   args.data(), args.size(), lp));
}

}  // namespace
}  // namespace stubjit::detail
