// The kernel-parameter array the GPU backends pass their drivers (backends/
// kernel_params.hpp): the two structs of the two-struct convention, or one pointer per
// value into the packed arguments and the launch parameters; a value outside either is
// refused before anything is launched.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>

#include "backends/kernel_params.hpp"
#include "bind/arg_layout.hpp"
#include "codegen/stub_request.hpp"
#include "stubjit/stubjit.hpp"

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

// What the inline capacity assumes: an entry takes at most 48 launch values and at
// most one value per 8 bytes of its packed arguments. Every mode and rank of a kernel
// of a scalar, a broadcast view and two projected fields of rank 2 (the most values a
// field has: pointer, strides, then the view's extents and strides).
TEST(KernelParams, AnEntryTakesAtMost48LaunchValuesAndOnePer8BytesOfArguments) {
  const KernelSource kernel{
      "k",
      {scalar<double>("a"), in<float>("table", 2), in<float>("x", 2), inout<float>("y", 2)},
      "y(0, 0) = a * x(0, 0) + table(0, 0);",
      "",
      {}};
  const std::vector<Binding> bindings = {Binding::scalar, Binding::broadcast, Binding::projection,
                                         Binding::projection};
  for (const char* dialect : {"cuda", "hip"}) {
    for (Mode mode : {Mode::direct, Mode::spread, Mode::multi}) {
      for (int rank = 1; rank <= 6; ++rank) {
        if (mode == Mode::direct && rank > 3) continue;
        for (int bits : {32, 64}) {
          StubRequest r;
          r.emitter = dialect;
          r.mode = mode;
          r.rank = rank;
          r.index_bits = bits;
          r.kernel = &kernel;
          r.bindings = bindings;
          r.max_threads_per_group = 256;
          r.warp_size = 32;
          const GeneratedStub stub = generate_stub(r);
          std::size_t launch = 0, arguments = 0;
          for (const EntryParameter& p : stub.parameters)
            (p.source == Source::launch ? launch : arguments) += 1;
          const ArgLayout layout = arg_layout(kernel.signature, bindings, rank);
          SCOPED_TRACE(std::string(dialect) + " " + name_of(mode) + " r" + std::to_string(rank));
          EXPECT_LE(launch, 48u);
          EXPECT_LE(arguments, layout.size / 8);
          EXPECT_GT(arguments, 0u);
        }
      }
    }
  }
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
