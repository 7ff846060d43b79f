#include "support/slot_semaphore.hpp"

#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "support/hash.hpp"

namespace stubjit::detail {
namespace {

// semctl's fourth argument, which the caller declares (semctl(2)).
union SemctlArgument {
  int value;
  semid_ds* status;
};

// Semaphore 0 counts the free slots; semaphore 1 holds the slot count once the set
// is set up (0 before), which also tells a set of ours from a stranger's.
constexpr unsigned short free_slots = 0;
constexpr unsigned short slot_count = 1;

std::string errno_text() { return std::strerror(errno); }

}  // namespace

// Keys are one namespace for the whole node: the user, the count and the scope,
// hashed. Another user can take a key first, which the constructor's checks catch.
key_t SlotSemaphore::key(unsigned slots, const std::string& scope) {
  const std::string name = "stubjit compile slots v1\n" + std::to_string(::geteuid()) + "\n" +
                           std::to_string(slots) + "\n" + scope;
  const auto hashed = static_cast<key_t>(hash64(name) & 0x7fffffff);
  return hashed == IPC_PRIVATE ? 1 : hashed;
}

SlotSemaphore::SlotSemaphore(unsigned slots, const std::string& scope) {
  if (slots == 0 || slots > 32767) {
    why_ = std::to_string(slots) + " slots: a set holds 1 to 32767";
    return;
  }
  const key_t ipc_key = key(slots, scope);
  const std::string named = "the semaphore set under key " + std::to_string(ipc_key);
  const int id = ::semget(ipc_key, 2, IPC_CREAT | 0600);
  if (id < 0) {
    why_ = "semget of key " + std::to_string(ipc_key) + ": " + errno_text();
    return;
  }
  // Only a set this user created, that nobody else may touch: its creator (which no
  // IPC_SET changes) and owner are this user, and its mode gives no one else anything.
  // A set another user made under our key could be altered by them at will.
  semid_ds status{};
  SemctlArgument argument{};
  argument.status = &status;
  if (::semctl(id, 0, IPC_STAT, argument) != 0) {
    why_ = named + " is another user's (" + errno_text() + ")";
    return;
  }
  const uid_t me = ::geteuid();
  if (status.sem_perm.cuid != me || status.sem_perm.uid != me ||
      (status.sem_perm.mode & 077) != 0 || status.sem_nsems != 2) {
    why_ = named + " is not one this user created, private, with 2 semaphores (ipcs -s -i " +
           std::to_string(id) + " shows it)";
    return;
  }
  // Set up once, atomically: whoever finds the count still 0 sets both values; the
  // others find it set (EAGAIN). No window where a set exists half set up for good.
  const auto count = static_cast<short>(slots);
  sembuf set_up[3] = {{slot_count, 0, IPC_NOWAIT}, {slot_count, count, 0}, {free_slots, count, 0}};
  if (::semop(id, set_up, 3) != 0 && errno != EAGAIN) {
    why_ = "semop: " + errno_text();
    return;
  }
  if (::semctl(id, slot_count, GETVAL) != static_cast<int>(slots)) {
    why_ = named + " does not hold " + std::to_string(slots) +
           " slots: another program's? (ipcrm -s " + std::to_string(id) + " removes it)";
    return;
  }
  id_ = id;
}

bool SlotSemaphore::acquire(std::string& problem) const {
  // SEM_UNDO: the kernel records the hold against the process and reverses it when
  // the process ends, however it ends.
  sembuf take{free_slots, -1, SEM_UNDO};
  while (::semop(id_, &take, 1) != 0) {
    // A signal handler ran: semop is never restarted; ask again (at the back).
    if (errno == EINTR) continue;
    problem = "semop: " + errno_text();
    return false;
  }
  return true;
}

void SlotSemaphore::release() const noexcept {
  sembuf give{free_slots, 1, SEM_UNDO};
  ::semop(id_, &give, 1);
}

bool SlotSemaphore::remove(unsigned slots, const std::string& scope) {
  const int id = ::semget(key(slots, scope), 0, 0);
  return id >= 0 && ::semctl(id, 0, IPC_RMID) == 0;
}

}  // namespace stubjit::detail
