// The shape matrix on a CUDA GPU: the cases of the CPU matrix (bench/shape_cases.hpp:
// saxpy and a stencil, ranks 1 to 8, innermost extents 1 to 1000, row-major,
// column-major and strided fields, the planner's mode and each forced mode) with
// stubjit's CUDA stubs against hand-written CUDA kernels of the same shape.
//
// The hand-written kernels are what a CUDA programmer writes for an N-D array of any
// layout: one thread per point in memory order, a grid-stride loop, the flat index
// unravelled with the hardware's division and remainder per dimension (a template over
// the rank, so the loop over dimensions unrolls; stubjit divides by multipliers the
// host computes, which a hand-writer rarely does, so at high ranks the ratio includes
// that difference), index and offset arithmetic in 32 bits where the arrays fit it (as
// stubjit's own 32-bit stubs), compiled with NVRTC for the device in the same run.
//
// Each case first runs both sides once from the same values and compares every
// element (a case whose results differ reports an error and times nothing); then each
// iteration times eight stubjit launches and eight hand-written launches, each eight
// between one pair of CUDA events (so that a launch's fixed cost weighs as in a
// program that launches back to back), alternating which side goes first. Counters: both bandwidths
// (useful bytes: saxpy 12 per point, the stencil 8), ratio = median hand time / median stubjit time
// (above 1: stubjit faster; target >= 0.97), and for saxpy the fraction of the device's copy
// bandwidth over the same array (target >= 0.9 for streaming kernels).
//
// A forced mode the device's limits refuse (direct over a rank-2 domain needs more than
// 65535 groups along y for short rows) is reported as refused (label and counter
// refused = 1), not as an error. Without a CUDA device every case reports why and runs
// nothing. --compile-hand-kernels
// compiles the hand-written kernels for every rank and index width with NVRTC and
// exits (no device needed: a check of this program on a machine without a GPU).
//
// Environment: STUBJIT_SHAPES_TOTAL (elements, default 2^25), STUBJIT_SHAPES_ITERATIONS
// (default 10). Names are kernel/rank/inner/layout/mode, as in bench_shapes;
// bench/shape_table.py turns the JSON output into a table.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cuda_support.hpp"
#include "shape_cases.hpp"

namespace {

using namespace stubjit;
using namespace stubjit::bench;

// The hand-written kernels. `Nest` is the shape in memory order, outermost first
// (HandNest's counts and one stride per dimension).
const char* const hand_source = R"(
struct Nest {
  long long count[8];
  long long stride[8];
};

template <int R, class I>
__device__ __forceinline__ I offset_of(const Nest& n, I t) {
  I offset = 0;
#pragma unroll
  for (int d = R - 1; d >= 0; --d) {
    const I c = (I)n.count[d];
    offset += (t % c) * (I)n.stride[d];
    t /= c;
  }
  return offset;
}

template <int R, class I>
__device__ void saxpy(const Nest& n, I points, float a, const float* __restrict__ x,
                      float* __restrict__ y) {
  for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < points;
       t += (I)gridDim.x * (I)blockDim.x) {
    const long long o = (long long)offset_of<R, I>(n, t);
    y[o] = a * x[o] + y[o];
  }
}

template <int R, class I>
__device__ void stencil(const Nest& n, I points, int neighbours, long long n0, long long n1,
                        long long n2, float c0, float c1, const float* __restrict__ u,
                        float* __restrict__ out) {
  for (I t = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; t < points;
       t += (I)gridDim.x * (I)blockDim.x) {
    const long long o = (long long)offset_of<R, I>(n, t);
    float sum = u[o - n0] + u[o + n0];
    if (neighbours > 1) sum += u[o - n1] + u[o + n1];
    if (neighbours > 2) sum += u[o - n2] + u[o + n2];
    out[o] = c0 * u[o] + c1 * sum;
  }
}

