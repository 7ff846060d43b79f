// StagePrefetch (runtime/stage_prefetch.hpp): the later stage's stub of a two-stage
// launch built on a thread of its own while the caller builds the earlier one's, and
// nothing started where a stub is at hand, the kernel's table is full, or a
// StubCollection defers builds on the caller's thread. The toolchain here holds each
// compile until as many have started as the test expects at once, so a prefetch that
// ran after the caller's compile instead of beside it fails (most_at_once stays 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/cpu/cpu_backend.hpp"
#include "backends/remote_toolchain.hpp"
#include "codegen/stub_request.hpp"
#include "common/scoped_env.hpp"
#include "runtime/kernel_state.hpp"
#include "runtime/launch_steps.hpp"
#include "runtime/scan_launch.hpp"
#include "runtime/sort_launch.hpp"
#include "runtime/stage_prefetch.hpp"
#include "runtime/stub_builder.hpp"
#include "stubjit/error.hpp"

namespace stubjit::detail {
namespace {

using i64 = std::int64_t;

// The runtime's toolchain, but each compile waits (at most 20 s) until `meet` compiles
// are running, the most that ran at once is counted, and `ready` compilers are said to
// be ready.
class MeetingToolchain : public Toolchain {
 public:
  MeetingToolchain(std::unique_ptr<Toolchain> real, int meet)
      : real_(std::move(real)), meet_(meet) {}

  std::size_t ready = unlimited;
  std::size_t ready_compilers() const override { return ready; }

  const TargetTraits& traits() const override { return real_->traits(); }
  std::string target_id() const override { return real_->target_id(); }
  std::string compiler_id() const override { return real_->compiler_id(); }
  DeviceLimits typical_limits() const override { return real_->typical_limits(); }

  Binary compile(const CompileJob& job) const override {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++running_;
      most_at_once_ = std::max(most_at_once_, running_);
      met_.notify_all();
      met_.wait_for(lock, std::chrono::seconds(20), [&] { return running_ >= meet_; });
    }
    struct Leave {
      const MeetingToolchain& toolchain;
      ~Leave() {
        std::lock_guard<std::mutex> lock(toolchain.mutex_);
        --toolchain.running_;
      }
    } leave{*this};
    return real_->compile(job);
  }

  const Toolchain& real() const { return *real_; }

  int most_at_once() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return most_at_once_;
  }

 private:
  std::unique_ptr<Toolchain> real_;
  const int meet_;
  mutable std::mutex mutex_;
  mutable std::condition_variable met_;
  mutable int running_ = 0;
  mutable int most_at_once_ = 0;
};

class StagePrefetchTest : public ::testing::Test {
 protected:
  // No node-wide compile cap: its slots are shared with the other test processes, and
  // two tests each holding one slot while waiting for a second compile would wait for
  // each other.
  test::ScopedEnv no_cap_{"STUBJIT_MAX_PARALLEL_COMPILES", "off"};

  // A CPU runtime whose compiles meet `meet` at a time, and a kernel of `body`.
  void open(int meet, const std::string& body = "y = a * x + y;") {
    open(meet,
         KernelSource{"saxpy", {scalar<float>("a"), in<float>("x"), inout<float>("y")}, body});
  }
  void open(int meet, KernelSource source) {
    RuntimeOptions options;
    options.backend = "cpu";
    options.disk_cache = false;
    // Compiles go to compile workers, as by default. Clang in this process would, on
    // the first thread that compiles, put LLVM's own signal stack in place of
    // AddressSanitizer's, which then fails to unmap it when a prefetch's thread ends.
    runtime_ = std::make_shared<RuntimeState>(options);
    auto meeting = std::make_unique<MeetingToolchain>(std::move(runtime_->toolchain), meet);
    toolchain_ = meeting.get();
    runtime_->toolchain = std::move(meeting);
    kernel_ = std::make_unique<KernelState>(runtime_, std::move(source));
  }

