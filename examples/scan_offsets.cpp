// Scans (docs/patterns.md): stream compaction in three launches, and a running maximum
// along the rows of a matrix.
//
// A scan kernel has a scan parameter: its body sets the value (a T&, the field's own
// element until set) once per index, and the launch writes each element the
// combination of the values before it (exclusive) or up to it (inclusive) along one
// dimension, in an order fixed by its plan.
//
//   build/examples/scan_offsets
#include <stubjit/stubjit.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

int main() try {
  stubjit::Runtime runtime;
  std::printf("backend: %s\n", runtime.backend_name().c_str());
  using i64 = std::int64_t;

  // 1. Compaction: keep the elements of x above a threshold, in order. Flag each one,
  // scan the flags (exclusive: each kept element's slot in the output), then scatter.
  const i64 n = 1 << 20;
  std::vector<double> x(static_cast<std::size_t>(n));
  for (i64 i = 0; i < n; ++i) x[std::size_t(i)] = double((i * 7919) % 1000);
  stubjit::Field f_x = runtime.allocate<double>({n});
  stubjit::Field f_slot = runtime.allocate<i64>({n});
  f_x.copy_from(x);
  stubjit::Kernel slots = runtime.kernel(
      {"slots",
       {stubjit::in<double>("x"), stubjit::scalar<double>("limit"),
        stubjit::scan<i64>("slot", stubjit::Combiner::sum, stubjit::ScanKind::exclusive)},
       "slot = x > limit ? 1 : 0;"});
  slots.launch(stubjit::Domain{n}, f_x, 900.0, f_slot);
  const std::vector<i64> slot = f_slot.to_vector<i64>();
  const i64 kept = slot.back() + (x.back() > 900.0 ? 1 : 0);
  stubjit::Field f_out = runtime.allocate<double>({std::max<i64>(kept, 1)});
  stubjit::Kernel scatter =
      runtime.kernel({"scatter",
                      {stubjit::in<double>("x"), stubjit::scalar<double>("limit"),
                       stubjit::in<i64>("slot"), stubjit::inout<double>("out", 1)},
                      "if (x > limit) out(slot) = x;"});
  scatter.launch(stubjit::Domain{n}, f_x, 900.0, f_slot, f_out);
  std::vector<double> want;
  for (const double v : x)
    if (v > 900.0) want.push_back(v);
  std::vector<double> got = f_out.to_vector<double>();
  got.resize(static_cast<std::size_t>(kept));
  std::size_t wrong = got == want ? 0 : 1;
  std::printf("kept %lld of %lld elements above 900 (host loop: %zu)\n", (long long)kept,
              (long long)n, want.size());

  // 2. The running maximum of |a| along each row of a matrix (the last dimension, the
  // default), into another field; every row is scanned on its own.
  const i64 rows = 300, cols = 5000;
  std::vector<double> a(static_cast<std::size_t>(rows * cols));
  for (std::size_t k = 0; k < a.size(); ++k) a[k] = double(i64((k * 2654435761u) % 2001) - 1000);
  stubjit::Field f_a = runtime.allocate<double>({rows, cols});
  stubjit::Field f_peak = runtime.allocate<double>({rows, cols});
  f_a.copy_from(a);
  stubjit::Kernel peaks = runtime.kernel(
      {"peaks",
       {stubjit::in<double>("a"), stubjit::scan<double>("peak", stubjit::Combiner::max)},
       "peak = a < 0 ? -a : a;"});
  peaks.launch(stubjit::Domain{rows, cols}, f_a, f_peak);
  const std::vector<double> peak = f_peak.to_vector<double>();
  for (i64 r = 0; r < rows; ++r) {
    double running = 0;
    for (i64 c = 0; c < cols; ++c) {
      const double v = a[std::size_t(r * cols + c)];
      running = std::max(running, v < 0 ? -v : v);
      wrong += peak[std::size_t(r * cols + c)] != running;
    }
  }
  std::printf("running max |a| of %lld rows of %lld: last row ends at %.0f\n", (long long)rows,
              (long long)cols, peak.back());

  std::printf("result check: %s\n", wrong ? "FAILED" : "ok");
  return wrong ? 1 : 0;
} catch (const stubjit::Error& error) {
  std::fprintf(stderr, "stubjit error: %s\n", error.what());
  return 2;
}