#define HAND_KERNELS(R, I, BITS)                                                             \
  extern "C" __global__ void hand_saxpy_r##R##_i##BITS(Nest n, I points, float a,            \
                                                        const float* x, float* y) {          \
    saxpy<R, I>(n, points, a, x, y);                                                         \
  }                                                                                          \
  extern "C" __global__ void hand_stencil_r##R##_i##BITS(                                    \
      Nest n, I points, int neighbours, long long n0, long long n1, long long n2, float c0,  \
      float c1, const float* u, float* out) {                                                \
    stencil<R, I>(n, points, neighbours, n0, n1, n2, c0, c1, u, out);                        \
  }
#define HAND_RANK(R) HAND_KERNELS(R, unsigned int, 32) HAND_KERNELS(R, unsigned long long, 64)
HAND_RANK(1) HAND_RANK(2) HAND_RANK(3) HAND_RANK(4)
HAND_RANK(5) HAND_RANK(6) HAND_RANK(7) HAND_RANK(8)
)";

struct Nest {
  long long count[8];
  long long stride[8];
};
static_assert(sizeof(Nest) == 128, "the kernels' Nest");

// Launches per pair of events.
constexpr int launches_per_timing = 8;

std::string hand_entry(Kind kind, int rank, int bits) {
  return std::string("hand_") + name_of(kind) + "_r" + std::to_string(rank) + "_i" +
         std::to_string(bits);
}

// The GPU, the hand-written module and the arrays of the current shape, kept across
// the cases of a shape (its modes).
struct Arrays {
  std::string key;
  ShapeLayout layout;
  std::vector<float> a, start;  // host values: a (x or u), and b before each case
  std::optional<Field> a_dev, b_dev, hand_dev;
};

struct Session {
  Gpu gpu;
  std::vector<char> hand_cubin;
  Arrays arrays;
};

// Made by the first case that runs; released before main returns (the device's
// memory and the runtime go before the driver's own teardown).
std::unique_ptr<Session>& session_holder() {
  static std::unique_ptr<Session> held;
  return held;
}

Session& session() {
  std::unique_ptr<Session>& held = session_holder();
  if (!held) {
    held = std::make_unique<Session>();
    held->gpu = open_gpu();
    if (held->gpu.runtime) held->hand_cubin = cubin_for(held->gpu, hand_source, "hand_shapes.cu");
  }
  return *held;
}

Arrays& arrays_for(Session& s, const Shape& shape) {
  Arrays& r = s.arrays;
  if (r.key == key_of(shape)) return r;
  r = Arrays{};
  r.layout = layout_of(shape);
  const auto n = std::size_t(r.layout.elements);
  r.a.resize(n);
  r.start.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    r.a[k] = float(k & 127) * 0.25f;
    r.start[k] = float((k * 7) & 63) - 20.0f;
  }
  Runtime& runtime = *s.gpu.runtime;
  r.a_dev = runtime.allocate<float>({r.layout.elements});
  r.b_dev = runtime.allocate<float>({r.layout.elements});
  r.hand_dev = runtime.allocate<float>({r.layout.elements});
  r.a_dev->copy_from(r.a);
  r.key = key_of(shape);
  return r;
}