  // The kernel's direct stub of `rank`.
  StubIdentity identity(int rank) const {
    StubVariant variant;
    variant.rank = static_cast<std::uint8_t>(rank);
    variant.bindings = {Binding::scalar, Binding::projection, Binding::projection};
    return StubIdentity::of(*kernel_->identity, *runtime_->toolchain_identity, variant);
  }

  std::shared_ptr<RuntimeState> runtime_;
  MeetingToolchain* toolchain_ = nullptr;
  std::unique_ptr<KernelState> kernel_;
};

TEST_F(StagePrefetchTest, TwoStubsToBuildAreCompiledAtOnce) {
  open(2);
  toolchain_->ready = 0;  // a process's first compiles: both start their compilers
  const StubIdentity first = identity(1), later = identity(2);
  LaunchSummary summary;
  std::shared_ptr<const LoadedStub> hold_first, hold_later;
  StagePrefetch prefetch;
  prefetch.start(*kernel_, first, later, StagePrefetch::Start::long_later);
  EXPECT_TRUE(prefetch.started());
  const LoadedStub& built_first = stub_found(*kernel_, first, summary, hold_first);
  const LoadedStub& built_later = prefetch.get(*kernel_, later, summary, hold_later);
  EXPECT_EQ(toolchain_->most_at_once(), 2);
  EXPECT_TRUE(summary.compiled);
  EXPECT_EQ(runtime_->compiles.load(), 2u);
  EXPECT_EQ(built_first.entry, "stubjit_saxpy_direct_r1");
  EXPECT_EQ(built_later.entry, "stubjit_saxpy_direct_r2");
  EXPECT_NE(built_later.module, nullptr);
  // Both are the kernel's now: the next launch's find neither compiles nor starts.
  ASSERT_NE(kernel_->stubs.find(later), nullptr);
  EXPECT_EQ(kernel_->stubs.find(later)->stub.get(), &built_later);
  StagePrefetch again;
  again.start(*kernel_, first, later, StagePrefetch::Start::long_later);
  EXPECT_FALSE(again.started());
  LaunchSummary second;
  std::shared_ptr<const LoadedStub> hold;
  EXPECT_EQ(&again.get(*kernel_, later, second, hold), &built_later);
  EXPECT_FALSE(second.compiled);
  EXPECT_EQ(runtime_->compiles.load(), 2u);
}

TEST_F(StagePrefetchTest, NothingStartsWhereEitherStubIsInTheKernelsTable) {
  open(1);
  LaunchSummary summary;
  std::shared_ptr<const LoadedStub> hold;
  stub_found(*kernel_, identity(1), summary, hold);
  for (const bool known_first : {true, false}) {
    StagePrefetch prefetch;
    if (known_first)
      prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
    else
      prefetch.start(*kernel_, identity(2), identity(1), StagePrefetch::Start::long_later);
    EXPECT_FALSE(prefetch.started()) << known_first;
  }
  // Found on this thread instead, one compile at a time.
  StagePrefetch prefetch;
  prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
  EXPECT_EQ(prefetch.get(*kernel_, identity(2), summary, hold).entry, "stubjit_saxpy_direct_r2");
  EXPECT_EQ(toolchain_->most_at_once(), 1);
  EXPECT_EQ(runtime_->compiles.load(), 2u);
}

TEST_F(StagePrefetchTest, NothingStartsWhereTheKernelsTableIsFull) {
  open(1);
  // Every slot taken by a stub of some other variant (the table keeps whatever it is
  // given: the records are never run here).
  for (std::size_t k = 0; k < KernelStubs::capacity; ++k) {
    StubVariant variant;
    variant.mode = Mode::spread;
    variant.rank = 4;
    variant.bindings = {Binding::scalar, Binding::projection, Binding::projection};
    variant.specialized.count = 1;
    variant.specialized.bits[0] = k + 1;
    kernel_->stubs.remember(
        StubIdentity::of(*kernel_->identity, *runtime_->toolchain_identity, variant), nullptr,
        nullptr);
  }
  ASSERT_TRUE(kernel_->stubs.full());
  StagePrefetch prefetch;
  prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
  EXPECT_FALSE(prefetch.started());
  EXPECT_EQ(runtime_->compiles.load(), 0u);
}

