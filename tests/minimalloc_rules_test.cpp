// minimalloc's solution rules (verify/minimalloc_rules.h) on hand-made solutions.
#include "verify/minimalloc_rules.h"

#include <gtest/gtest.h>

namespace allocsim {
namespace {

MinimallocCheck check(const std::string& csv, uint64_t capacity) {
  return checkMinimallocSolution(parseMinimallocCsv(csv), capacity);
}

TEST(MinimallocRules, AcceptsAValidSolution) {
  // input.12.csv's buffers stacked by hand: b1, b2, b4 share offset 0 (their intervals only touch).
  MinimallocCheck c = check("id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,4\nb4,9,21,4,0\nb5,0,21,4,8\n", 12);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.height, 12u);
}

TEST(MinimallocRules, RejectsOverlapCapacityAndMissingOffsets) {
  MinimallocCheck c = check("id,lower,upper,size,offset\na,0,3,4,0\nb,2,9,4,2\n", 12);
  ASSERT_EQ(c.violations.size(), 1u);
  EXPECT_EQ(c.violations[0], "buffers 'a' [0, 4) and 'b' [2, 6) overlap while both live (over [2, 3))");
  c = check("id,lower,upper,size,offset\na,0,3,4,0\nb,3,9,4,2\n", 12);  // touching in time: no overlap
  EXPECT_TRUE(c.ok());
  c = check("id,lower,upper,size,offset\na,0,3,4,10\n", 12);
  ASSERT_EQ(c.violations.size(), 1u);
  EXPECT_EQ(c.violations[0], "buffer 'a' ends at 14, beyond the capacity 12");
  c = check("id,lower,upper,size\na,0,3,4\n", 12);
  ASSERT_EQ(c.violations.size(), 1u);
  EXPECT_EQ(c.violations[0], "buffer 'a' has no offset");
}

}  // namespace
}  // namespace allocsim
