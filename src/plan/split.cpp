// split_domain: a domain cut along one dimension into weighted parts, each with the
// range of indices its fields hold. Pure: plain arithmetic on the domain's dimensions.
#include "stubjit/split.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <utility>

namespace stubjit {

SplitError::SplitError(std::string parameter, int part, const std::string& message,
                       std::exception_ptr cause)
    : Error(message), parameter_(std::move(parameter)), part_(part), cause_(std::move(cause)) {}

namespace {

using wide = __int128;

bool fits_int64(wide value) {
  return value >= std::numeric_limits<std::int64_t>::min() &&
         value <= std::numeric_limits<std::int64_t>::max();
}

std::string number(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

// The weights' sum, after checking each weight and the sum.
double checked_total(const std::vector<double>& weights) {
  if (weights.empty())
    throw SplitError("weights", -1, "split_domain: no weights: give one weight per part");
  double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double weight = weights[i];
    if (!std::isfinite(weight) || weight < 0) {
      throw SplitError("weights", static_cast<int>(i),
                       "split_domain: weights[" + std::to_string(i) + "] is " + number(weight) +
                           ": a weight must be finite and 0 or more");
    }
    total += weight;
  }
  if (!std::isfinite(total)) {
    throw SplitError("weights", -1,
                     "split_domain: the weights' sum overflows a double: scale them down");
  }
  if (total <= 0) {
    throw SplitError("weights", -1,
                     "split_domain: every weight is 0: at least one part must take indices");
  }
  return total;
}

// Where each part ends along the split dimension: part i covers positions
// [ends[i-1], ends[i]) (ends[-1] being 0). See split_domain in split.hpp for the rule.
std::vector<std::int64_t> part_ends(std::int64_t count, const std::vector<double>& weights,
                                    double total) {
  std::vector<std::int64_t> ends(weights.size());
  const double whole = static_cast<double>(count);
  double before = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    before += weights[i];
    if (before == total) {  // no positive weight after this one: the rest is this part's
      ends[i] = count;
      continue;
    }
    // Separate steps, so that no compiler fuses them into another rounding. Weights so
    // large that N * S_i overflows (1e300 each) take the fraction first instead.
    const double product = whole * before;
    const double share = std::isinf(product) ? whole * (before / total) : product / total;
    // Monotone in `before`: round() and min() keep the ends in order. A double of at
    // least `whole` (>= 2^63 for counts near INT64_MAX) would not convert: it ends at N.
    ends[i] =
        share >= whole ? count : std::min(count, static_cast<std::int64_t>(std::round(share)));
  }
  return ends;
}

DomainPart make_part(const Domain& domain, int dimension, std::int64_t begin, std::int64_t end,
                     Halo halo, std::size_t index) {
  const Dim& whole = domain[dimension];
  std::vector<Dim> dims = domain.dims().to_vector();
  std::vector<Dim> local_dims = dims;
  const std::int64_t count = end - begin;
  const std::int64_t first = whole.at(begin);  // for an empty part: where it would start
  std::int64_t field_first = first;
  std::int64_t field_count = 0;
  std::int64_t local_first = 0;
  if (count > 0) {
    const std::int64_t last = whole.at(end - 1);
    const wide low = wide(std::min(first, last)) - halo.below;
    const wide high = wide(std::max(first, last)) + halo.above;
    if (!fits_int64(low) || !fits_int64(high) || !fits_int64(high - low + 1)) {
      throw SplitError("halo", static_cast<int>(index),
                       "split_domain: part " + std::to_string(index) + " (indices " +
                           std::to_string(first) + " to " + std::to_string(last) +
                           ") with halo below " + std::to_string(halo.below) + " and above " +
                           std::to_string(halo.above) + " reaches field indices beyond 64 bits");
    }
    field_first = static_cast<std::int64_t>(low);
    field_count = static_cast<std::int64_t>(high - low + 1);
    local_first = static_cast<std::int64_t>(wide(first) - low);
  }
  const std::size_t d = static_cast<std::size_t>(dimension);
  dims[d] = Dim{first, count, whole.step};
  local_dims[d] = Dim{local_first, count, whole.step};
  return DomainPart{Domain(dims, domain.order()), Domain(local_dims, domain.order()), begin,
                    field_first, field_count};
}

}  // namespace

std::vector<DomainPart> split_domain(const Domain& domain, int dimension,
                                     const std::vector<double>& weights, Halo halo) {
  if (dimension < 0 || dimension >= domain.rank()) {
    throw SplitError("dimension", -1,
                     "split_domain: dimension " + std::to_string(dimension) + " of the rank-" +
                         std::to_string(domain.rank()) + " domain " + domain.to_string() +
                         ": dimensions are 0.." + std::to_string(domain.rank() - 1));
  }
  const double total = checked_total(weights);
  if (halo.below < 0 || halo.above < 0) {
    throw SplitError("halo", -1,
                     "split_domain: halo below " + std::to_string(halo.below) + " and above " +
                         std::to_string(halo.above) + ": a halo is 0 or more indices");
  }
  const std::vector<std::int64_t> ends = part_ends(domain[dimension].count, weights, total);
  std::vector<DomainPart> parts;
  parts.reserve(weights.size());
  std::int64_t begin = 0;
  for (std::size_t i = 0; i < ends.size(); ++i) {
    parts.push_back(make_part(domain, dimension, begin, ends[i], halo, i));
    begin = ends[i];
  }
  return parts;
}

}  // namespace stubjit
