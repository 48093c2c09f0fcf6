// O7 (fixed assignment) given a program the driver allocated at O1, O2, O3 or O6 gives it back unchanged when its DMA
// optimization is off: the property coloring_driver_fuzz checks on every input. The program is the one that target
// found with DMA optimization on (corpus/regressions/o7_second_dma_pass.nki.txt): O7's DMA pass then removed a
// reload the first pass had left redundant, a change of instructions, not of placements.
#include <gtest/gtest.h>

#include <string>

#include "alloc/driver.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/placed_program_checks.h"

namespace allocsim {
namespace {

TEST(FixedAssignmentReplay, O7ReproducesEachColoringLevelWithDmaOptimizationOff) {
  const Program p = parseProgram(
      readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/regressions/o7_second_dma_pass.nki.txt"));
  for (int level : {1, 2, 3, 6}) {
    DriverOptions o;
    o.optlevel = level;
    const DriverResult first = allocate(p, o);
    DriverOptions fixed;
    fixed.optlevel = 7;
    fixed.gca_dma_optlevel = -1;
    EXPECT_EQ(printProgram(allocate(first.program, fixed).program), printProgram(first.program)) << "O" << level;
  }
}

}  // namespace
}  // namespace allocsim
