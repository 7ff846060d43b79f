// A separate process for the warm-start and concurrency tests: launches a set of
// kernels on the CPU backend, checks every result against values computed here,
// and prints its cache counters, a digest of all outputs and what its address space
// holds (from /proc/self/maps) on one line:
//   compiles=N disk_hits=N disk_writes=N disk_rejected=N digest=HEX results=ok|wrong
//   llvm_mapped=0|1 compiler_mapped=0|1 memfd_stubs=N
// The disk cache comes from the environment (STUBJIT_CACHE_DIR), as in any application.
//
//   stubjit_cache_child suite              the shared test kernels, several modes/ranks
//   stubjit_cache_child many COUNT START [END [FILE_LIMIT [PADDING]]]
//                                          COUNT distinct kernels, beginning at START
//
// END says how the process ends (the disk writes of its compiles may still be pending
// then; none of the endings but the first asks for the counters, which would wait
// for them):
//   destroy   the runtime is destroyed, then main returns (the default)
//   exit      std::exit(0) with the runtime alive: prints results and digest only
//   leak      the runtime is leaked and main returns: prints results and digest only
//   fork      forks with the runtime alive; the child calls std::exit(0) at once and
//             the parent prints child_exit=CODE, then ends as `exit`
// FILE_LIMIT (bytes, RLIMIT_FSIZE, SIGXFSZ ignored; 0: none): no file of this process
// grows past it. PADDING (bytes): each kernel carries a comment this long in its
// helpers, which is part of its cache key and so of its entry, not of its binary. With
// PADDING above FILE_LIMIT, cache entries cannot be written while the compiler's
// files and the sealed memory files that stubs are loaded from (no larger than a
// binary) can.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/kernels.hpp"
#include "stubjit/stubjit.hpp"

// The runtime the `leak` ending never destroys (volatile: the store stays although
// nothing reads it).
stubjit::Runtime* volatile leaked_runtime = nullptr;

