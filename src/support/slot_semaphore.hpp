// A node-wide counting semaphore of N slots for one user: a System V semaphore set,
// because the kernel queues its waiters in arrival order and gives a dead process's
// slots back (SEM_UNDO). Why this and not file locks: docs/cluster.md, "A node-wide
// cap on compiles".
#pragma once

#include <sys/types.h>

#include <string>

namespace stubjit::detail {

class SlotSemaphore {
 public:
  // The set of `slots` slots for this user and `scope`, created 0600 if missing. A set
  // under the key that this user did not create, or that is not such a set, is not
  // used: valid() is false and why() says what was found.
  SlotSemaphore(unsigned slots, const std::string& scope);

  bool valid() const noexcept { return id_ >= 0; }
  const std::string& why() const noexcept { return why_; }

  // Waits for a slot, behind those that asked first. False (with `problem`) when the
  // set is gone (removed with ipcrm) or refuses: the caller goes on without a slot.
  // Safe from several threads at once, as release() is.
  bool acquire(std::string& problem) const;
  // Gives the slot back. A process that ends holding slots gives them back too.
  void release() const noexcept;

  // The System V key of the set of `slots` and `scope` for this user (for ipcs -s).
  static key_t key(unsigned slots, const std::string& scope);
  // Removes the set of `slots` and `scope`, if this user has one: false if none.
  static bool remove(unsigned slots, const std::string& scope);

 private:
  int id_ = -1;
  std::string why_;
};

}  // namespace stubjit::detail