TEST_F(StagePrefetchTest, NothingStartsWhileACollectionDefersOnThisThread) {
  open(1);
  std::vector<StubOrder> orders;
  {
    StubCollection collection(*runtime_, orders);
    StagePrefetch prefetch;
    prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
    EXPECT_FALSE(prefetch.started());
    // Deferred by the collection, as without a prefetch: ordered, not compiled.
    LaunchSummary summary;
    std::shared_ptr<const LoadedStub> hold;
    bool deferred = false;
    try {
      prefetch.get(*kernel_, identity(2), summary, hold);
    } catch (const StubDeferred&) {
      deferred = true;
    }
    EXPECT_TRUE(deferred);
  }
  EXPECT_EQ(orders.size(), 1u);
  EXPECT_EQ(runtime_->compiles.load(), 0u);
  // Without it, the prefetch starts.
  StagePrefetch prefetch;
  prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
  EXPECT_TRUE(prefetch.started());
}

// A short later stage starts only where two compilers are ready; a long one also where
// none is (both start theirs), but not where one is.
TEST_F(StagePrefetchTest, WhetherItStartsFollowsTheReadyCompilers) {
  using Start = StagePrefetch::Start;
  struct Case {
    std::size_t ready;
    Start when;
    bool starts;
  };
  for (const Case& c : {Case{0, Start::long_later, true}, Case{1, Start::long_later, false},
                        Case{2, Start::long_later, true}, Case{0, Start::short_later, false},
                        Case{1, Start::short_later, false}, Case{2, Start::short_later, true},
                        Case{Toolchain::unlimited, Start::short_later, true}}) {
    open(1);  // a new kernel each time: a started thread leaves its stub in the table
    toolchain_->ready = c.ready;
    StagePrefetch prefetch;
    prefetch.start(*kernel_, identity(1), identity(2), c.when);
    EXPECT_EQ(prefetch.started(), c.starts)
        << c.ready << " ready, " << (c.when == Start::long_later ? "long" : "short");
  }
}

TEST_F(StagePrefetchTest, NothingStartsWhereTheNodeRunsOneCompileAtATime) {
  open(1);
  const test::ScopedEnv one_at_a_time("STUBJIT_MAX_PARALLEL_COMPILES", "1");
  StagePrefetch prefetch;
  prefetch.start(*kernel_, identity(1), identity(2), StagePrefetch::Start::long_later);
  EXPECT_FALSE(prefetch.started());
}

// Through a sort's launch (find_stage_pair): with no compiler ready, its runs and merge
// stubs compile at once, and the keys come out sorted; with one ready, in turn.
TEST_F(StagePrefetchTest, ASplitSortCompilesItsStagesAtOnceWhereNoneOrTwoAreReady) {
  const i64 n = 40000;  // two parts or more on any host
  std::vector<i64> keys(static_cast<std::size_t>(n));
  for (i64 k = 0; k < n; ++k) keys[std::size_t(k)] = (k * 7919) % n;
  for (const std::size_t ready : {std::size_t(0), std::size_t(2), std::size_t(1)}) {
    const bool beside = ready != 1;
    open(beside ? 2 : 1, KernelSource{"sort_keys", {sort<i64>("x")}, ""});
    toolchain_->ready = ready;
    Field x = allocate_field(runtime_, ElementType::i64, {n}, Layout::row_major);
    x.copy_from(keys);
    const Arg args[] = {x};
    const LaunchSummary summary =
        launch_sort(*kernel_, Domain{n}, args, 1, LaunchOptions{}, runtime_->default_stream.get());
    EXPECT_GT(summary.reduce_parts, 1u) << ready;
    EXPECT_TRUE(summary.compiled);
    EXPECT_EQ(runtime_->compiles.load(), 2u) << ready;
    EXPECT_EQ(toolchain_->most_at_once(), beside ? 2 : 1) << ready << " ready";
    const std::vector<i64> got = x.to_vector<i64>();
    for (i64 k = 0; k < n; ++k) {
      if (got[std::size_t(k)] != k) {
        ADD_FAILURE() << "key " << k << " is " << got[std::size_t(k)] << ", " << ready << " ready";
        break;
      }
    }
  }
}

