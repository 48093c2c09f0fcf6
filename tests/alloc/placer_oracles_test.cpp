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
  EXPECT_EQ(checked, 2 * testing_placed::corpusKernelCount(false));
}

// Generated programs (seeds 0 .. seeds - 1) on `arch`, placed greedily: each one that fits is a correct allocation
// (tests/alloc/greedy_placer_test.cpp accounts for those that do not). Returns how many were checked.
size_t expectGreedyPlacementsCorrect(const Arch& arch, uint64_t seeds, const std::string& label) {
  size_t checked = 0;
  for (uint64_t seed = 0; seed < seeds; ++seed) {
    const Program p = testing_placed::generatedForPlacers(arch, seed);
    Program placed;
    try {
      placed = placeGreedy(p);
    } catch (const AllocError&) {
      continue;
    }
    expectCorrectUnderTwoPoisons(p, placed, label + " seed " + std::to_string(seed));
    ++checked;
    if (::testing::Test::HasFailure()) break;
  }
  return checked;
}

TEST(PlacerOracles, GeneratedProgramsPlacedGreedilyPassAllThree) {
  EXPECT_GE(expectGreedyPlacementsCorrect(*archPreset("tiny"), 2000, "tiny"), 400u);
}

// With registers to spare more programs place, so more register reuse and loop-carried values get checked.
TEST(PlacerOracles, GeneratedProgramsWithRegistersToSparePassAllThree) {
  Arch arch = *archPreset("tiny");
  arch.sp_registers = 64;
  EXPECT_GE(expectGreedyPlacementsCorrect(arch, 1000, "tiny sp-registers=64"), 500u);
}

}  // namespace
}  // namespace allocsim
