// Where compiled binaries are kept, behind one interface: a chain of stores tried in
// order (memory, then disk; a store shared by the processes of an MPI job fits in
// without touching the launch path). Every store is keyed by a DiskKey: the stub's
// identity text plus the hash of its generated source.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/binary.hpp"
#include "cache/disk_key.hpp"

namespace stubjit::detail {

// Held while this process builds a key, so that other processes sharing a store
// wait for the build instead of doing it too. Released when destroyed.
class BuildLock {
 public:
  virtual ~BuildLock() = default;
  // Whether the lock was had (a store may give up waiting: a lock that could not be
  // had is no error, it only risks a duplicate build).
  virtual bool held() const = 0;
};

// What a runtime's counters report about one store.
struct StoreCounters {
  std::atomic<std::uint64_t> hits{0};      // binaries from this store that were used
  std::atomic<std::uint64_t> rejected{0};  // entries refused (corrupt, foreign, not loadable)
  std::atomic<std::uint64_t> writes{0};    // binaries this store took
};

class BinaryStore {
 public:
  virtual ~BinaryStore() = default;

  enum class Found : std::uint8_t { hit, miss, rejected };
  struct Lookup {
    Found found = Found::miss;
    std::shared_ptr<const Binary> binary;  // on hit
  };
  // A hit only for a binary stored under exactly this key and intact; anything else
  // found under the key's name is rejected (and replaced by the next put).
  virtual Lookup find(const DiskKey& key) = 0;
  // Keeps `binary` under `key` (shared, not copied). True when the store took it now;
  // false when it could not (it says why itself) or will finish later (the disk store
  // writes in the background and counts the write itself once done). A store that
  // finishes later keeps `hold` (the key's build locks) until the binary is where
  // other processes find it; `hold` is released once no store keeps it.
  virtual bool put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
                   const std::shared_ptr<const void>& hold) = 0;
  // A binary this store returned turned out not to be loadable: forget and report it.
  virtual void reject(const DiskKey& key, const std::string& why) = 0;
  // The cross-process build lock of `key`; null for a store private to the process.
  virtual std::unique_ptr<BuildLock> lock_for_build(const DiskKey&) { return nullptr; }
  // Whether the store keeps binaries beyond the process (the disk cache, a read-only
  // layer). A hit of such a store is copied only into the stores before it that are
  // not: what is on disk in one place is there for the next run already.
  virtual bool persistent() const { return false; }

  StoreCounters& counters() { return counters_; }
  const StoreCounters& counters() const { return counters_; }

 private:
  StoreCounters counters_;
};

// The last `capacity` binaries put or found, least recently used first out; thread-
// safe. It keeps what was compiled or read from disk in this process, so that a stub
// whose loaded module was released loads again without the compiler or the disk.
std::unique_ptr<BinaryStore> make_memory_store(std::size_t capacity);

// Stores tried in order.
class BinaryChain {
 public:
  void add(std::unique_ptr<BinaryStore> store) { stores_.push_back(std::move(store)); }
  std::size_t size() const { return stores_.size(); }
  BinaryStore& store(std::size_t i) { return *stores_[i]; }

  struct Found {
    std::shared_ptr<const Binary> binary;  // null: no store had it
    std::size_t store = 0;                 // which store had it
    bool rejected = false;                 // a store held something under the key that it refused
  };
  // The first store's hit, copied into the stores before it (a persistent store's hit
  // only into those that are not). Stores that rejected what they held are counted as
  // such.
  Found find(const DiskKey& key);
  // Every store's build lock (those that have one).
  std::vector<std::unique_ptr<BuildLock>> lock_for_build(const DiskKey& key);
  // Into every store; `locks` (from lock_for_build) are released once every store
  // has put the binary where other processes find it, which may be after this returns.
  void put(const DiskKey& key, const std::shared_ptr<const Binary>& binary,
           std::vector<std::unique_ptr<BuildLock>> locks);

 private:
  std::vector<std::unique_ptr<BinaryStore>> stores_;
};

}  // namespace stubjit::detail