// Through a scan's prepare: its partials and scan stubs compile at once only where two
// compilers are ready.
TEST_F(StagePrefetchTest, ASplitScanCompilesItsStagesAtOnceOnlyWhereTwoAreReady) {
  const i64 n = i64(1) << 22;  // parts on any host
  for (const std::size_t ready : {std::size_t(2), std::size_t(1), std::size_t(0)}) {
    const bool beside = ready == 2;
    open(beside ? 2 : 1,
         KernelSource{"scan_sum", {in<double>("x"), scan<double>("s", Combiner::sum)}, "s = x;"});
    toolchain_->ready = ready;
    Field x = allocate_field(runtime_, ElementType::f64, {n}, Layout::row_major);
    Field s = allocate_field(runtime_, ElementType::f64, {n}, Layout::row_major);
    const Arg args[] = {x, s};
    std::optional<StubIdentity> identity;
    const LaunchSummary summary =
        prepare_scan(*kernel_, Domain{n}, args, 2, LaunchOptions{}, identity, false);
    EXPECT_GT(summary.reduce_parts, 1u) << ready;
    EXPECT_EQ(runtime_->compiles.load(), 2u) << ready;
    EXPECT_EQ(toolchain_->most_at_once(), beside ? 2 : 1) << ready << " ready";
  }
}

// The compile workers (remote_toolchain.hpp) say how many of them wait in the pool: two
// after two compiles ran at once, whatever the pool held before (it keeps at least two).
TEST(RemoteToolchainReady, TwoCompilesAtOnceLeaveTwoWorkersReady) {
  MeetingToolchain meeting(
      make_remote_toolchain(make_cpu_toolchain(), "cpu", std::chrono::seconds(60)), 2);
  const Toolchain& remote = meeting.real();
  const KernelSource source{"ready", {inout<float>("y")}, "y = 1;"};
  StubRequest request;
  request.kernel = &source;
  request.bindings = {Binding::projection};
  const GeneratedStub stub = generate_stub(request);
  const std::vector<std::string> options;
  const auto compile = [&] {
    meeting.compile({stub.source, stub.file_name, stub.entry, source.name, options});
  };
  std::thread beside(compile);
  compile();
  beside.join();
  EXPECT_EQ(meeting.most_at_once(), 2);
  EXPECT_GE(remote.ready_compilers(), 2u);
  EXPECT_NE(remote.ready_compilers(), Toolchain::unlimited);
}

TEST_F(StagePrefetchTest, WhatTheThreadThrowsIsThrownByGetAndRemembered) {
  open(2, "y = a * x + undeclared;");
  const StubIdentity first = identity(1), later = identity(2);
  LaunchSummary summary;
  std::shared_ptr<const LoadedStub> hold;
  StagePrefetch prefetch;
  prefetch.start(*kernel_, first, later, StagePrefetch::Start::long_later);
  ASSERT_TRUE(prefetch.started());
  EXPECT_THROW(stub_found(*kernel_, first, summary, hold), CompileError);
  try {
    prefetch.get(*kernel_, later, summary, hold);
    ADD_FAILURE() << "the later stage's compile error was not thrown";
  } catch (const CompileError& error) {
    EXPECT_NE(std::string(error.what()).find("undeclared"), std::string::npos) << error.what();
  }
  EXPECT_EQ(toolchain_->most_at_once(), 2);
  EXPECT_EQ(runtime_->compile_failures.load(), 2u);
  // Remembered as the kernel's: thrown again without compiling.
  ASSERT_NE(kernel_->stubs.find(later), nullptr);
  EXPECT_TRUE(kernel_->stubs.find(later)->failure);
}

}  // namespace
}  // namespace stubjit::detail
