// The host's stable sort of a field's pencils, for the sort tests (cpu/sort_test.cpp,
// cuda/gpu_sort_checks.hpp): pencil by pencil along one dimension of a row-major box,
// with std::stable_sort, never through the library.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

namespace stubjit::test {

// Each element's position along the sorted dimension after a stable sort by `less` of
// `keys` (row-major over `counts`) along dimension `along`: perm[at] is the position,
// in its pencil, that the element now at `at` came from.
template <class T, class Less>
std::vector<std::int64_t> host_sort_permutation(const std::vector<T>& keys,
                                                const std::vector<std::int64_t>& counts, int along,
                                                Less less) {
  std::vector<std::int64_t> perm(keys.size(), 0);
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(along) + 1; d < counts.size(); ++d) inner *= counts[d];
  const std::int64_t length = counts[std::size_t(along)];
  if (length == 0 || inner == 0) return perm;
  const std::int64_t outer = std::int64_t(keys.size()) / (inner * length);
  std::vector<std::int64_t> order(static_cast<std::size_t>(length));
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t r = 0; r < inner; ++r) {
      const auto at = [&](std::int64_t k) { return std::size_t((o * length + k) * inner + r); };
      std::iota(order.begin(), order.end(), std::int64_t(0));
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return less(keys[at(a)], keys[at(b)]);
      });
      for (std::int64_t k = 0; k < length; ++k) perm[at(k)] = order[std::size_t(k)];
    }
  }
  return perm;
}

// `values` moved as the permutation says (values of a payload, or the keys themselves).
template <class T>
std::vector<T> host_apply_permutation(const std::vector<T>& values,
                                      const std::vector<std::int64_t>& perm,
                                      const std::vector<std::int64_t>& counts, int along) {
  std::vector<T> out(values);
  std::int64_t inner = 1;
  for (std::size_t d = std::size_t(along) + 1; d < counts.size(); ++d) inner *= counts[d];
  const std::int64_t length = counts[std::size_t(along)];
  if (length == 0 || inner == 0) return out;
  for (std::size_t at = 0; at < values.size(); ++at) {
    const std::int64_t k = (std::int64_t(at) / inner) % length;
    const std::int64_t from = std::int64_t(at) + (perm[at] - k) * inner;
    out[at] = values[std::size_t(from)];
  }
  return out;
}

// The keys sorted stably by `less` along `along`.
template <class T, class Less>
std::vector<T> host_sort(const std::vector<T>& keys, const std::vector<std::int64_t>& counts,
                         int along, Less less) {
  return host_apply_permutation(keys, host_sort_permutation(keys, counts, along, less), counts,
                                along);
}

}  // namespace stubjit::test
