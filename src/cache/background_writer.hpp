// The process's one writer thread: disk-cache entries are written there, so that a
// launch that compiled returns without waiting for the disk (docs/cache.md,
// "Durability"). Jobs run one at a time, in the order they were submitted.
//
// Pending jobs are run before the process exits (the writer is a static object whose
// destructor drains the queue), and by whoever waits for them (DiskStore's destructor,
// so a destroyed Runtime has written its entries). A child forked while jobs were
// pending does not run them: they are the parent's (and hold the parent's compile
// locks); the child starts with an empty queue and, if it writes, a thread of its own.
#pragma once

#include <cstdint>
#include <functional>

namespace stubjit::detail {

using WriteJob = std::function<void()>;

// Queues `job` and returns its ticket. Once the process is exiting (the writer is
// gone) the job runs at once on the calling thread, and the ticket is 0.
std::uint64_t submit_write(WriteJob job);

// Returns once every job up to `ticket` has run (at once for 0, or in a forked child
// for the parent's tickets).
void wait_for_writes(std::uint64_t ticket);

}  // namespace stubjit::detail