// One launch of the hand-written kernel over the shape, on the legacy default stream.
class HandLaunch {
 public:
  HandLaunch(const Session& s, const Shape& shape, const Arrays& r, float* out)
      : driver_(*s.gpu.driver) {
    const ShapeLayout& l = r.layout;
    for (int d = 0; d < 8; ++d) {
      nest_.count[d] = d < l.nest.rank ? l.nest.count[d] : 1;
      nest_.stride[d] = d < l.nest.rank ? l.nest.stride_a[d] : 0;
    }
    points_ = points_of(shape);
    // 32-bit where every point and offset fits, as stubjit's 32-bit stubs.
    const int bits = l.elements < (i64(1) << 31) ? 32 : 64;
    points32_ = static_cast<unsigned>(points_);
    const std::string entry = hand_entry(shape.kind, shape.rank, bits);
    module_ = std::make_unique<RawModule>(s.gpu, s.hand_cubin, entry.c_str());
    x_ = static_cast<const float*>(r.a_dev->data()) + l.first_point;
    y_ = out + l.first_point;
    neighbours_ = int(l.neighbour.size());
    for (std::size_t k = 0; k < 3; ++k) n_[k] = k < l.neighbour.size() ? l.neighbour[k] : 0;
    params_.push_back(&nest_);
    params_.push_back(bits == 32 ? static_cast<void*>(&points32_) : static_cast<void*>(&points_));
    if (shape.kind == Kind::saxpy) {
      params_.insert(params_.end(), {&a_, &x_, &y_});
    } else {
      params_.insert(params_.end(), {&neighbours_, &n_[0], &n_[1], &n_[2], &c0_, &c1_, &x_, &y_});
    }
    constexpr i64 block = 256;
    grid_ = static_cast<unsigned>(std::min<i64>((points_ + block - 1) / block, i64(1) << 20));
  }
  HandLaunch(const HandLaunch&) = delete;  // params_ points into this object
  HandLaunch& operator=(const HandLaunch&) = delete;
  void operator()() const {
    driver_.check(driver_.launch_kernel(module_->function(), grid_, 1, 1, 256, 1, 1, 0, nullptr,
                                        const_cast<void**>(params_.data()), nullptr),
                  "cuLaunchKernel");
  }

 private:
  const detail::CudaDriver& driver_;
  std::unique_ptr<RawModule> module_;
  Nest nest_{};
  long long points_ = 0;
  unsigned points32_ = 0;
  float a_ = saxpy_a, c0_ = stencil_c0, c1_ = stencil_c1;
  const float* x_ = nullptr;
  float* y_ = nullptr;
  int neighbours_ = 0;
  long long n_[3] = {};
  unsigned grid_ = 1;
  std::vector<void*> params_;
};

// Ends a case that cannot be timed: an error (Google Benchmark reports it), or with
// `refused`, a forced mode the device's limits do not allow (a label and a counter).
void stop(benchmark::State& state, const std::string& why, bool refused = false) {
  if (refused) {
    state.SetLabel("refused: " + why);
    state.counters["refused"] = 1;
  } else {
    state.SkipWithError(why.c_str());
  }
  for (auto _ : state) state.SetIterationTime(0);
}

