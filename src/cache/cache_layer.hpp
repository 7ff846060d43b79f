// A read-only cache layer: a directory of entries that another runtime filled (a site
// or project cache on a shared file system, `stubjit cache prewarm` on a build node),
// searched after the per-user root (RuntimeOptions::cache_layers,
// $STUBJIT_CACHE_LAYERS; docs/cluster.md, "Cache layers").
//
// Its entries are verified like the root's (cache_entry.hpp: magic, version, sizes,
// checksum, key), but nothing in a layer is ever written: no entry, no lock file, no
// size record, no modification time (a hit is not marked as used: the layer may be
// on a read-only file system, and its owner, not its readers, decides what it keeps).
// A hit is kept in the process's memory store, not copied into the per-user root:
// the layer holds it for the next run.
//
// A layer belongs to another user, so the per-user rule (everything the user's own)
// cannot hold. What a layer must satisfy instead: its root is a directory that
// neither group nor others can write (whoever owns it: naming the layer trusts its
// owner); every directory and entry below it is owned by root, by the current user or
// by the layer root's owner, and writable by nobody else. An entry another user could
// write could be swapped for code that then runs in this process; a checksum does not
// help, since whoever writes the entry writes its checksum too.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <mutex>
#include <set>
#include <string>

#include "cache/binary_store.hpp"

namespace stubjit::detail {

struct LayerInspection {
  std::string problem;  // "" when the layer can be used, else why it is skipped
  uid_t owner = 0;      // the owner of the layer's root directory
};

// Checks a layer's root without reading any entry: it exists, is a directory (the
// path may be a link to one), can be opened, and neither group nor others can write
// it.
LayerInspection inspect_cache_layer(const std::string& root);

// What is wrong with a directory or entry inside a layer whose root `layer_owner`
// owns, as a phrase after its name ("is owned by user 7, ..."); "" when nothing is.
std::string layer_owner_problem(const struct stat& info, uid_t layer_owner);

class LayerStore final : public BinaryStore {
 public:
  // Touches nothing: the layer is inspected on the first lookup, and skipped from then
  // on, after one warning, if it cannot be used.
  explicit LayerStore(std::string root);
  ~LayerStore() override;
  LayerStore(const LayerStore&) = delete;
  LayerStore& operator=(const LayerStore&) = delete;

  const std::string& root() const { return root_; }

  // A hit for an intact entry of exactly this key whose path and file pass the owner
  // rule; rejected (with one warning per entry) for anything else under the key's
  // name. A missing entry or directory is a miss.
  Lookup find(const DiskKey& key) override;
  // Never written: false, without a word (the per-user root, before it in the chain,
  // takes the binary).
  bool put(const DiskKey&, const std::shared_ptr<const Binary>&,
           const std::shared_ptr<const void>&) override {
    return false;
  }
  // Reports it once; the layer's file stays as it is.
  void reject(const DiskKey& key, const std::string& why) override;
  bool persistent() const override { return true; }

 private:
  // Opens the root once: its descriptor, or -1 after the one warning.
  int root_descriptor();
  // The descriptor of root/<directory>, every level checked; -1 when it is missing
  // (quietly) or refused (warned once).
  int open_directory(int root, const std::string& directory);
  void warn_once(const std::string& subject, const std::string& message);
  std::string entry_path(const DiskKey& key) const;

  const std::string root_;
  std::once_flag opened_;
  int root_fd_ = -1;
  uid_t owner_ = 0;
  std::mutex mutex_;
  std::set<std::string> reported_;
};

}  // namespace stubjit::detail
