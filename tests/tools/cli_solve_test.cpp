// allocsim solve minimalloc (tools/verb_solve.cpp): the exact search on a minimalloc problem's own times. Each
// solution printed is parsed back and checked by minimalloc's rules here (verify/minimalloc_rules.h), not taken on
// the verb's word.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "ir/minimalloc_csv.h"
#include "tests/common/cli_run.h"
#include "verify/minimalloc_rules.h"

namespace allocsim {
namespace {


// Solves FILE at `capacity` and checks the CSV on standard output independently.
void expectValidSolution(const std::string& file, uint64_t capacity, size_t buffers) {
  const CliRun r = allocsim("solve minimalloc " + file + " --capacity " + std::to_string(capacity), "2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const MinimallocProblem solution = parseMinimallocCsv(r.out);
  ASSERT_EQ(solution.buffers.size(), buffers);
  for (const MinimallocBuffer& b : solution.buffers) EXPECT_TRUE(b.offset.has_value()) << b.id;
  const MinimallocCheck check = checkMinimallocSolution(solution, capacity);
  EXPECT_TRUE(check.ok()) << (check.violations.empty() ? "" : check.violations[0]);
  EXPECT_LE(check.height, capacity);
}

TEST(CliSolve, PlacesWithinTheCapacityAndMinimallocsRulesAgree) {
  // minimalloc's example: 5 buffers of 4 bytes, at most 3 live at once: 12 bytes is the lower bound and enough.
  expectValidSolution("bench/minimalloc/input.12.csv", 12, 5);
  // A challenging benchmark at its capacity, which is also its lower bound (max live bytes 1,048,576).
  expectValidSolution("bench/minimalloc/B.1048576.csv", 1048576, 170);
  const CliRun summary = allocsim("solve minimalloc bench/minimalloc/input.12.csv --capacity 12", "2>&1 >/dev/null");
  EXPECT_TRUE(contains(summary.out, "height 12, lower bound 12, capacity 12; minimalloc rules: valid")) << summary.out;
}

TEST(CliSolve, BelowTheLowerBoundIsProvedImpossible) {
  const CliRun r = allocsim("solve minimalloc bench/minimalloc/input.12.csv --capacity 11", "2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, "no placement within 11 bytes exists (proved)")) << r.out;
}

TEST(CliSolve, AnOvercrowdedTimeIsRefusedAtItsRow) {
  // a and b overlap over [5, 10): 16 bytes live at once from time 5, when b (line 3) starts; c never meets b's peak.
  const std::string path = testing::TempDir() + "solve_crowded.csv";
  std::ofstream(path) << "id,lower,upper,size\na,0,10,8\nb,5,15,8\nc,12,20,4\n";
  const CliRun r = allocsim("solve minimalloc " + path + " --capacity 15", "2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":3:1: exact: no placement within 15 bytes exists (proved): at time 5 the buffers "
                                     "live at once need 16 bytes; buffer 'b' of this row")) << r.out;
  // At 16 bytes it fits: no refusal.
  EXPECT_EQ(allocsim("solve minimalloc " + path + " --capacity 16", ">/dev/null 2>&1").exit_code, 0);
}

TEST(CliSolve, BadInputIsLocated) {
  const std::string path = testing::TempDir() + "solve_bad.csv";
  std::ofstream(path) << "id,lower,upper,size\na,0,4,8\nb,5,5,8\n";
  const CliRun r = allocsim("solve minimalloc " + path + " --capacity 64");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, path + ":3:")) << r.out;
  EXPECT_EQ(allocsim("solve minimalloc " + path).exit_code, 2);  // no capacity in the name, none given
}

}  // namespace
}  // namespace allocsim
