// The REG colorer on generated programs on the real tiny preset (4 SP registers), at every optlevel that
// allocates from scratch (O0, O1, O2, O3, O6), among the cases whose SBUF and PSUM demand fits (the same program
// allocates at that level when the machine has 64 registers): every allocation passes all three oracles; a
// refusal is the production allocator's FATAL, and never where the allocator-independent bound
// (verify/register_demand.h) proves an allocation exists. The figures are printed. At least 85% of the cases must
// allocate: a refusal the bound proves impossible names more than 4 lanes in one instruction, which few generated
// programs do.
#include <gtest/gtest.h>

#include <iostream>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "tests/common/verify_checks.h"
#include "verify/register_demand.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// Seeds 0..29, size 20, pressure 100, as `allocsim gen --seed S --size 20 --reuse 0 --conditionals 0`.
constexpr uint64_t kPrograms = 30;

TEST(RegGenerated, TinyProgramsWhoseMemoryFitsAllocateAtEveryLevelAndPassAllOracles) {
  uint64_t fits = 0, allocated = 0, spilled = 0, justified = 0, unknown = 0;
  for (uint64_t seed = 0; seed < kPrograms; ++seed) {
    SeededChoices c(seed);
    const Program p = generateProgram(c, GenOptions{*archPreset("tiny"), 20, 100});
    for (int level : {0, 1, 2, 3, 6}) {
      const std::string what = "seed " + std::to_string(seed) + " -O" + std::to_string(level);
      DriverOptions o;
      o.optlevel = level;
      Program wide = p;
      wide.arch.sp_registers = 64;
      if (!allocatedUnlessRefused(wide, o)) continue;  // SBUF or PSUM does not fit: not a case for REG
      ++fits;
      DriverResult r;
      try {
        r = allocate(p, o);
      } catch (const AllocError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind("cannot allocate registers since spilling candidates are not enough", 0), 0u)
            << what << ": " << msg;
        const RegisterDemand d = registerDemand(p);
        if (d.confined) {
          EXPECT_GT(d.unavoidable_lanes, p.arch.sp_registers) << what << ": refused although the bound fits";
        }
        (d.unavoidable_lanes > p.arch.sp_registers ? justified : unknown) += 1;
        continue;
      }
      ++allocated;
      for (const Register& x : r.program.registers) {
        if (x.origin == Origin::Reload) {
          ++spilled;
          break;
        }
      }
      expectCorrectAllocation(p, r.program, what, seed + 1);
    }
  }
  std::cout << "  tiny (4 registers): " << allocated << " of " << fits
            << " cases whose memory fits allocate (" << spilled << " with register spills); refused: " << justified
            << " above the bound, " << unknown << " not decided by it\n";
  ASSERT_GT(fits, 0u);
  EXPECT_EQ(unknown, 0u) << "refusals the bound does not prove impossible";
  EXPECT_EQ(allocated + justified, fits) << "every case the bound does not rule out allocates";
  EXPECT_GE(allocated * 100, fits * 85) << allocated << " of " << fits;
}

}  // namespace
}  // namespace allocsim
