// bind: checks launch arguments against a kernel's signature and packs them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "stubjit/domain.hpp"
#include "stubjit/kernel.hpp"
#include "support/binding_list.hpp"
#include "support/scalar_words.hpp"

namespace stubjit::detail {

// The argument block of one launch (see arg_layout.hpp). It lives in the launch's own
// storage: inline up to inline_capacity bytes (a dozen rank-8 fields), on the heap
// only beyond that; never in a buffer another launch could reuse.
class PackedArgs {
 public:
  static constexpr std::size_t inline_capacity = 2048;

  PackedArgs() = default;
  PackedArgs(const PackedArgs&) = delete;
  PackedArgs& operator=(const PackedArgs&) = delete;

  // `size` bytes for the caller to fill.
  void reset(std::size_t size) {
    if (size > inline_capacity) {
      heap_ = std::make_unique<unsigned char[]>(size);
    } else {
      heap_.reset();
    }
    size_ = size;
  }
  // Fewer bytes, kept where they are (size <= size()).
  void shrink(std::size_t size) noexcept { size_ = size; }
  // Back to `size` bytes saved before a shrink (size <= the size reset() was given).
  void restore(const unsigned char* bytes, std::size_t size) noexcept {
    size_ = size;
    std::memcpy(data(), bytes, size);
  }
  unsigned char* data() noexcept { return heap_ ? heap_.get() : inline_; }
  const unsigned char* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  std::size_t size() const noexcept { return size_; }

 private:
  alignas(16) unsigned char inline_[inline_capacity];
  std::unique_ptr<unsigned char[]> heap_;
  std::size_t size_ = 0;
};

// Where each of a kernel's index dimensions runs: index_order[d] is the dimension of
// the launch's domain (after fusion.hpp's reordering) that holds the kernel's logical
// dimension d. The identity unless a kernel that takes its index runs reordered.
using IndexOrder = std::array<std::uint8_t, 8>;
inline constexpr IndexOrder identity_order = {0, 1, 2, 3, 4, 5, 6, 7};

struct BoundArgs {
  BindingList bindings;  // one per parameter
  PackedArgs packed;
  IndexOrder index_order = identity_order;
  // The stub computes each point's index: the kernel takes an index token (set by
  // bind_arguments) or has a filter (set by the runtime). Such a launch keeps its
  // dimensions: reordered, never fused.
  bool uses_index = false;
  // Every position, logical index and element offset fits in int32, so a stub may
  // use the 32-bit index variant (false when the caller did not ask).
  bool fits_int32 = false;
  // Over the domain the launch runs (after fusion): every dimension starts at 0 with
  // step 1, and every projected field has stride 1 along the innermost dimension
  // (dense.hpp). Set only for targets with a dense variant.
  bool dense = false;
  // Launches on a target that compiles short rows in (rows of any length): the stride
  // along the innermost loop that every broadcast view shares, where a stub compiles it
  // in (view_stride_to_compile); 0 otherwise.
  std::int64_t view_stride = 0;
  // The values of the kernel's specialized scalars (Param::specialized), in signature
  // order, as words (support/scalar_words.hpp): Arg::bits(), and Arg::high_bits() for a
  // complex<double>. specialized_count counts words; only those are written or read.
  // Not zeroed: every launch makes a BoundArgs, and zeroing 16 words cost each launch
  // about 12 ns (a `rep stos` on the launch path; bench/results/cpu.md).
  std::array<std::uint64_t, max_specialized_words> specialized;
  std::uint8_t specialized_count = 0;
};

// Throws ArgumentError/AliasError naming the parameter on any mismatch; `owner` is
// the runtime the fields must belong to. `check_int32`: whether to find out
// fits_int32 (only targets with a 32-bit index variant need it). Allocates nothing
// unless the packed block exceeds PackedArgs::inline_capacity.
void bind_arguments(const Signature& signature, const Domain& domain, const Arg* args,
                    std::size_t count, const RuntimeState* owner, BoundArgs& out,
                    bool check_int32 = true);

}  // namespace stubjit::detail
