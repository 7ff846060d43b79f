// The emulator's block services, with hand-written kernels in both dialects run
// straight on its device (the stubs of later issues will use them): __shared__ storage
// and __syncthreads, shuffles and ballots over warps of 32 and 64 lanes, short last
// warps. Then what the emulator refuses and what its sanitizer catches.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "codegen/prelude.hpp"
#include "common/kernels.hpp"
#include "emulator/emulator_backend.hpp"
#include "stubjit/stubjit.hpp"

namespace stubjit {
namespace {

using test::emulator::Config;
using test::emulator::Dialect;

std::string prelude_text() {
  std::string text;
  for (const detail::PreludeHeader& header : detail::prelude_headers()) text += header.text;
  return text;
}

// Per thread g (global position, x fastest within a block, blocks in order):
// block_sum[b] by __shared__ tree reduction, warp_sum[b*warps+w] by shuffle-down,
// ballot[b*warps+w] of in % 3 == 0, and per thread the value of lane-1 (shuffle up),
// lane^1 (xor), lane+5 mod warp (indexed), lane+2 within segments of 8 (down, width 8).
const char* const services_kernel = R"(
#define STUBJIT_MAX_GROUP_THREADS 1024
#if defined(STUBJIT_EMULATE_CUDA)
#define SHFL(v, l) __shfl_sync(0xffffffffu, v, l)
#define SHFL_UP(v, d) __shfl_up_sync(0xffffffffu, v, d)
#define SHFL_DOWN(v, d) __shfl_down_sync(0xffffffffu, v, d)
#define SHFL_DOWN_W(v, d, w) __shfl_down_sync(0xffffffffu, v, d, w)
#define SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, v, m)
#define BALLOT(p) (unsigned long long)__ballot_sync(0xffffffffu, p)
#else
#define SHFL(v, l) __shfl(v, l)
#define SHFL_UP(v, d) __shfl_up(v, d)
#define SHFL_DOWN(v, d) __shfl_down(v, d)
#define SHFL_DOWN_W(v, d, w) __shfl_down(v, d, w)
#define SHFL_XOR(v, m) __shfl_xor(v, m)
#define BALLOT(p) __ballot(p)
#endif
struct stubjit_args_t {
  const long long* in;
  long long* block_sum;
  long long* warp_sum;
  unsigned long long* ballot;
  long long* up;
  long long* butterfly;
  long long* indexed;
  long long* segment;
};
extern "C" __global__ void services(const stubjit_args_t a, const stubjit::LaunchParams lp) {
  __shared__ long long partial[1024];
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned g = b * threads + t;
  const long long v = a.in[g];
  partial[t] = v;
  __syncthreads();
  for (unsigned s = 1; s < threads; s *= 2) {
    const long long other = t % (2 * s) == 0 && t + s < threads ? partial[t + s] : 0;
    __syncthreads();
    if (t % (2 * s) == 0) partial[t] += other;
    __syncthreads();
  }
  if (t == 0) a.block_sum[b] = partial[0];
  if (threads % warpSize != 0) return;  // the warp tests need whole warps
  const unsigned warps = threads / warpSize, w = t / warpSize, lane = t % warpSize;
  long long sum = v;
  for (int d = warpSize / 2; d > 0; d /= 2) sum += SHFL_DOWN(sum, d);
  const unsigned long long mask = BALLOT(v % 3 == 0);
  if (lane == 0) {
    a.warp_sum[b * warps + w] = sum;
    a.ballot[b * warps + w] = mask;
  }
  a.up[g] = SHFL_UP(v, 1);
  a.butterfly[g] = SHFL_XOR(v, 1);
  a.indexed[g] = SHFL(v, int(lane) + 5);
  a.segment[g] = SHFL_DOWN_W(v, 2, 8);
  (void)lp;
}
)";

struct ServicesCase {
  Dialect dialect;
  unsigned warp;
  std::array<std::uint32_t, 3> block;
};

class EmulatorServices : public ::testing::TestWithParam<ServicesCase> {};

TEST_P(EmulatorServices, SharedMemoryBarriersShufflesAndBallots) {
  const ServicesCase c = GetParam();
  const Config config{c.dialect, true, false};
  const std::unique_ptr<detail::Toolchain> toolchain = test::emulator::make_toolchain(config);
  const std::unique_ptr<detail::Device> device = test::emulator::make_device(config);
  const std::string source = prelude_text() + "#define STUBJIT_WARP_SIZE " +
                             std::to_string(c.warp) + "\n" + services_kernel;
  const std::string file = "services.cu", entry = "services", kernel = "services";
  const std::vector<std::string> options;
  const detail::Binary binary = toolchain->compile({source, file, entry, kernel, options});
  const std::unique_ptr<detail::Module> module = device->load(binary, entry);

  const std::array<std::uint64_t, 3> grid = {3, 2, 1};
  const unsigned threads = c.block[0] * c.block[1] * c.block[2];
  const unsigned blocks = 6, total = blocks * threads;
  const bool whole_warps = threads % c.warp == 0;
  const unsigned warps = whole_warps ? threads / c.warp : 0;
  std::vector<long long> in(total), block_sum(blocks, -1), warp_sum(blocks * warps, -1),
      up(total, -1), butterfly(total, -1), indexed(total, -1), segment(total, -1);
  std::vector<unsigned long long> ballot(blocks * warps, 0);
  for (unsigned g = 0; g < total; ++g) in[g] = (g * 37 + 11) % 101 - 50;
  struct {
    const long long* in;
    long long* block_sum;
    long long* warp_sum;
    unsigned long long* ballot;
    long long *up, *butterfly, *indexed, *segment;
  } args = {in.data(), block_sum.data(), warp_sum.data(), ballot.data(),
            up.data(), butterfly.data(), indexed.data(),  segment.data()};
  LaunchParams lp;
  std::memset(&lp, 0, sizeof lp);
  for (int p = 0; p < 3; ++p) {
    lp.grid[p] = grid[static_cast<std::size_t>(p)];
    lp.block[p] = c.block[static_cast<std::size_t>(p)];
  }
  device->launch(*module, {}, lp, &args, sizeof args, nullptr);

  for (unsigned b = 0; b < blocks; ++b) {
    const long long expected =
        std::accumulate(in.begin() + b * threads, in.begin() + (b + 1) * threads, 0LL);
    EXPECT_EQ(block_sum[b], expected) << "block " << b;
  }
  if (!whole_warps) return;
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned w = 0; w < warps; ++w) {
      const unsigned first = b * threads + w * c.warp;
      long long sum = 0;
      unsigned long long mask = 0;
      for (unsigned lane = 0; lane < c.warp; ++lane) {
        sum += in[first + lane];
        if (in[first + lane] % 3 == 0) mask |= 1ULL << lane;
      }
      // CUDA's ballot is 32 bits wide.
      if (c.dialect == Dialect::cuda) mask &= 0xffffffffULL;
      EXPECT_EQ(warp_sum[b * warps + w], sum) << "block " << b << " warp " << w;
      EXPECT_EQ(ballot[b * warps + w], mask) << "block " << b << " warp " << w;
      for (unsigned lane = 0; lane < c.warp; ++lane) {
        const unsigned g = first + lane;
        EXPECT_EQ(up[g], in[lane >= 1 ? g - 1 : g]) << g;
        EXPECT_EQ(butterfly[g], in[first + (lane ^ 1u)]) << g;
        EXPECT_EQ(indexed[g], in[first + (lane + 5) % c.warp]) << g;
        EXPECT_EQ(segment[g], in[lane % 8 + 2 < 8 ? g + 2 : g]) << g;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(BothDialects, EmulatorServices,
                         ::testing::Values(ServicesCase{Dialect::cuda, 32, {16, 4, 2}},
                                           ServicesCase{Dialect::cuda, 64, {64, 2, 1}},
                                           ServicesCase{Dialect::hip, 64, {8, 8, 2}},
                                           ServicesCase{Dialect::hip, 32, {32, 3, 1}},
                                           // A short last warp: only the block reduction applies.
                                           ServicesCase{Dialect::cuda, 32, {48, 1, 1}},
                                           ServicesCase{Dialect::hip, 64, {25, 3, 1}}),
                         [](const ::testing::TestParamInfo<ServicesCase>& info) {
                           return std::string(info.param.dialect == Dialect::cuda ? "cuda"
                                                                                  : "hip") +
                                  "_warp" + std::to_string(info.param.warp) + "_block" +
                                  std::to_string(info.param.block[0]) + "x" +
                                  std::to_string(info.param.block[1]) + "x" +
                                  std::to_string(info.param.block[2]);
                         });

const Config cuda_emulator{Dialect::cuda, true, false};

// A hand-written kernel `entry` (after the prelude) compiled by the CUDA emulator's
// toolchain and loaded on `device`.
std::unique_ptr<detail::Module> load_kernel(detail::Device& device, const std::string& body,
                                            const std::string& entry) {
  const auto toolchain = test::emulator::make_toolchain(cuda_emulator);
  const std::string source = prelude_text() + body, file = entry + ".cu";
  const std::vector<std::string> options;
  return device.load(toolchain->compile({source, file, entry, entry, options}), entry);
}

// Launch parameters of `grid` groups of `block` threads along x.
LaunchParams along_x(std::uint64_t grid, std::uint32_t block) {
  LaunchParams lp;
  std::memset(&lp, 0, sizeof lp);
  lp.grid[0] = grid;
  lp.grid[1] = lp.grid[2] = 1;
  lp.block[0] = block;
  lp.block[1] = lp.block[2] = 1;
  return lp;
}

// A group above the stub's launch bounds is refused before any thread runs, as a
// driver refuses it.
TEST(EmulatorDevice, RefusesAGroupAboveTheLaunchBounds) {
  const auto device = test::emulator::make_device(cuda_emulator);
  const auto module = load_kernel(*device,
                                  "#define STUBJIT_MAX_GROUP_THREADS 4\n"
                                  "struct stubjit_args_t { int* hits; };\n"
                                  "extern \"C\" __global__ void touch(const stubjit_args_t a, "
                                  "const stubjit::LaunchParams) { atomicAdd(a.hits, 1); }\n",
                                  "touch");
  EXPECT_EQ(module->max_group_threads(), 4u);
  int hits = 0;
  int* args = &hits;
  LaunchParams lp = along_x(1, 4);
  device->launch(*module, {}, lp, &args, sizeof args, nullptr);
  EXPECT_EQ(hits, 4);
  lp.block[0] = 8;
  EXPECT_THROW(device->launch(*module, {}, lp, &args, sizeof args, nullptr), BackendError);
  EXPECT_EQ(hits, 4) << "a refused launch ran threads";
}

// A barrier that some of a block's threads never reach (thread 0 returns first): a GPU
// would hang; the emulator stops and names the block. Without the early return the same
// kernel runs every thread past the barrier.
TEST(EmulatorDevice, StopsABlockWhoseThreadsWaitAtABarrierOthersLeft) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto device = test::emulator::make_device(cuda_emulator);
  const auto module_for = [&](const std::string& condition) {
    return load_kernel(*device,
                       "struct stubjit_args_t { int* hits; };\n"
                       "extern \"C\" __global__ void wait_all(const stubjit_args_t a, "
                       "const stubjit::LaunchParams) {\n"
                       "  if (" +
                           condition +
                           ") return;\n"
                           "  __syncthreads();\n"
                           "  atomicAdd(a.hits, 1);\n"
                           "}\n",
                       "wait_all");
  };
  int hits = 0;
  int* args = &hits;
  const LaunchParams lp = along_x(2, 32);
  const auto whole = module_for("false");
  device->launch(*whole, {}, lp, &args, sizeof args, nullptr);
  EXPECT_EQ(hits, 64);
  const auto early = module_for("threadIdx.x == 0");
  EXPECT_DEATH(device->launch(*early, {}, lp, &args, sizeof args, nullptr),
               "block \\(1, 0, 0\\): 31 of 32 threads wait at a barrier that the others never "
               "reach");
}

// Signed overflow in a body: under the _ubsan emulators the stub traps (the process
// dies); the same launch on the plain emulator runs. So the sanitizer runs are real.
KernelSource overflowing_kernel() {
  return {"overflow",
          {scalar<std::int32_t>("big"), index("i"), inout<std::int32_t>("out")},
          "out = big + stubjit::i32(i[0]);",
          "",
          {}};
}

void launch_overflow(const std::string& backend) {
  RuntimeOptions options;
  options.backend = backend;
  options.disk_cache = false;
  Runtime runtime(options);
  Kernel kernel = runtime.kernel(overflowing_kernel());
  Field out = runtime.allocate<std::int32_t>({4});
  kernel.launch(Domain{4}, std::int32_t{2147483646}, out);
}

TEST(EmulatorSanitizer, SignedOverflowTrapsUnderUbsan) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const Config& config : test::emulator::all_configs()) {
    const std::string name = test::emulator::backend_name(config);
    SCOPED_TRACE(name);
    if (config.ubsan) {
      EXPECT_DEATH(launch_overflow(name), "");
    } else {
      EXPECT_NO_THROW(launch_overflow(name));
    }
  }
}

}  // namespace
}  // namespace stubjit