namespace {

using namespace stubjit;

// FNV-1a over every output, so two processes can show identical results.
class Digest {
 public:
  template <class T>
  void add(const std::vector<T>& values) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
    for (std::size_t i = 0; i < values.size() * sizeof(T); ++i) {
      state_ = (state_ ^ bytes[i]) * 0x100000001b3ULL;
    }
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

struct Checker {
  Digest digest;
  int wrong = 0;
  template <class T>
  void expect(const char* what, const std::vector<T>& got, const std::vector<T>& want) {
    digest.add(got);
    if (got != want) {
      ++wrong;
      std::fprintf(stderr, "wrong result: %s\n", what);
    }
  }
};

std::vector<float> iota_f(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>(i);
  return v;
}

void saxpy_case(Runtime& rt, Checker& check, std::initializer_list<std::int64_t> counts,
                std::optional<Mode> mode) {
  Kernel saxpy = rt.kernel(test::saxpy_kernel());
  const Domain domain(counts);
  const std::vector<std::int64_t> extents(counts);
  const auto n = static_cast<std::size_t>(domain.size());
  Field x = rt.allocate<float>(extents);
  Field y = rt.allocate<float>(extents);
  x.copy_from(iota_f(n, 1.0f));
  y.copy_from(iota_f(n, 2.0f));
  LaunchOptions options;
  options.mode = mode;
  saxpy.launch(options, domain, 3.0f, x, y);
  check.expect("saxpy", y.to_vector<float>(), iota_f(n, 5.0f));
}

void index_case(Runtime& rt, Checker& check) {
  Kernel writer = rt.kernel(test::index_writer_kernel());
  const Domain domain{5, 4, 3, 2};
  Field out = rt.allocate<std::int64_t>({5, 4, 3, 2});
  writer.launch(domain, out);
  std::vector<std::int64_t> want;
  for (std::int64_t a = 0; a < 5; ++a)
    for (std::int64_t b = 0; b < 4; ++b)
      for (std::int64_t c = 0; c < 3; ++c)
        for (std::int64_t d = 0; d < 2; ++d) want.push_back(test::index_code({a, b, c, d}));
  check.expect("write_index", out.to_vector<std::int64_t>(), want);
}

void mixed_case(Runtime& rt, Checker& check) {
  Kernel mixed = rt.kernel(test::mixed_types_kernel());
  const std::size_t n = 64;
  std::vector<double> x(n);
  std::vector<std::int32_t> k(n);
  std::vector<double> want(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = 0.5 * static_cast<double>(i);
    k[i] = static_cast<std::int32_t>(i * 3);
    want[i] = 2.0 * x[i] + 7 + (k[i] & 5) + 100.0;
  }
  Field fx = rt.allocate<double>({64});
  Field fk = rt.allocate<std::int32_t>({64});
  Field fz = rt.allocate<double>({64});
  fx.copy_from(x);
  fk.copy_from(k);
  mixed.launch(Domain{64}, 2.0, std::int32_t(7), std::uint32_t(5), std::int64_t(100), fx, fk, fz);
  check.expect("mixed", fz.to_vector<double>(), want);
}

void row_sum_case(Runtime& rt, Checker& check) {
  Kernel row_sum = rt.kernel(test::row_sum_kernel());
  std::vector<double> rows(10 * 7);
  std::vector<double> want(10, 0.0);
  for (std::size_t r = 0; r < 10; ++r)
    for (std::size_t c = 0; c < 7; ++c) {
      rows[r * 7 + c] = static_cast<double>(r * 10 + c);
      want[r] += rows[r * 7 + c];
    }
  Field f = rt.allocate<double>({10, 7});
  Field total = rt.allocate<double>({10});
  f.copy_from(rows);
  row_sum.launch(Domain{10}, f, total);
  check.expect("row_sum", total.to_vector<double>(), want);
}

void lookup_and_sum_case(Runtime& rt, Checker& check) {
  Kernel lookup = rt.kernel(test::lookup_kernel());
  std::vector<std::int32_t> table(16), keys(50), want(50);
  for (std::int32_t i = 0; i < 16; ++i) table[static_cast<std::size_t>(i)] = 1000 + i;
  for (std::int32_t i = 0; i < 50; ++i) {
    keys[static_cast<std::size_t>(i)] = i * 7;
    want[static_cast<std::size_t>(i)] = 1000 + (i * 7) % 16 + i * 7 * i * 7;
  }
  Field ft = rt.allocate<std::int32_t>({16});
  Field fk = rt.allocate<std::int32_t>({50});
  Field fo = rt.allocate<std::int32_t>({50});
  ft.copy_from(table);
  fk.copy_from(keys);
  lookup.launch(Domain{50}, ft, fk, fo);
  check.expect("lookup", fo.to_vector<std::int32_t>(), want);

  Kernel sum = rt.kernel(test::sum_kernel());
  std::vector<std::int64_t> values(100);
  for (std::int64_t i = 0; i < 100; ++i) values[static_cast<std::size_t>(i)] = i * i;
  Field fv = rt.allocate<std::int64_t>({100});
  Field ftotal = rt.allocate<std::int64_t>(std::vector<std::int64_t>{});
  fv.copy_from(values);
  ftotal.copy_from(std::vector<std::int64_t>{0});
  sum.launch(Domain{100}, fv, ftotal);
  check.expect("sum_all", ftotal.to_vector<std::int64_t>(), std::vector<std::int64_t>{328350});
}

void visits_case(Runtime& rt, Checker& check) {
  Kernel visits = rt.kernel(test::visit_counter_kernel());
  Field counts = rt.allocate<std::int32_t>({7, 9});
  counts.copy_from(std::vector<std::int32_t>(63, 0));
  visits.launch(Domain{7, 9}, counts);
  check.expect("count_visits", counts.to_vector<std::int32_t>(), std::vector<std::int32_t>(63, 1));
}

void run_suite(Runtime& rt, Checker& check) {
  saxpy_case(rt, check, {1000}, std::nullopt);
  saxpy_case(rt, check, {40, 30}, Mode::spread);
  saxpy_case(rt, check, {8, 6, 5}, std::nullopt);
  index_case(rt, check);
  mixed_case(rt, check);
  row_sum_case(rt, check);
  lookup_and_sum_case(rt, check);
  visits_case(rt, check);
}

// Kernel j adds j: distinct source, so distinct cache keys.
KernelSource numbered_kernel(int j, std::size_t padding) {
  return {"add" + std::to_string(j),
          {scalar<float>("a"), in<float>("x"), inout<float>("y")},
          "y = a * x + y + " + std::to_string(j) + ".0f;",
          padding ? "// " + std::string(padding, 'p') + "\n" : std::string()};
}

void run_many(Runtime& rt, Checker& check, int count, int start, std::size_t padding) {
  Field x = rt.allocate<float>({256});
  Field y = rt.allocate<float>({256});
  x.copy_from(iota_f(256, 1.0f));
  for (int n = 0; n < count; ++n) {
    const int j = (start + n) % count;
    y.copy_from(std::vector<float>(256, 1.0f));
    rt.kernel(numbered_kernel(j, padding)).launch(Domain{256}, 2.0f, x, y);
    std::vector<float> want(256);
    for (std::size_t i = 0; i < 256; ++i) want[i] = 2.0f * static_cast<float>(i) + 1.0f + j;
    check.expect(("add" + std::to_string(j)).c_str(), y.to_vector<float>(), want);
  }
}

// What the process has mapped: LLVM or Clang libraries, the CPU compiler plugin, and
// how many stubs were loaded from sealed memory files.
struct Mappings {
  bool llvm = false;
  bool compiler = false;
  std::size_t memfd_stubs = 0;
};

Mappings read_mappings() {
  Mappings found;
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> stub_inodes;
  std::string line;
  while (std::getline(maps, line)) {
    // address perms offset device inode path
    std::istringstream fields(line);
    std::string address, perms, offset, device, inode, path;
    fields >> address >> perms >> offset >> device >> inode;
    std::getline(fields >> std::ws, path);
    found.llvm = found.llvm || path.find("libLLVM") != std::string::npos ||
                 path.find("libclang") != std::string::npos;
    found.compiler = found.compiler || path.find("stubjit-cpu-compiler") != std::string::npos;
    // A memfd maps as "/memfd:<name> (deleted)"; its inode tells it from the others.
    if (path.rfind("/memfd:stubjit:", 0) == 0) stub_inodes.insert(inode);
  }
  found.memfd_stubs = stub_inodes.size();
  return found;
}

// Ends the process without destroying `runtime` (see END above); returns main's
// status for `leak`.
int end_with_runtime_alive(const std::string& end, std::unique_ptr<Runtime> runtime,
                           const Checker& check) {
  if (end == "fork") {
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child == 0) std::exit(0);  // static destructors run in the child: it must not hang
    int status = 0;
    const bool waited = child > 0 && ::waitpid(child, &status, 0) == child;
    std::printf("child_exit=%d ", waited && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  std::printf("digest=%016" PRIx64 " results=%s\n", check.digest.value(),
              check.wrong == 0 ? "ok" : "wrong");
  std::fflush(stdout);
  const int status = check.wrong == 0 ? 0 : 1;
  if (end != "leak") std::exit(status);
  // Deliberately never destroyed: its pending disk writes are the process's to finish.
  // Kept reachable from a global, so LeakSanitizer (the sanitizer pass) counts it as
  // still in use rather than as a leak.
  leaked_runtime = runtime.release();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  const std::string end = argc > 4 ? argv[4] : "destroy";
  if (what != "suite" && !(what == "many" && argc >= 4 && argc <= 7)) {
    std::fprintf(stderr, "usage: %s suite | many COUNT START [END [FILE_LIMIT [PADDING]]]\n",
                 argv[0]);
    return 2;
  }
  const std::size_t padding = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 0;
  if (argc > 5 && std::strtoull(argv[5], nullptr, 10) != 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    const rlim_t limit = std::strtoull(argv[5], nullptr, 10);
    const rlimit file_size{limit, limit};
    if (::setrlimit(RLIMIT_FSIZE, &file_size) != 0) return 4;
  }
  try {
    RuntimeOptions options;
    options.backend = "cpu";
    auto runtime = std::make_unique<Runtime>(options);
    Checker check;
    if (what == "suite") {
      run_suite(*runtime, check);
    } else {
      run_many(*runtime, check, std::atoi(argv[2]), std::atoi(argv[3]), padding);
    }
    if (end != "destroy") return end_with_runtime_alive(end, std::move(runtime), check);
    const CacheCounters c = runtime->counters();
    const Mappings mapped = read_mappings();
    std::printf("compiles=%" PRIu64 " disk_hits=%" PRIu64 " disk_writes=%" PRIu64
                " disk_rejected=%" PRIu64 " digest=%016" PRIx64
                " results=%s llvm_mapped=%d compiler_mapped=%d memfd_stubs=%zu\n",
                c.compiles, c.disk_hits, c.disk_writes, c.disk_rejected, check.digest.value(),
                check.wrong == 0 ? "ok" : "wrong", mapped.llvm ? 1 : 0, mapped.compiler ? 1 : 0,
                mapped.memfd_stubs);
    return check.wrong == 0 ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 3;
  }
}
