// The simple placers of alloc/ (no-reuse O0, greedy) against the three oracles of verify/: every placement they
// make of a corpus kernel or a generated program must pass placement, symbolic value flow and equivalence. A
// finding here is a bug in the placer or in the oracle; the message says which oracle and where.
#include <gtest/gtest.h>

#include <string>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/no_reuse.h"
#include "gen/generate.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/verify_checks.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// A correct allocation of `original`, under two poison patterns.
void expectCorrectUnderTwoPoisons(const Program& original, const Program& placed, const std::string& what) {
  for (uint64_t poison : {3u, 4u}) expectCorrectAllocation(original, placed, what, poison);
}

TEST(PlacerOracles, CorpusKernelsPlacedWithoutReuseAndGreedilyPassAllThree) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (testing_placed::isTinyKernel(file)) continue;  // neither placer fits them (no spilling)
    Program p = parseProgram(text);
    expectCorrectUnderTwoPoisons(p, placeNoReuse(p), file + " (no reuse)");
    expectCorrectUnderTwoPoisons(p, placeGreedy(p), file + " (greedy)");
    checked += 2;
  }
  EXPECT_EQ(checked, 16u);
}

TEST(PlacerOracles, GeneratedProgramsPlacedGreedilyPassAllThree) {
  size_t checked = 0;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    SeededChoices c(seed);
    Program p = generateProgram(c, GenOptions{*archPreset("tiny"), uint32_t(5 + seed % 30), uint32_t(10 + seed % 71)});
    std::string what = "tiny seed " + std::to_string(seed);
    try {
      Program placed = placeGreedy(p);
      expectCorrectUnderTwoPoisons(p, placed, what);
      ++checked;
    } catch (const AllocError&) {
      continue;  // tests/alloc/greedy_placer_test.cpp accounts for these
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(checked, 400u);
}

// With registers to spare more programs place, so more register reuse and loop-carried values get checked.
TEST(PlacerOracles, GeneratedProgramsWithRegistersToSparePassAllThree) {
  Arch arch = *archPreset("tiny");
  arch.sp_registers = 64;
  size_t checked = 0;
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    SeededChoices c(seed);
    Program p = generateProgram(c, GenOptions{arch, uint32_t(5 + seed % 30), uint32_t(10 + seed % 71)});
    std::string what = "tiny sp-registers=64 seed " + std::to_string(seed);
    try {
      Program placed = placeGreedy(p);
      expectCorrectUnderTwoPoisons(p, placed, what);
      ++checked;
    } catch (const AllocError&) {
      continue;
    }
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(checked, 500u);
}

}  // namespace
}  // namespace allocsim
