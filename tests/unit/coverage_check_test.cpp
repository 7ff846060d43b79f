// The exactly-once check that the coverage suites of every backend rely on
// (common/coverage.hpp, check_visits_and_codes) fed fields written by hand: it must
// pass the right ones and report each kind of wrong one.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/coverage.hpp"

namespace stubjit {
namespace {

// Dimension 0 at 1, 3, 5 and dimension 1 at 4, 3: fields of 8 x 7 (the largest index
// plus a margin of 3).
const Domain kDomain(std::vector<Dim>{Dim{1, 3, 2}, Dim{4, 2, -1}});
const std::vector<std::int64_t> kExtents = {8, 7};

// The domain's elements (row i, column j: element 7 i + j) and the codes they hold.
struct Expected {
  std::size_t element;
  std::int64_t code;
};
std::vector<Expected> domain_elements() {
  std::vector<Expected> elements;
  for (const std::int64_t i : {1, 3, 5})
    for (const std::int64_t j : {4, 3})
      elements.push_back({std::size_t(7 * i + j), (j + 50) * 100 + (i + 50)});
  return elements;
}

struct Fields {
  std::vector<std::int32_t> visited = std::vector<std::int32_t>(56, 0);
  std::vector<std::int64_t> written = std::vector<std::int64_t>(56, -1);
};

Fields right_fields() {
  Fields fields;
  for (const Expected& e : domain_elements()) {
    fields.visited[e.element] = 1;
    fields.written[e.element] = e.code;
  }
  return fields;
}

// The failures the check reports for `fields`, as one string each.
std::vector<std::string> failures_for(const Fields& fields) {
  ::testing::TestPartResultArray results;
  {
    const ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    test::check_visits_and_codes(kDomain, kExtents, "by hand", fields.visited, fields.written);
  }
  std::vector<std::string> messages;
  for (int n = 0; n < results.size(); ++n)
    messages.push_back(results.GetTestPartResult(n).message());
  return messages;
}

TEST(CoverageCheck, TheExtentsAreTheLargestIndexPlusThree) {
  EXPECT_EQ(test::extents_covering(kDomain), kExtents);
}

TEST(CoverageCheck, PassesEachIndexOnceWithItsCode) {
  EXPECT_TRUE(failures_for(right_fields()).empty());
}

TEST(CoverageCheck, ReportsAnIndexVisitedTwice) {
  Fields fields = right_fields();
  fields.visited[domain_elements()[2].element] = 2;
  const std::vector<std::string> failures = failures_for(fields);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("index number 2 (element 25) was visited 2 times"), std::string::npos)
      << failures[0];
}

TEST(CoverageCheck, ReportsAnIndexNeverVisited) {
  Fields fields = right_fields();
  fields.visited[domain_elements()[5].element] = 0;
  fields.written[domain_elements()[5].element] = -1;
  const std::vector<std::string> failures = failures_for(fields);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("index number 5 (element 38) was visited 0 times"), std::string::npos)
      << failures[0];
}

TEST(CoverageCheck, ReportsAnIndexThatSawAnotherIndex) {
  Fields fields = right_fields();
  fields.written[domain_elements()[0].element] = domain_elements()[1].code;
  const std::vector<std::string> failures = failures_for(fields);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("holds 5351, not once with 5451"), std::string::npos) << failures[0];
}

TEST(CoverageCheck, ReportsAnElementOutsideTheDomainTouched) {
  for (const bool visit : {true, false}) {
    Fields fields = right_fields();
    // Element 12 is (1, 5): one past the domain's largest index along dimension 1.
    if (visit)
      fields.visited[12] = 1;
    else
      fields.written[12] = 0;
    const std::vector<std::string> failures = failures_for(fields);
    ASSERT_EQ(failures.size(), 1u);
    EXPECT_NE(failures[0].find("element 12, outside the domain"), std::string::npos) << failures[0];
  }
}

TEST(CoverageCheck, ReportsFieldsTooSmallForTheDomain) {
  Fields fields = right_fields();
  fields.visited.resize(20);
  fields.written.resize(20);
  const std::vector<std::string> failures = failures_for(fields);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("index number 2 lies outside the fields"), std::string::npos)
      << failures[0];
}

TEST(CoverageCheck, ReportsFieldsOfDifferentSizes) {
  Fields fields = right_fields();
  fields.written.pop_back();
  const std::vector<std::string> failures = failures_for(fields);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("56 visit counts, 55 codes"), std::string::npos) << failures[0];
}

}  // namespace
}  // namespace stubjit
