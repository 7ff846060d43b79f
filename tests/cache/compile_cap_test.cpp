// The node-wide cap on compiles (STUBJIT_MAX_PARALLEL_COMPILES, docs/cluster.md): many
// processes started together never run more compiles at once than the cap, yet as many
// as it allows; waiters are served in arrival order; a process killed while it holds a
// slot gives it back. What ran when is read from the compile trace
// (STUBJIT_COMPILE_TRACE) of child processes; every child checks its results against
// values it computes itself. Each test uses a scope of its own
// (STUBJIT_COMPILE_CAP_SCOPE), so that other test processes of this user on the machine
// never share its slots, and removes its semaphore sets at the end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.hpp"
#include "common/scoped_env.hpp"
#include "common/temp_dir.hpp"
#include "support/compile_cap.hpp"
#include "support/compile_slot.hpp"
#include "support/slot_semaphore.hpp"

namespace stubjit {
namespace {

using detail::SlotSemaphore;
using test::Child;
using test::ChildReport;
using test::ScopedEnv;
using test::TempDir;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One line of the trace.
struct TraceEvent {
  std::string event;  // acquired, released
  long pid = 0;
  long tid = 0;
  std::int64_t t_ns = 0;
  std::int64_t wait_ns = 0;
  unsigned cap = 0;
  std::string kernel;
};

std::vector<TraceEvent> read_trace(const std::string& path) {
  std::vector<TraceEvent> events;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    TraceEvent event;
    words >> event.event;
    std::map<std::string, std::string> fields;
    for (std::string word; words >> word;) {
      const std::size_t eq = word.find('=');
      if (eq != std::string::npos) fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    event.pid = std::stol(fields.at("pid"));
    event.tid = std::stol(fields.at("tid"));
    event.t_ns = std::stoll(fields.at("t_ns"));
    event.wait_ns = std::stoll(fields.at("wait_ns"));
    event.cap = static_cast<unsigned>(std::stoul(fields.at("cap")));
    event.kernel = fields.at("kernel");
    events.push_back(event);
  }
  return events;
}

// A compile as the trace shows it: asked for a slot, had it, gave it back.
struct Span {
  long pid = 0;
  std::int64_t asked = 0;
  std::int64_t start = 0;
  std::int64_t end = 0;
  unsigned cap = 0;
  std::string kernel;
};

// Each acquired line with the released line of the same thread after it (a thread
// writes its own lines in order). A span with no end (a killed holder) ends at `open_end`.
std::vector<Span> spans_of(const std::vector<TraceEvent>& events, std::int64_t open_end) {
  std::vector<Span> spans;
  std::map<std::pair<long, long>, std::size_t> open;
  for (const TraceEvent& event : events) {
    const auto thread = std::make_pair(event.pid, event.tid);
    if (event.event == "acquired") {
      open[thread] = spans.size();
      spans.push_back(
          {event.pid, event.t_ns - event.wait_ns, event.t_ns, open_end, event.cap, event.kernel});
    } else if (event.event == "released") {
      auto it = open.find(thread);
      EXPECT_NE(it, open.end()) << "released without acquired: pid " << event.pid;
      if (it == open.end()) continue;
      EXPECT_EQ(spans[it->second].kernel, event.kernel);
      spans[it->second].end = event.t_ns;
      open.erase(it);
    } else {
      ADD_FAILURE() << "unknown trace event " << event.event;
    }
  }
  return spans;
}

// The most spans in progress at one instant (an end before a start at the same time).
int most_at_once(const std::vector<Span>& spans) {
  std::vector<std::pair<std::int64_t, int>> edges;
  for (const Span& span : spans) {
    edges.push_back({span.start, +1});
    edges.push_back({span.end, -1});
  }
  std::sort(edges.begin(), edges.end());
  int running = 0, most = 0;
  for (const auto& edge : edges) {
    running += edge.second;
    most = std::max(most, running);
  }
  return most;
}

bool wait_until(const std::function<bool()>& done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::string file_text(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// The pid a child printed with "ready pid=N" (0 before it did).
long ready_pid(const std::string& output_path) {
  const std::string text = file_text(output_path);
  const std::size_t at = text.find("ready pid=");
  return at == std::string::npos ? 0 : std::stol(text.substr(at + 10));
}

// A scope of the test's own, its semaphore sets removed at the end.
class PrivateScope {
 public:
  explicit PrivateScope(const TempDir& dir) : name_("test" + dir.path()) {}
  ~PrivateScope() {
    for (unsigned slots : {1u, 2u, detail::default_compile_cap()})
      SlotSemaphore::remove(slots, name_);
  }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// A pipe whose read end the children inherit: they wait on it until it is closed
// here, so that they start compiling together.
class StartGate {
 public:
  StartGate() {
    if (::pipe2(ends_, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    ::fcntl(ends_[0], F_SETFD, 0);  // inherited by the children, the write end is not
  }
  ~StartGate() {
    close_end(0);
    close_end(1);
  }
  int read_end() const { return ends_[0]; }
  void open_gate() {
    close_end(0);
    close_end(1);
  }

 private:
  void close_end(int which) {
    if (ends_[which] >= 0) ::close(ends_[which]);
    ends_[which] = -1;
  }
  int ends_[2] = {-1, -1};
};

struct CapRun {
  TempDir dir;
  PrivateScope scope{dir};
  std::string trace = dir / "trace.txt";

  // The environment of a child under cap `cap`; `compile_timeout` "0" compiles in the
  // process, "" through the compile worker.
  std::vector<std::string> env(const std::string& cap,
                               const std::string& compile_timeout = "0") const {
    std::vector<std::string> env{"STUBJIT_BACKEND=cpu",
                                 "STUBJIT_CACHE=off",
                                 "STUBJIT_LOG=info",
                                 "STUBJIT_MAX_PARALLEL_COMPILES=" + cap,
                                 "STUBJIT_COMPILE_CAP_SCOPE=" + scope.name(),
                                 "STUBJIT_COMPILE_TRACE=" + trace};
    env.push_back(compile_timeout.empty() ? "STUBJIT_COMPILE_TIMEOUT=120"
                                          : "STUBJIT_COMPILE_TIMEOUT=" + compile_timeout);
    return env;
  }

  Child compiler(const std::string& name, const std::vector<std::string>& env, int start_fd,
                 int first, int count) const {
    return Child({STUBJIT_COMPILE_CAP_CHILD, "compile", std::to_string(start_fd),
                  std::to_string(first), std::to_string(count)},
                 env, dir / name);
  }
};

// Whether process `pid` (a child not yet waited for) has ended: gone or a zombie.
bool ended(long pid) {
  const std::string stat = file_text("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t name_end = stat.rfind(')');
  return name_end == std::string::npos || stat.substr(name_end + 2, 1) == "Z";
}

// Waits (up to 120 s) for a child to end; kills it past that, so a slot that never
// comes back fails the test instead of hanging it.
ChildReport finish(Child& child, const std::string& output_path) {
  const long pid = ready_pid(output_path);
  const bool done = pid == 0 || wait_until([&] { return ended(pid); }, std::chrono::seconds(120));
  if (!done) {
    ::kill(static_cast<pid_t>(pid), SIGKILL);
    ADD_FAILURE() << output_path << " did not finish within 120 s";
  }
  return child.wait();
}

// Starts `processes` children together, each compiling `each` kernels of its own;
// their reports.
std::vector<ChildReport> run_together(const CapRun& setup, const std::vector<std::string>& env,
                                      int processes, int each) {
  StartGate gate;
  std::vector<Child> children;
  std::vector<std::string> outputs;
  children.reserve(static_cast<std::size_t>(processes));
  for (int p = 0; p < processes; ++p) {
    outputs.push_back(setup.dir / ("child" + std::to_string(p) + ".txt"));
    children.push_back(
        setup.compiler("child" + std::to_string(p) + ".txt", env, gate.read_end(), p * each, each));
  }
  const bool ready = wait_until(
      [&] {
        return std::all_of(outputs.begin(), outputs.end(), [](const std::string& output) {
          return ready_pid(output) != 0 || !file_text(output + ".err").empty();
        });
      },
      std::chrono::seconds(120));
  EXPECT_TRUE(ready) << "not every child got ready";
  gate.open_gate();
  std::vector<ChildReport> reports;
  for (std::size_t p = 0; p < children.size(); ++p) {
    ChildReport report = finish(children[p], outputs[p]);
    EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
    EXPECT_EQ(report.fields["results"], "ok") << report.output << report.errors;
    EXPECT_EQ(report.number("compiles"), static_cast<std::uint64_t>(each)) << report.output;
    reports.push_back(std::move(report));
  }
  return reports;
}

// For each wait in `spans`, how many slots other processes were given while it
// waited; the most over all waits, and the most one other process was given in one
// wait. Served in arrival order, a waiter sees each other process served at most once
// (its next request queues behind the waiter): about processes-1 grants in all.
struct Overtakes {
  int most_in_one_wait = 0;
  int most_by_one_process = 0;
};

Overtakes overtakes_of(const std::vector<Span>& spans) {
  Overtakes found;
  for (const Span& waiter : spans) {
    std::map<long, int> by_process;
    int all = 0;
    for (const Span& other : spans) {
      if (other.pid == waiter.pid || other.start <= waiter.asked || other.start >= waiter.start)
        continue;
      ++all;
      found.most_by_one_process = std::max(found.most_by_one_process, ++by_process[other.pid]);
    }
    found.most_in_one_wait = std::max(found.most_in_one_wait, all);
  }
  return found;
}

// The cap needs System V semaphores: a sandbox without them runs compiles uncapped (the
// same fallback as for a set that fails the checks, last test), and these tests skip.
class CompileCap : public ::testing::Test {
 protected:
  void SetUp() override {
    const int probe = ::semget(IPC_PRIVATE, 1, 0600);
    if (probe < 0) GTEST_SKIP() << "no System V semaphores here: " << std::strerror(errno);
    ::semctl(probe, 0, IPC_RMID);
  }
};

TEST(CompileCapSetting, CountsOffAndNonsense) {
  EXPECT_EQ(detail::parse_compile_cap("1"), 1u);
  EXPECT_EQ(detail::parse_compile_cap("2"), 2u);
  EXPECT_EQ(detail::parse_compile_cap("32767"), 32767u);
  EXPECT_EQ(detail::parse_compile_cap("0"), 0u);
  EXPECT_EQ(detail::parse_compile_cap("off"), 0u);
  EXPECT_EQ(detail::parse_compile_cap("OFF"), 0u);
  EXPECT_EQ(detail::parse_compile_cap("no"), 0u);
  EXPECT_EQ(detail::parse_compile_cap("false"), 0u);
  for (const char* bad : {"", "-1", "2.5", " 4", "4 ", "two", "32768", "99999999999", "0x4", "+3"})
    EXPECT_EQ(detail::parse_compile_cap(bad), std::nullopt) << bad;
}

TEST(CompileCapSetting, UnsetMeansTheProcessorsOnline) {
  ScopedEnv unset("STUBJIT_MAX_PARALLEL_COMPILES", std::nullopt);
  EXPECT_EQ(detail::compile_cap_from_environment().slots, std::thread::hardware_concurrency());
  ScopedEnv empty("STUBJIT_MAX_PARALLEL_COMPILES", "");
  EXPECT_EQ(detail::compile_cap_from_environment().slots, std::thread::hardware_concurrency());
  ScopedEnv bad("STUBJIT_MAX_PARALLEL_COMPILES", "many");
  EXPECT_EQ(detail::compile_cap_from_environment().slots, std::thread::hardware_concurrency());
  ScopedEnv off("STUBJIT_MAX_PARALLEL_COMPILES", "off");
  EXPECT_EQ(detail::compile_cap_from_environment().slots, 0u);
}

// 32 processes start compiling at once, 3 kernels each, in process, under a cap of 2.
TEST_F(CompileCap, ThirtyTwoColdStartsRunTwoCompilesAtATimeInArrivalOrder) {
  constexpr int processes = 32, each = 3;
  CapRun setup;
  run_together(setup, setup.env("2"), processes, each);

  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), std::size_t(processes * each));
  std::int64_t longest_compile = 0, longest_wait = 0;
  for (const Span& span : spans) {
    EXPECT_EQ(span.cap, 2u);
    ASSERT_GE(span.end, span.start) << "a compile never gave its slot back";
    longest_compile = std::max(longest_compile, span.end - span.start);
    longest_wait = std::max(longest_wait, span.start - span.asked);
  }
  EXPECT_EQ(most_at_once(spans), 2) << "the cap is 2: never more, and not serialized to 1";

  // Nobody starves. Counted, not timed: while a process waited, each other process got
  // a slot at most once in arrival order, 31 grants in all. The traced wait is a little
  // wider than the queueing (its ends are read before the request and after the grant):
  // up to K more grants at each end, and slack for a process preempted there. A waiter
  // passed over for whole rounds sees up to 93 (a build that polls: 89 to 91).
  const Overtakes overtakes = overtakes_of(spans);
  EXPECT_LE(overtakes.most_in_one_wait, processes - 1 + 2 * 2 + 4);
  // And timed, loosely: a wait is at most ceil(31/2) compiles of others, plus slack for
  // a loaded machine.
  const std::int64_t bound = (16 + 8) * longest_compile + 2'000'000'000;
  EXPECT_LE(longest_wait, bound) << "longest compile " << longest_compile / 1000000 << " ms";
  std::printf(
      "[ figures  ] longest compile %.0f ms, longest wait %.0f ms (bound %.0f ms); "
      "most grants to others in one wait %d, most to one other %d\n",
      longest_compile / 1e6, longest_wait / 1e6, bound / 1e6, overtakes.most_in_one_wait,
      overtakes.most_by_one_process);

  // The set this user made is private to them.
  const int id = ::semget(SlotSemaphore::key(2, setup.scope.name()), 0, 0);
  ASSERT_GE(id, 0);
  semid_ds status{};
  ASSERT_EQ(::semctl(id, 0, IPC_STAT, &status), 0);
  EXPECT_EQ(status.sem_perm.mode & 0777, 0600u);
  EXPECT_EQ(status.sem_perm.cuid, ::geteuid());
  EXPECT_EQ(::semctl(id, 0, GETVAL), 2) << "every slot came back";
}

// The same through compile workers (a compile time limit set): the cap holds around
// the worker's compile.
TEST_F(CompileCap, ColdStartsThroughCompileWorkersKeepTheCap) {
  constexpr int processes = 8, each = 2;
  CapRun setup;
  for (const ChildReport& report : run_together(setup, setup.env("2", ""), processes, each))
    EXPECT_EQ(report.errors.find("without their time limit"), std::string::npos)
        << "compiled in process, not through a worker: " << report.errors;
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), std::size_t(processes * each));
  EXPECT_EQ(most_at_once(spans), 2);
}

// A slot held by another process: a compile waits for it, and starts only once it is
// given back. With one slot, compiles run one at a time.
TEST_F(CompileCap, OneSlotSerializesAndAWaiterStartsOnlyWhenTheSlotIsFree) {
  CapRun setup;
  ScopedEnv cap("STUBJIT_MAX_PARALLEL_COMPILES", "1");
  ScopedEnv scope("STUBJIT_COMPILE_CAP_SCOPE", setup.scope.name());
  ScopedEnv trace("STUBJIT_COMPILE_TRACE", std::nullopt);
  // Declared before the slot, so that a failed assertion gives the slot back (destroyed
  // first) before the children, which wait for it, are waited for.
  std::vector<Child> children;
  std::vector<std::string> outputs;
  auto held = std::make_unique<detail::CompileSlot>("held-by-the-test");
  for (int p = 0; p < 3; ++p) {
    outputs.push_back(setup.dir / ("child" + std::to_string(p) + ".txt"));
    children.push_back(
        setup.compiler("child" + std::to_string(p) + ".txt", setup.env("1"), -1, p * 2, 2));
  }
  ASSERT_TRUE(wait_until(
      [&] {
        return std::all_of(outputs.begin(), outputs.end(),
                           [](const std::string& output) { return ready_pid(output) != 0; });
      },
      std::chrono::seconds(120)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(read_trace(setup.trace).empty()) << "a compile ran while the test held the slot";
  const std::int64_t given_back = now_ns();
  held.reset();
  for (std::size_t p = 0; p < children.size(); ++p) {
    ChildReport report = finish(children[p], outputs[p]);
    EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
    EXPECT_EQ(report.fields["results"], "ok");
  }
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), 6u);
  for (const Span& span : spans) EXPECT_GT(span.start, given_back) << span.kernel;
  EXPECT_EQ(most_at_once(spans), 1);
}

// A process killed with SIGKILL while it holds the only slot: the kernel gives the
// slot back, and the compile waiting for it runs.
TEST_F(CompileCap, AProcessKilledHoldingTheSlotGivesItBack) {
  CapRun setup;
  const std::string holder_output = setup.dir / "holder.txt";
  Child holder({STUBJIT_COMPILE_CAP_CHILD, "hold"}, setup.env("1"), holder_output);
  // A failed assertion before the kill below must not leave the holder (which waits for
  // ever) to the destructor's wait: stopped first.
  struct StopOnExit {
    Child& child;
    ~StopOnExit() { child.kill(); }
  } stop_holder{holder};
  ASSERT_TRUE(wait_until([&] { return file_text(holder_output).find("held") != std::string::npos; },
                         std::chrono::seconds(60)))
      << file_text(holder_output + ".err");
  const std::vector<TraceEvent> held = read_trace(setup.trace);
  ASSERT_EQ(held.size(), 1u);
  ASSERT_EQ(held[0].kernel, "holder");

  const std::string waiter_output = setup.dir / "waiter.txt";
  Child waiter = setup.compiler("waiter.txt", setup.env("1"), -1, 0, 1);
  ASSERT_TRUE(wait_until([&] { return ready_pid(waiter_output) != 0; }, std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(read_trace(setup.trace).size(), 1u) << "a compile ran beside the holder";

  const std::int64_t killed = now_ns();
  ASSERT_EQ(::kill(static_cast<pid_t>(held[0].pid), SIGKILL), 0);
  EXPECT_EQ(holder.wait().exit_code, 128 + SIGKILL);
  ChildReport report = finish(waiter, waiter_output);
  EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
  EXPECT_EQ(report.fields["results"], "ok");
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), killed);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].kernel, "cap0");
  EXPECT_GT(spans[1].start, killed);
}

// The processes whose parent is `parent`, from /proc ("pid (comm) state ppid ...").
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = file_text(entry.path() / "stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

// Whether `pid` is a compile worker that still runs: a stopped worker's number may
// belong to another process by the time a test cleans up.
bool worker_running(pid_t pid) {
  return !ended(pid) &&
         file_text("/proc/" + std::to_string(pid) + "/stat").find("(stubjit-compile") !=
             std::string::npos;
}

// A process killed in the middle of a compile leaves no compile running: its compile
// worker, whose compile would take minutes, stops as soon as the process is gone
// (nothing would wait for that compile, nor stop it at its time limit).
TEST_F(CompileCap, AProcessKilledMidCompileTakesItsCompileWithIt) {
  CapRun setup;
  const std::string output = setup.dir / "slow.txt";
  Child slow({STUBJIT_COMPILE_CAP_CHILD, "slow"}, setup.env("2", ""), output);
  std::vector<pid_t> workers;
  struct StopOnExit {  // whatever fails below, nothing is left running
    Child& child;
    std::vector<pid_t>& workers;
    ~StopOnExit() {
      child.kill();
      for (pid_t worker : workers)
        if (worker_running(worker)) ::kill(worker, SIGKILL);
    }
  } stop{slow, workers};
  ASSERT_TRUE(wait_until([&] { return ready_pid(output) != 0; }, std::chrono::seconds(60)))
      << file_text(output) << file_text(output + ".err");
  const pid_t parent = ready_pid(output);
  // The compile has started once the slot is taken and the worker is there.
  ASSERT_TRUE(wait_until(
      [&] {
        workers = children_of(parent);
        return !workers.empty() && !read_trace(setup.trace).empty();
      },
      std::chrono::seconds(60)))
      << file_text(output + ".err");
  ASSERT_EQ(workers.size(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // well into the compile
  ASSERT_TRUE(worker_running(workers[0]));
  ASSERT_EQ(::kill(parent, SIGKILL), 0);
  EXPECT_EQ(slow.wait().exit_code, 128 + SIGKILL);
  EXPECT_TRUE(wait_until([&] { return !worker_running(workers[0]); }, std::chrono::seconds(20)))
      << "the compile worker of a killed process still runs";
  EXPECT_EQ(file_text(output).find("compiled"), std::string::npos);
}

// With the test holding the one slot of cap 1: no cap (0, off) and another cap (2)
// do not wait for it.
TEST_F(CompileCap, NoCapAndOtherCapsDoNotWaitForASlotOfCapOne) {
  CapRun setup;
  ScopedEnv cap("STUBJIT_MAX_PARALLEL_COMPILES", "1");
  ScopedEnv scope("STUBJIT_COMPILE_CAP_SCOPE", setup.scope.name());
  ScopedEnv trace("STUBJIT_COMPILE_TRACE", std::nullopt);
  const detail::CompileSlot held("held-by-the-test");
  const std::vector<std::string> caps{"0", "off", "2"};
  for (std::size_t c = 0; c < caps.size(); ++c) {
    const std::string output = setup.dir / ("child" + std::to_string(c) + ".txt");
    Child child = setup.compiler("child" + std::to_string(c) + ".txt", setup.env(caps[c]), -1,
                                 static_cast<int>(c), 1);
    ChildReport report = finish(child, output);
    EXPECT_EQ(report.exit_code, 0) << caps[c] << ": " << report.output << report.errors;
    EXPECT_EQ(report.fields["results"], "ok") << caps[c];
  }
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].cap, 0u);
  EXPECT_EQ(spans[1].cap, 0u);
  EXPECT_EQ(spans[2].cap, 2u);
}

// A value that is no count: a warning naming it, and the default cap.
TEST_F(CompileCap, AnInvalidValueWarnsAndKeepsTheDefault) {
  CapRun setup;
  const std::string output = setup.dir / "child.txt";
  Child child = setup.compiler("child.txt", setup.env("two"), -1, 0, 1);
  ChildReport report = finish(child, output);
  EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
  EXPECT_EQ(report.fields["results"], "ok");
  EXPECT_NE(report.errors.find("STUBJIT_MAX_PARALLEL_COMPILES=two is not a count"),
            std::string::npos)
      << report.errors;
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].cap, std::thread::hardware_concurrency());
}

// A set under the key that is not such a set of this user's (here: one semaphore,
// not two; another user's is refused the same way) is not used: compiles run without
// a cap, and one info line says why.
TEST_F(CompileCap, ASetUnderTheKeyThatIsNotOursIsNotUsed) {
  CapRun setup;
  const int squatter = ::semget(SlotSemaphore::key(1, setup.scope.name()), 1, IPC_CREAT | 0600);
  ASSERT_GE(squatter, 0);
  const SlotSemaphore refused(1, setup.scope.name());
  EXPECT_FALSE(refused.valid());
  EXPECT_NE(refused.why().find("key"), std::string::npos) << refused.why();

  const std::string output = setup.dir / "child.txt";
  Child child = setup.compiler("child.txt", setup.env("1"), -1, 0, 2);
  ChildReport report = finish(child, output);
  EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
  EXPECT_EQ(report.fields["results"], "ok");
  const std::string info = "compiles are not capped at 1 on this node";
  const std::size_t first = report.errors.find(info);
  EXPECT_NE(first, std::string::npos) << report.errors;
  EXPECT_EQ(report.errors.find(info, first + 1), std::string::npos) << "said once";
  const std::vector<Span> spans = spans_of(read_trace(setup.trace), -1);
  ASSERT_EQ(spans.size(), 2u);
  for (const Span& span : spans) EXPECT_EQ(span.cap, 0u);
  ::semctl(squatter, 0, IPC_RMID);
}

// A set of the right shape that grants others access (as another user's set made
// world-writable, or one given to us with IPC_SET, would) is refused too.
TEST_F(CompileCap, ASetOthersMayAlterIsNotUsed) {
  CapRun setup;
  const int open_to_all = ::semget(SlotSemaphore::key(1, setup.scope.name()), 2, IPC_CREAT | 0666);
  ASSERT_GE(open_to_all, 0);
  const SlotSemaphore refused(1, setup.scope.name());
  EXPECT_FALSE(refused.valid());
  EXPECT_NE(refused.why().find("private"), std::string::npos) << refused.why();
  EXPECT_EQ(::semctl(open_to_all, 1, GETVAL), 0) << "the refused set was not set up";
  ::semctl(open_to_all, 0, IPC_RMID);
}

// The trace file is never reached through a symbolic link: the link's target stays as
// it was, and one warning names the trace.
TEST_F(CompileCap, TheTraceDoesNotFollowASymbolicLink) {
  CapRun setup;
  const std::string target = setup.dir / "target.txt";
  std::ofstream(target) << "unchanged\n";
  ASSERT_EQ(::symlink(target.c_str(), setup.trace.c_str()), 0);
  const std::string output = setup.dir / "child.txt";
  Child child = setup.compiler("child.txt", setup.env("2"), -1, 0, 2);
  ChildReport report = finish(child, output);
  EXPECT_EQ(report.exit_code, 0) << report.output << report.errors;
  EXPECT_EQ(report.fields["results"], "ok");
  EXPECT_EQ(file_text(target), "unchanged\n");
  const std::string warning = "cannot write the compile trace to " + setup.trace;
  const std::size_t first = report.errors.find(warning);
  EXPECT_NE(first, std::string::npos) << report.errors;
  EXPECT_EQ(report.errors.find(warning, first + 1), std::string::npos) << "said once";
}

}  // namespace
}  // namespace stubjit