void run_case_or_throw(benchmark::State& state, const Shape& shape, std::optional<Mode> mode) {
  Session& s = session();
  if (!s.gpu.runtime) return stop(state, s.gpu.problem);
  Arrays& r = arrays_for(s, shape);
  Runtime& runtime = *s.gpu.runtime;
  const ShapeLayout& l = r.layout;
  Kernel kernel =
      runtime.kernel(shape.kind == Kind::saxpy ? saxpy_source() : stencil_source(shape.rank));
  const Field fa = runtime.wrap(static_cast<const float*>(r.a_dev->data()), l.extents, l.strides);
  const Field fb = runtime.wrap(static_cast<float*>(r.b_dev->data()), l.extents, l.strides);
  const Domain domain = domain_of(shape);
  LaunchOptions options;
  options.mode = mode;
  const auto launch = [&] {
    return shape.kind == Kind::saxpy ? kernel.launch(options, domain, saxpy_a, fa, fb)
                                     : kernel.launch(options, domain, fa, fb);
  };
  const HandLaunch hand(s, shape, r, static_cast<float*>(r.hand_dev->data()));

  // Check: one launch of each from the same values.
  r.b_dev->copy_from(r.start);
  r.hand_dev->copy_from(r.start);
  LaunchSummary summary;
  try {
    summary = launch();  // compiles
  } catch (const PlanError& error) {
    if (mode) return stop(state, error.what(), true);
    throw;
  }
  hand();
  runtime.synchronize();
  s.gpu.driver->ctx_synchronize();
  const std::vector<float> got = r.b_dev->to_vector<float>();
  const std::vector<float> want = r.hand_dev->to_vector<float>();
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (std::fabs(want[k] - got[k]) > 1e-5f * (1.0f + std::fabs(want[k]))) {
      return stop(state, "element " + std::to_string(k) + ": stubjit " + std::to_string(got[k]) +
                             ", hand-written " + std::to_string(want[k]));
    }
  }

  const auto per_launch_ms = [&](const auto& work) {
    return 1e3 *
           device_seconds(s.gpu,
                          [&] {
                            for (int k = 0; k < launches_per_timing; ++k) work();
                          }) /
           launches_per_timing;
  };
  std::vector<double> stubjit_ms, hand_ms;
  std::size_t iteration = 0;
  for (auto _ : state) {
    time_both_alternating(
        iteration++, [&] { return per_launch_ms([&] { launch(); }); }, stubjit_ms,
        [&] { return per_launch_ms(hand); }, hand_ms);
    state.SetIterationTime(stubjit_ms.back() / 1e3);
  }
  const double bytes = useful_bytes(shape);
  const double ms_s = median(stubjit_ms), ms_h = median(hand_ms);
  state.counters["stubjit_GBps"] = bytes / ms_s / 1e6;
  state.counters["hand_GBps"] = bytes / ms_h / 1e6;
  state.counters["ratio"] = ms_h / ms_s;
  state.counters["points"] = double(points_of(shape));
  if (shape.kind == Kind::saxpy && shape.order != FieldOrder::strided) {
    // A streaming kernel against the device's copy bandwidth over an array of the same
    // size (read + write); strided fields leave half of every sector unused.
    const std::size_t copied = sizeof(float) * std::size_t(l.elements);
    std::vector<double> copy_ms;
    for (int k = 0; k < 5; ++k) {
      copy_ms.push_back(per_launch_ms([&] {
        s.gpu.driver->check(
            s.gpu.driver->memcpy_dtod(reinterpret_cast<std::uintptr_t>(r.hand_dev->data()),
                                      reinterpret_cast<std::uintptr_t>(r.b_dev->data()), copied),
            "cuMemcpyDtoD");
      }));
    }
    const double copy_GBps = 2.0 * double(copied) / median(copy_ms) / 1e6;
    state.counters["copy_GBps"] = copy_GBps;
    state.counters["of_copy"] = (bytes / ms_s / 1e6) / copy_GBps;
  }
  state.SetLabel(std::string(name_of(summary.mode)) + " r" + std::to_string(summary.rank));
}

// Any failure ends the case with its message, not the program (Google Benchmark does
// not catch), so that the other cases still run and the JSON stays whole.
void run_case(benchmark::State& state, const Shape& shape, std::optional<Mode> mode) {
  try {
    run_case_or_throw(state, shape, mode);
  } catch (const std::exception& error) {
    // Google Benchmark accepts a skipped case however far its loop ran.
    state.SkipWithError(error.what());
  }
}

// Compiles the hand-written kernels (every rank and index width) and checks that each
// entry is in the CUBIN; no device needed.
int compile_hand_kernels() {
  try {
    const std::shared_ptr<const detail::NvrtcLibrary> nvrtc = detail::load_nvrtc();
    const std::vector<char> cubin = raw_nvrtc_cubin(*nvrtc, hand_source, "hand_shapes.cu",
                                                    {"--gpu-architecture=sm_90", "-std=c++17"});
    const std::string text(cubin.begin(), cubin.end());
    int missing = 0;
    for (Kind kind : {Kind::saxpy, Kind::stencil}) {
      for (int rank = 1; rank <= 8; ++rank) {
        for (int bits : {32, 64}) {
          const std::string entry = hand_entry(kind, rank, bits);
          if (text.find(entry) == std::string::npos) {
            std::printf("missing: %s\n", entry.c_str());
            ++missing;
          }
        }
      }
    }
    std::printf("hand-written kernels: %zu bytes of sm_90 CUBIN, %d of 32 entries missing\n",
                cubin.size(), missing);
    return missing == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::printf("hand-written kernels: %s\n", error.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--compile-hand-kernels") == 0) return compile_hand_kernels();
  }
  register_cases(10, run_case);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  session_holder().reset();
  return 0;
}
