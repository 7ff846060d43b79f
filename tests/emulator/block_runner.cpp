// The fibers switch with _setjmp and _longjmp between stacks, which glibc's fortified
// longjmp refuses as "uninitialized stack frame": CMakeLists.txt builds this file with
// -U_FORTIFY_SOURCE and without the precompiled header (which would fix the fortify
// level before this file is read).
#if defined(_FORTIFY_SOURCE) && _FORTIFY_SOURCE > 0
#error "block_runner.cpp must be compiled without _FORTIFY_SOURCE (tests/emulator/CMakeLists.txt)"
#endif

#include "emulator/block_runner.hpp"

#include <setjmp.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace stubjit::test::emulator {
namespace {

using stubjit_emulator::Context;

// A block's threads that wait for each other run as fibers on the calling host thread,
// each until it waits at a barrier: a host thread per GPU thread made every barrier a
// round of kernel wake-ups, which cost the emulated pattern suites minutes of system
// time each. The fibers run in a scrambled order, as the block's threads do below.
//
// A fiber starts once by makecontext and setcontext; every switch after that is a
// _setjmp and a _longjmp, which keep the signal mask as it is. swapcontext, used for
// every switch before, saved and restored the mask with a system call each time: 12
// million of them in one scan test, which took 15.1 s (6.9 of them in the kernel)
// and now takes 1.3. What a _longjmp does not carry across, and so the fibers share:
// the floating-point control state (rounding, flush to zero), which neither the
// prelude nor any test's kernel changes.
// The sanitizers are not told of the switches (no __sanitizer_start_switch_fiber):
// the emulator runs in the Release pass only (scripts/test.sh).

// The stack of one fiber: 8 MiB as a host thread's, reserved, not committed (the kernel
// commits what a stub touches), with 64 KiB of guard pages below it so that an overflow
// faults instead of writing over the next stack (the stubs are compiled without stack
// clash protection: a frame larger than the guard could still jump it).
class FiberStack {
 public:
  static constexpr std::size_t bytes = std::size_t(8) << 20;

  FiberStack() : guard_(guard_bytes()) {
    void* mapping = mmap(nullptr, bytes + guard_, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED) {
      std::perror("stubjit emulator: mmap of a fiber stack");
      std::abort();
    }
    base_ = static_cast<char*>(mapping);
    if (mprotect(base_, guard_, PROT_NONE) != 0) {
      std::perror("stubjit emulator: mprotect of a fiber stack's guard page");
      std::abort();
    }
  }
  FiberStack(FiberStack&& other) noexcept : guard_(other.guard_), base_(other.base_) {
    other.base_ = nullptr;
  }
  FiberStack& operator=(FiberStack&&) = delete;
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;
  ~FiberStack() {
    if (base_) munmap(base_, bytes + guard_);
  }

  void* bottom() const { return base_ + guard_; }

