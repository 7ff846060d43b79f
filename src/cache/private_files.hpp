// POSIX file operations of the disk cache, with its safety rules built in: private
// directories (0700, ours, not group/world-writable), entries read through one
// descriptor without following links, writes published by rename only.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace stubjit::detail {

// "" when `path` is a directory owned by the effective user that neither group nor
// others can write; otherwise what is wrong with it. `follow_links`: the cache root
// may be a link to a directory elsewhere; directories inside the root may not.
std::string check_private_directory(const std::string& path, bool follow_links);

// Creates `path` and any missing parents with mode 0700, then checks it as above.
// "" on success, otherwise why it cannot be used.
std::string make_private_directory(const std::string& path, bool follow_links);

struct ReadResult {
  enum class Status : std::uint8_t { ok, missing, refused, failed } status = Status::missing;
  std::vector<char> bytes;
  std::string problem;                // for refused and failed
  std::int64_t modified_seconds = 0;  // the file's modification time (Unix seconds), when ok
};

// Reads a whole entry. Refused: a link, not a regular file, owned by another user,
// group/world-writable, or longer than `max_bytes` (checked before anything is
// allocated, so a huge or sparse file cannot exhaust memory). Reading holds one
// descriptor from open to the last byte, so a concurrent rename or unlink of the path
// cannot mix two files.
ReadResult read_private_file(const std::string& path, std::uint64_t max_bytes);

// What a reader requires of a file's owner and mode: "" when `info` is acceptable,
// else what is wrong, as a phrase after "the entry" ("is owned by user 7, ...").
using OwnerCheck = std::function<std::string(const struct stat& info)>;

// read_private_file with another owner rule, and the file named relative to the
// directory descriptor `directory` (AT_FDCWD: relative to the working directory, or
// an absolute path): a read-only cache layer reads entries that another user owns.
ReadResult read_checked_file(int directory, const std::string& name, std::uint64_t max_bytes,
                             const OwnerCheck& check);

// Marks an entry as just used (its modification time, which LRU eviction and
// `stubjit cache clear --older-than` read), unless it was already marked within the
// last minute (`modified_seconds`, from the read): a process that starts often then
// loads its stubs without writing the file system's metadata. Best effort.
void mark_used(const std::string& path, std::int64_t modified_seconds) noexcept;

// Whether publish_file waits for the data to reach the disk before the rename.
enum class Durability : std::uint8_t {
  // No fsync: a crash of the process loses nothing written, a crash of the machine
  // (power loss) may leave the new name with missing or stale blocks. For files whose
  // damage is detected on read and costs nothing but a rebuild: cache entries carry
  // a checksum (docs/cache.md, "Durability").
  unsynced,
  // fsync before the rename: after a power loss the name holds the old file or the
  // new one, whole. For files that cannot be checked on read (the cache tag).
  synced,
};

// Writes `bytes` to a unique temporary file in `directory` and renames it to
// `directory/name`: readers see the old file or the new one, never a partial one.
// "" on success, otherwise the error.
std::string publish_file(const std::string& directory, const std::string& name,
                         const std::vector<char>& bytes,
                         Durability durability = Durability::synced);

// Temporary files publish_file creates start with this prefix.
inline constexpr const char* temporary_prefix = ".tmp-";

}  // namespace stubjit::detail
