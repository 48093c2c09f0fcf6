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

// Above 4,096 buffers the check sweeps instead of comparing every pair: a staircase of 5,000 buffers, buffer i live
// over [i, i + 3) at offset 8 * (i % 3) (each overlaps the two after it in time, at other bytes), is valid; moving
// b2500 onto the bytes of b2498 and b2501 (offset 16), both live with it, makes overlaps, and one is found.
TEST(MinimallocRules, LargeSolutionsAreSweptAndAnOverlapIsFound) {
  std::string csv = "id,lower,upper,size,offset\n";
  for (int i = 0; i < 5000; ++i)
    csv += "b" + std::to_string(i) + "," + std::to_string(i) + "," + std::to_string(i + 3) + ",8," +
           std::to_string(8 * (i % 3)) + "\n";
  MinimallocProblem s = parseMinimallocCsv(csv);
  MinimallocCheck c = checkMinimallocSolution(s, 24);
  EXPECT_TRUE(c.ok()) << c.violations.front();
  EXPECT_EQ(c.height, 24u);
  s.buffers[2500].offset = 16;
  c = checkMinimallocSolution(s, 24);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.violations[0].find("'b2500' [16, 24)"), std::string::npos) << c.violations[0];
  EXPECT_NE(c.violations[0].find("overlap while both live"), std::string::npos) << c.violations[0];
}

}  // namespace
}  // namespace allocsim
