// Properties of the REG colorer (alloc/reg/, the production allocator's REG_Allocator) on the real tiny machine (4 SP
// registers): generated programs allocated at O0/O1/O2/O3/O6 are well-formed and pass all three oracles; the colorer
// refuses ("cannot allocate registers since spilling candidates are not enough") only when an allocator-independent
// bound (verify/register_demand.h) says no allocation can exist; the same input gives the same output; and
// re-allocating the result at O7 keeps every register placement. A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/check.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "props/require_correct.h"
#include "verify/register_demand.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

constexpr const char* kRegFatal = "cannot allocate registers since spilling candidates are not enough";

// The real tiny machine; SBUF and PSUM doubled so that memory rarely ends a case before REG runs.
rc::Gen<Program> genRegisterProgram() {
  Arch arch = *archPreset("tiny");
  arch.sbuf_bytes *= 2;
  arch.psum_banks *= 2;
  return genProgramOn(arch, 30);
}

bool isRegFatal(const AllocError& e) { return std::string(e.what()).rfind(kRegFatal, 0) == 0; }

RC_GTEST_PROP(RegColorer, TinyAllocationsPassAllOraclesAndRefuseOnlyWhenNothingFits, ()) {
  const Program p = *genRegisterProgram();
  const int level = *rc::gen::element(0, 1, 2, 3, 6);
  DriverOptions o;
  o.optlevel = level;
  const std::string name = "reg_O" + std::to_string(level);
  DriverResult r;
  try {
    r = allocate(p, o);
  } catch (const AllocError& e) {
    if (!isRegFatal(e)) RC_DISCARD("memory does not fit");
    const RegisterDemand d = registerDemand(p);
    if (d.confined && d.unavoidable_lanes <= p.arch.sp_registers) {
      saveRegression(name + "_refused", p, e.what());
      RC_FAIL("REG refused although every instruction fits with its loops in " +
              std::to_string(d.unavoidable_lanes) + " lanes: " + e.what());
    }
    RC_TAG("refused (justified)");
    return;
  }
  requireCorrectAllocation(name + "_finding", p, r.program, *rc::gen::inRange<uint64_t>(1, UINT64_MAX));
  bool spilled = false;
  for (const Register& x : r.program.registers) spilled |= x.origin != Origin::Source;
  RC_TAG(spilled ? "registers spilled" : "no register spill");
}

RC_GTEST_PROP(RegColorer, DeterministicAndReproducedAtO7, ()) {
  const Program p = *genRegisterProgram();
  DriverOptions o;
  o.optlevel = 2;
  DriverResult a;
  try {
    a = allocate(p, o);
  } catch (const AllocError&) {
    RC_DISCARD("allocation impossible");
  }
  DriverResult b = allocate(p, o);
  RC_ASSERT(printProgram(a.program) == printProgram(b.program));
  RC_ASSERT(a.steps == b.steps);
  requireFixedAssignmentReproduces("reg_O7_rejects", p, a.program);
}

}  // namespace
}  // namespace allocsim
