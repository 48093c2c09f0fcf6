// Spilled loop registers (alloc/reg/reg_costs.h, reg_spill.h): in the production allocator the REG colorer runs after
// loops are lowered to sequencer instructions, so an induction variable spills like any register. Here a spilled loop
// register keeps its lane at its loop's header and end and lives in memory inside the body: stored at the body's
// start, reloaded where the body reads it, reloaded into itself at the body's end. The checker accepts that last
// reload only when it gives the register back the value it holds.
#include <gtest/gtest.h>

#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/in_place.h"
#include "alloc/reg/reg_allocator.h"
#include "ir/print.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "verify/register_demand.h"
#include "tests/common/verify_checks.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// A 64-bit value read in a three-deep nest on 4 lanes. The innermost store names k and w: 3 lanes. With i and j
// in registers too it needs 5 (nest_lanes), so before loop registers could spill this was the production allocator's
// FATAL; now i or j (or both) live in memory inside their bodies. Which one is the colorer's choice; the count of
// lanes is not: k's header and the store need k and w's 2 lanes, leaving one lane for i and j, which are both live
// across k's loop unless spilled, so at least one of them spills.
constexpr const char* kWideInNest =
    "arch tiny\n"
    "dram O [1, 4] u32 output\n"
    "reg i\nreg j\nreg k\nreg w 64\n"
    "li w, 4294967297\n"
    "loop i = 0, 2, 1 {\n"
    "  loop j = 0, 2, 1 {\n"
    "    loop k = 0, 2, 1 {\n"
    "      reg_store O[0:1, k*2:2], w\n"
    "    }\n"
    "  }\n"
    "}\n";

TEST(RegLoopSpill, AWideValueInANestWhoseLoopsFillTheLanesAllocates) {
  const Program original = parseProgram(kWideInNest);
  ASSERT_TRUE(checkProgram(original).empty());
  const RegisterDemand d = registerDemand(original);
  EXPECT_EQ(d.nest_lanes, 5u);
  EXPECT_EQ(d.unavoidable_lanes, 3u);
  EXPECT_TRUE(d.confined);
  Program p = original;
  const RegStats r = allocateRegisters(p);
  EXPECT_GE(int64_t(r.spilled_loop_registers), 1);
  EXPECT_LE(int64_t(r.spilled_loop_registers), 2);
  EXPECT_EQ(checkProgram(p).size(), 0u);
  for (const Register& x : p.registers) {
    ASSERT_TRUE(x.phys) << x.name;
    EXPECT_LE(*x.phys + x.lanes(), 4u) << x.name;
  }
  // The spilled loop's body starts with the store of its register and ends with its reload into itself.
  uint32_t loops_seen = 0;
  const Instruction* loop = &p.body.back();
  for (const char* name : {"i", "j"}) {
    ASSERT_EQ(loop->op, Op::Loop);
    ASSERT_EQ(p.registers[loop->rd].name, name);
    const Instruction& first = loop->body.front();
    const Instruction& last = loop->body.back();
    if (first.op == Op::RegStore && first.origin == Origin::Spill) {
      EXPECT_EQ(first.rs, loop->rd) << name;
      ASSERT_EQ(last.op, Op::RegLoad) << name;
      EXPECT_EQ(last.origin, Origin::Reload) << name;
      EXPECT_EQ(last.rd, loop->rd) << name;
      EXPECT_EQ(last.a.tensor, first.dst.tensor) << name;
      ++loops_seen;
    }
    for (const Instruction& inst : loop->body)
      if (inst.op == Op::Loop) loop = &inst;
  }
  EXPECT_EQ(int64_t(loops_seen), int64_t(r.spilled_loop_registers));
  expectCorrectAllocation(original, p, "wide value in a nest", 3);
}

// The loop register is read in the body: the read goes through a reload, and the value reaches the output.
TEST(RegLoopSpill, ReadsOfASpilledLoopRegisterAreReloads) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [1, 6] u32 output\n"
      "reg i\nreg j\nreg w 64\nreg t\n"
      "li w, 4294967297\n"
      "loop i = 0, 2, 1 {\n"
      "  loop j = 0, 2, 1 {\n"
      "    add t, i, j\n"
      "    reg_store O[0:1, j*2:2], w\n"
      "    reg_store O[0:1, i+4:1], t\n"
      "  }\n"
      "}\n");
  ASSERT_TRUE(checkProgram(original).empty());
  EXPECT_EQ(registerDemand(original).unavoidable_lanes, 3u);  // add t, i, j
  Program p = original;
  const RegStats r = allocateRegisters(p);
  EXPECT_GE(int64_t(r.spilled), 1);
  EXPECT_TRUE(checkProgram(p).empty());
  expectCorrectAllocation(original, p, "loop register read in the body", 3);
}

// O7 re-places a fixed assignment with the REG colorer's rules (alloc/in_place.h): the spilled loop register is
// live at the two ends of its body only, so the registers placed on its lane inside the body are not overlaps.
TEST(RegLoopSpill, O7ReproducesAnAllocationWithASpilledLoopRegister) {
  const Program original = parseProgram(kWideInNest);
  DriverOptions o;
  o.optlevel = 2;
  const DriverResult first = allocate(original, o);
  EXPECT_NO_THROW(checkInPlace(first.program));
  DriverOptions fixed;
  fixed.optlevel = 7;
  const DriverResult again = allocate(first.program, fixed);
  EXPECT_EQ(printProgram(again.program), printProgram(first.program));
  expectCorrectAllocation(original, again.program, "O7 of a spilled loop register", 3);
}

std::string withBodyReload(const std::string& slot_value) {
  return "arch tiny\n"
         "dram O [1, 2] u32 output\n"
         "dram S [1, 1] u32 !spill\n"
         "reg i\nreg v\n"
         "loop i = 0, 2, 1 {\n"
         "  reg_store S, " + slot_value + " !spill\n"
         "  reg_store O[0:1, i:1], i\n"
         "  reg_load i, S !reload\n"
         "}\n";
}

// The checker: a reload into the loop's own register is accepted when the slot holds the register's value, and
// reported when it holds anything else; any other write of the loop register in its body still is.
TEST(RegLoopSpill, CheckerAcceptsAReloadOfTheLoopRegisterOnlyWithItsOwnValue) {
  EXPECT_TRUE(checkProgram(parseProgram(withBodyReload("i"))).empty());

  std::string wrong = withBodyReload("v");
  wrong.insert(wrong.find("loop i"), "li v, 7\n");
  const std::vector<Diagnostic> d = checkProgram(parseProgram(wrong));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].message.find("register 'i' is written inside the loop it controls (loop at 7:1): a reload may "
                              "give it back only the value it holds (0), and 'S' does not hold that value here"),
            std::string::npos)
      << d[0].message;

  std::string not_a_reload = withBodyReload("i");
  not_a_reload.replace(not_a_reload.find(" !reload"), 8, "");
  const std::vector<Diagnostic> e = checkProgram(parseProgram(not_a_reload));
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].message.find("register 'i' is written inside the loop it controls"), std::string::npos)
      << e[0].message;
}

}  // namespace
}  // namespace allocsim