 private:
  static std::size_t guard_bytes() {
    const long page = sysconf(_SC_PAGESIZE);
    const std::size_t size = page > 0 ? std::size_t(page) : 4096;
    return (std::size_t(64) << 10) / size * size + size;
  }
  std::size_t guard_;
  char* base_;
};

// Stacks kept from one block to the next of this host thread: mapping and first
// touching them per block would cost more than the block runs.
std::vector<FiberStack>& stacks_for(unsigned threads) {
  thread_local std::vector<FiberStack> stacks;
  while (stacks.size() < threads) stacks.emplace_back();
  return stacks;
}

// A reusable barrier for a fixed number of the block's fibers.
struct Barrier {
  explicit Barrier(unsigned count) : count(count) {}
  unsigned count;
  unsigned arrived = 0;
  unsigned generation = 0;
};

struct Fiber {
  ucontext_t start;  // its first entry, at fiber_main
  jmp_buf resume;    // where it goes on after its last yield
  const Context* thread = nullptr;
  bool started = false;
  bool finished = false;
};

// The services of one block whose threads take turns.
struct BlockState {
  BlockState(const BlockLaunch& launch, unsigned threads)
      : launch(launch), block_barrier(threads), slots(threads), fibers(threads) {
    for (unsigned first = 0; first < threads; first += launch.warp_size) {
      const unsigned lanes =
          threads - first < launch.warp_size ? threads - first : launch.warp_size;
      warp_barriers.emplace_back(lanes);
    }
  }
  const BlockLaunch& launch;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;
  std::vector<unsigned long long> slots;  // one per thread, for warp exchanges
  std::vector<Fiber> fibers;              // by linear index
  jmp_buf scheduler;                      // where a yielding or finished fiber returns to
  unsigned running = 0;                   // the linear index of the fiber running
  const Context** current = nullptr;      // the stub's `current`, once attached
  bool progressed = false;                // a fiber arrived at a barrier or finished
};

// The block whose fiber is starting on this host thread (makecontext passes no pointer).
thread_local BlockState* starting_block = nullptr;

// Out of line, as resume_fiber below: _setjmp returns twice, which would make every
// local of a caller it was inlined into suspect (-Wclobbered).
__attribute__((noinline)) void yield_to_scheduler(BlockState& block) {
  if (_setjmp(block.fibers[block.running].resume) == 0) _longjmp(block.scheduler, 1);
}

void wait(BlockState& block, Barrier& barrier) {
  block.progressed = true;
  const unsigned generation = barrier.generation;
  if (++barrier.arrived == barrier.count) {
    barrier.arrived = 0;
    ++barrier.generation;
    return;
  }
  while (barrier.generation == generation) yield_to_scheduler(block);
}

void sync_block(void* state) {
  auto* block = static_cast<BlockState*>(state);
  wait(*block, block->block_barrier);
}

void sync_warp(void* state, unsigned linear) {
  auto* block = static_cast<BlockState*>(state);
  wait(*block, block->warp_barriers[linear / block->launch.warp_size]);
}

unsigned long long exchange(void* state, unsigned linear, unsigned long long value,
                            unsigned source) {
  auto* block = static_cast<BlockState*>(state);
  const unsigned warp_size = block->launch.warp_size;
  const unsigned first = linear / warp_size * warp_size;
  Barrier& warp = block->warp_barriers[linear / warp_size];
  block->slots[linear] = value;
  wait(*block, warp);  // every lane has published
  const unsigned from = first + source;
  const unsigned long long got = from < block->slots.size() ? block->slots[from] : value;
  wait(*block, warp);  // every lane has read before any publishes again
  return got;
}

void attach(void* state, const Context** current) {
  static_cast<BlockState*>(state)->current = current;
}

[[noreturn]] void fiber_main() {
  BlockState& block = *starting_block;
  Fiber& fiber = block.fibers[block.running];
  block.launch.entry(block.launch.params, fiber.thread);
  fiber.finished = true;
  _longjmp(block.scheduler, 1);  // never back: the stack is taken again by the next block
}

// A stub that was judged not to need its block's other threads called a block service
// (emulator_toolchain.cpp's scan missed a name): a bug in the emulator, not the stub.
[[noreturn]] void no_block_threads() {
  std::fputs("stubjit emulator: a block service was called by a stub run without block threads\n",
             stderr);
  std::abort();
}
void refuse_sync_block(void*) { no_block_threads(); }
void refuse_sync_warp(void*, unsigned) { no_block_threads(); }
unsigned long long refuse_exchange(void*, unsigned, unsigned long long, unsigned) {
  no_block_threads();
}
void attach_nothing(void*, const Context**) {}

Context context_for(const BlockLaunch& launch, unsigned linear, unsigned threads) {
  Context context{};
  const stubjit_emulator::Dim3 dim = launch.block_dim;
  context.thread = {linear % dim.x, linear / dim.x % dim.y, linear / (dim.x * dim.y)};
  context.block = launch.block;
  context.block_dim = dim;
  context.grid_dim = launch.grid_dim;
  context.warp_size = launch.warp_size;
  context.scan_prefix_period = launch.scan_prefix_period;
  context.scan_prefixes_published = launch.scan_prefixes_published;
  context.lane = linear % launch.warp_size;
  context.linear = linear;
  const unsigned first = linear / launch.warp_size * launch.warp_size;
  context.warp_lanes = std::min(launch.warp_size, threads - first);
  return context;
}

// A stride prime to the count: the block's threads start in that scrambled order, not
// thread 0 first, since a stub must not depend on the order its threads happen to run in.
unsigned scrambling_stride(unsigned threads) {
  for (unsigned prime : {7u, 5u, 3u, 11u, 13u})
    if (threads % prime != 0) return prime;
  return 1;
}

void run_threads_in_turn(const BlockLaunch& launch, unsigned threads, void* group_memory) {
  const unsigned stride = scrambling_stride(threads);
  for (unsigned n = 0; n < threads; ++n) {
    Context context = context_for(launch, n * stride % threads, threads);
    context.group_memory = group_memory;
    context.sync_block = refuse_sync_block;
    context.sync_warp = refuse_sync_warp;
    context.exchange = refuse_exchange;
    context.attach = attach_nothing;
    launch.entry(launch.params, &context);
  }
}

// Out of line: getcontext returns twice as far as the compiler knows, which would make
// every local of its caller suspect (-Wclobbered). It returns once here: the fiber
// starts at fiber_main, by makecontext.
__attribute__((noinline)) void prepare_fiber(Fiber& fiber, const Context& thread,
                                             const FiberStack& stack) {
  fiber.thread = &thread;
  getcontext(&fiber.start);
  fiber.start.uc_stack.ss_sp = stack.bottom();
  fiber.start.uc_stack.ss_size = FiberStack::bytes;
  fiber.start.uc_link = nullptr;  // fiber_main never returns
  makecontext(&fiber.start, fiber_main, 0);
}

// Runs `fiber` until it yields at a barrier or finishes: the first time from its start,
// later from where it yielded.
__attribute__((noinline)) void resume_fiber(BlockState& block, Fiber& fiber) {
  if (_setjmp(block.scheduler) != 0) return;
  if (fiber.started) _longjmp(fiber.resume, 1);
  fiber.started = true;
  setcontext(&fiber.start);
  std::perror("stubjit emulator: setcontext of a fiber");
  std::abort();
}

void run_threads_as_fibers(const BlockLaunch& launch, unsigned threads, void* group_memory) {
  BlockState block(launch, threads);
  std::vector<Context> contexts;
  contexts.reserve(threads);
  std::vector<FiberStack>& stacks = stacks_for(threads);
  for (unsigned linear = 0; linear < threads; ++linear) {
    contexts.push_back(context_for(launch, linear, threads));
    Context& context = contexts.back();
    context.block_state = &block;
    context.group_memory = group_memory;
    context.sync_block = sync_block;
    context.sync_warp = sync_warp;
    context.exchange = exchange;
    context.attach = attach;
    prepare_fiber(block.fibers[linear], context, stacks[linear]);
  }
  const unsigned stride = scrambling_stride(threads);
  if (starting_block) {
    // A block run from a fiber of another would take the stacks that fiber runs on.
    std::fputs("stubjit emulator: a block was run from inside another block's thread\n", stderr);
    std::abort();
  }
  starting_block = &block;
  unsigned live = threads;
  while (live > 0) {
    block.progressed = false;
    for (unsigned n = 0; n < threads; ++n) {
      const unsigned linear = n * stride % threads;
      Fiber& fiber = block.fibers[linear];
      if (fiber.finished) continue;
      block.running = linear;
      if (block.current) *block.current = fiber.thread;
      resume_fiber(block, fiber);
      if (fiber.finished) {
        --live;
        block.progressed = true;
      }
    }
    if (live > 0 && !block.progressed) {
      // On a GPU this block would hang: some of its threads wait at a barrier that
      // others left by returning, or lanes wait at different warp barriers.
      std::fprintf(stderr,
                   "stubjit emulator: block (%u, %u, %u): %u of %u threads wait at a barrier "
                   "that the others never reach\n",
                   launch.block.x, launch.block.y, launch.block.z, live, threads);
      std::abort();
    }
  }
  starting_block = nullptr;
}

}  // namespace

void run_block(const BlockLaunch& launch) {
  const unsigned threads = launch.block_dim.x * launch.block_dim.y * launch.block_dim.z;
  // The block's group-shared memory, filled with a pattern: a stub must not read what
  // it did not write.
  std::vector<std::max_align_t> group_memory(
      (launch.lp->shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  std::memset(group_memory.data(), 0xA5, group_memory.size() * sizeof(std::max_align_t));
  if (launch.cooperative)
    run_threads_as_fibers(launch, threads, group_memory.data());
  else
    run_threads_in_turn(launch, threads, group_memory.data());
}

}  // namespace stubjit::test::emulator
