#include "emulator/block_runner.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace stubjit::test::emulator {
namespace {

using stubjit_emulator::Context;

// A reusable barrier for a fixed number of threads (std::barrier is C++20).
class Barrier {
 public:
  explicit Barrier(unsigned count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const unsigned generation = generation_;
    if (++arrived_ == count_) {
      arrived_ = 0;
      ++generation_;
      all_arrived_.notify_all();
      return;
    }
    all_arrived_.wait(lock, [&] { return generation_ != generation; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_arrived_;
  const unsigned count_;
  unsigned arrived_ = 0;
  unsigned generation_ = 0;
};

// The services of one block whose threads run side by side.
struct BlockState {
  BlockState(unsigned threads, unsigned warp_size)
      : warp_size(warp_size), block_barrier(threads), slots(threads) {
    for (unsigned first = 0; first < threads; first += warp_size)
      warp_barriers.push_back(std::make_unique<Barrier>(std::min(warp_size, threads - first)));
  }
  unsigned warp_size;
  Barrier block_barrier;
  std::vector<std::unique_ptr<Barrier>> warp_barriers;
  std::vector<unsigned long long> slots;  // one per thread, for warp exchanges
};

void sync_block(void* state) { static_cast<BlockState*>(state)->block_barrier.wait(); }

void sync_warp(void* state, unsigned linear) {
  auto* block = static_cast<BlockState*>(state);
  block->warp_barriers[linear / block->warp_size]->wait();
}

unsigned long long exchange(void* state, unsigned linear, unsigned long long value,
                            unsigned source) {
  auto* block = static_cast<BlockState*>(state);
  const unsigned first = linear / block->warp_size * block->warp_size;
  Barrier& warp = *block->warp_barriers[linear / block->warp_size];
  block->slots[linear] = value;
  warp.wait();  // every lane has published
  const unsigned from = first + source;
  const unsigned long long got = from < block->slots.size() ? block->slots[from] : value;
  warp.wait();  // every lane has read before any publishes again
  return got;
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

Context context_for(const BlockLaunch& launch, unsigned linear, unsigned threads) {
  Context context{};
  const stubjit_emulator::Dim3 dim = launch.block_dim;
  context.thread = {linear % dim.x, linear / dim.x % dim.y, linear / (dim.x * dim.y)};
  context.block = launch.block;
  context.block_dim = dim;
  context.grid_dim = launch.grid_dim;
  context.warp_size = launch.warp_size;
  context.lane = linear % launch.warp_size;
  context.linear = linear;
  const unsigned first = linear / launch.warp_size * launch.warp_size;
  context.warp_lanes = std::min(launch.warp_size, threads - first);
  return context;
}

}  // namespace

void run_block(const BlockLaunch& launch) {
  const unsigned threads = launch.block_dim.x * launch.block_dim.y * launch.block_dim.z;
  // The block's group-shared memory, filled with a pattern: a stub must not read what
  // it did not write.
  std::vector<std::max_align_t> group_memory(
      (launch.lp->shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t) + 1);
  std::memset(group_memory.data(), 0xA5, group_memory.size() * sizeof(std::max_align_t));
  if (!launch.cooperative) {
    // In a scrambled order (a stride prime to the count), not thread 0 first: a stub
    // must not depend on the order its threads happen to run in.
    unsigned stride = 1;
    for (unsigned prime : {7u, 5u, 3u, 11u, 13u}) {
      if (threads % prime != 0) {
        stride = prime;
        break;
      }
    }
    for (unsigned n = 0; n < threads; ++n) {
      Context context = context_for(launch, n * stride % threads, threads);
      context.group_memory = group_memory.data();
      context.sync_block = refuse_sync_block;
      context.sync_warp = refuse_sync_warp;
      context.exchange = refuse_exchange;
      launch.entry(launch.params, &context);
    }
    return;
  }
  BlockState state(threads, launch.warp_size);
  std::vector<Context> contexts;
  contexts.reserve(threads);
  for (unsigned linear = 0; linear < threads; ++linear) {
    contexts.push_back(context_for(launch, linear, threads));
    contexts.back().block_state = &state;
    contexts.back().group_memory = group_memory.data();
    contexts.back().sync_block = sync_block;
    contexts.back().sync_warp = sync_warp;
    contexts.back().exchange = exchange;
  }
  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (const Context& context : contexts)
    workers.emplace_back([&launch, &context] { launch.entry(launch.params, &context); });
  for (std::thread& worker : workers) worker.join();
}

}  // namespace stubjit::test::emulator
