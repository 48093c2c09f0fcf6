// SSA-copy coalescing in the REG colorer (alloc/reg/reg_coalesce.h, the production allocator's REG_Allocator
// coalesce_ssa_live_range / propagate_coalesced_ssa_allocation) and the placement oracle's rule for a `mov` whose
// destination sits on its source's lanes (docs/verification.md, oracle 3).
#include <gtest/gtest.h>

#include <string>

#include "alloc/driver.h"
#include "alloc/in_place.h"
#include "alloc/reg/reg_allocator.h"
#include "ir/print.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "verify/placement.h"
#include "tests/common/verify_checks.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// x, y, z are live from their `li` to the end. The value 7 moves a -> b -> c, each source dying at its copy.
// Counting a copy's source and destination as both live at the copy (the closed intervals of liveness.h), the
// copy `mov b, a` has x, y, z, a, b live: 5 lanes on a 4-lane machine, so without coalescing one register must
// spill. Coalesced, a, b and c are one node that meets x, y and z: 4 nodes, 4 lanes, no spill; a, b and c share
// a lane, and the two copies cost nothing.
constexpr const char* kCopyChain =
    "arch tiny\n"
    "dram O [1, 4] u32 output\n"
    "reg x\nreg y\nreg z\nreg a\nreg b\nreg c\n"
    "li x, 1\nli y, 2\nli z, 3\n"
    "li a, 7\n"
    "mov b, a\n"
    "mov c, b\n"
    "reg_store O[0:1, 0:1], x\nreg_store O[0:1, 1:1], y\nreg_store O[0:1, 2:1], z\nreg_store O[0:1, 3:1], c\n";

TEST(RegCoalesce, CopiesWhoseSourceDiesCostNoRegister) {
  const Program original = parseProgram(kCopyChain);
  Program p = original;
  const AllocReport r = allocateRegisters(p);
  EXPECT_EQ(reportField(r, "reg.spilled"), 0);
  EXPECT_EQ(reportField(r, "reg.rounds"), 1);
  EXPECT_EQ(reportField(r, "reg.coalesced_copies"), 2);
  EXPECT_EQ(reportField(r, "reg.lanes_used"), 4);
  const Register& a = p.registers[p.findRegister("a")];
  EXPECT_EQ(a.phys, p.registers[p.findRegister("b")].phys);
  EXPECT_EQ(a.phys, p.registers[p.findRegister("c")].phys);
  for (const char* other : {"x", "y", "z"}) EXPECT_NE(a.phys, p.registers[p.findRegister(other)].phys) << other;
  EXPECT_TRUE(checkProgram(p).empty());
  expectCorrectAllocation(original, p, "copy chain", 5);
}

// The same chain, but a is read again after `mov b, a`: a and b hold one value after the copy, yet a is live past
// it, so their ranges overlap beyond the copy and they are not coalesced (the placement oracle would flag them,
// below). x, y, z, a, b are live at once: 5 lanes on 4, so something spills, and the result passes the oracles.
TEST(RegCoalesce, ASourceLiveAfterItsCopyIsNotCoalesced) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [1, 5] u32 output\n"
      "reg x\nreg y\nreg z\nreg a\nreg b\n"
      "li x, 1\nli y, 2\nli z, 3\n"
      "li a, 7\n"
      "mov b, a\n"
      "reg_store O[0:1, 4:1], a\n"
      "reg_store O[0:1, 0:1], x\nreg_store O[0:1, 1:1], y\nreg_store O[0:1, 2:1], z\nreg_store O[0:1, 3:1], b\n");
  Program p = original;
  const AllocReport r = allocateRegisters(p);
  EXPECT_EQ(reportField(r, "reg.coalesced_copies"), 0);
  EXPECT_GE(reportField(r, "reg.spilled"), 1);
  expectCorrectAllocation(original, p, "source live after the copy", 5);
}

Program placed(const std::string& body, uint32_t a_lane, uint32_t b_lane) {
  Program p = parseProgram("arch tiny\ndram O [1, 2] u32 output\nreg a\nreg b\n" + body);
  p.registers[p.findRegister("a")].phys = a_lane;
  p.registers[p.findRegister("b")].phys = b_lane;
  return p;
}

std::vector<Finding> overlaps(const Program& p) {
  std::vector<Finding> out;
  for (const Finding& f : checkPlacement(p, {}))
    if (f.kind == FindingKind::RegisterOverlap) out.push_back(f);
  return out;
}

// Oracle 3 alone, on hand placements: b on a's lane is fine when a dies at `mov b, a`; it is an overlap when a is
// read after the copy, when the copy is dead, when the copy is an `addi` (a new value written over a dying source),
// and when b is written while a is live before the copy. On different lanes nothing overlaps.
TEST(RegCoalesce, PlacementOracleAcceptsASameLaneCopyOnlyWhereTheSourceDies) {
  const std::string dies = "li a, 7\nmov b, a\nreg_store O[0:1, 0:1], b\n";
  EXPECT_TRUE(overlaps(placed(dies, 0, 0)).empty());
  EXPECT_TRUE(overlaps(placed(dies, 0, 1)).empty());

  const std::string read_after = "li a, 7\nmov b, a\nreg_store O[0:1, 0:1], b\nreg_store O[0:1, 1:1], a\n";
  EXPECT_EQ(overlaps(placed(read_after, 0, 0)).size(), 1u);
  EXPECT_TRUE(overlaps(placed(read_after, 0, 1)).empty());

  // A dead copy (b never read) inside a's range: the bits on the lane stay, but the copy's write is a new value
  // over a live one (oracle 2 reports the read of a after it), so it is an overlap.
  const std::string dead_copy = "li a, 7\nmov b, a\nreg_store O[0:1, 1:1], a\n";
  EXPECT_EQ(overlaps(placed(dead_copy, 0, 0)).size(), 1u);

  const std::string not_a_copy = "li a, 7\naddi b, a, 0\nreg_store O[0:1, 0:1], b\n";
  EXPECT_EQ(overlaps(placed(not_a_copy, 0, 0)).size(), 1u);

  // b written while a is still live (a read after b's own `li`): the copy later does not excuse that.
  const std::string written_while_live = "li a, 7\nli b, 1\nreg_store O[0:1, 1:1], b\nmov b, a\n"
                                         "reg_store O[0:1, 0:1], b\n";
  EXPECT_EQ(overlaps(placed(written_while_live, 0, 0)).size(), 1u);
}

// In a loop: each iteration's copy ends the source's value and starts the destination's; coalesced, the loop
// body needs one lane for the chain besides the loop register.
TEST(RegCoalesce, CopiesInALoopAreCoalescedEveryIteration) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [1, 6] u32 output\n"
      "reg i\nreg x\nreg y\nreg a\nreg b\n"
      "li x, 1\nli y, 2\n"
      "loop i = 0, 4, 1 {\n"
      "  addi a, i, 3\n"
      "  mov b, a\n"
      "  reg_store O[0:1, i:1], b\n"
      "}\n"
      "reg_store O[0:1, 4:1], x\nreg_store O[0:1, 5:1], y\n");
  Program p = original;
  const AllocReport r = allocateRegisters(p);
  // i, x, y live over the loop; a -> b needs a fifth lane at the copy unless coalesced.
  EXPECT_EQ(reportField(r, "reg.spilled"), 0);
  EXPECT_EQ(reportField(r, "reg.coalesced_copies"), 1);
  EXPECT_EQ(p.registers[p.findRegister("a")].phys, p.registers[p.findRegister("b")].phys);
  expectCorrectAllocation(original, p, "copy in a loop", 5);
}

// O7 takes an allocation as a fixed assignment and re-places it (alloc/in_place.h): coalesced copies must pass
// its in-place checker, which must not report the shared lane as an overlap (a case the property
// Coloring.FixedAssignmentReproducesAnAllocation found on `li r0, 0` / `mov r1, r0`).
TEST(RegCoalesce, O7ReproducesACoalescedAllocation) {
  const Program original = parseProgram(kCopyChain);
  DriverOptions o;
  o.optlevel = 2;
  const DriverResult first = allocate(original, o);
  const Program& allocated = first.program;
  ASSERT_EQ(allocated.registers[allocated.findRegister("a")].phys,
            allocated.registers[allocated.findRegister("c")].phys);
  EXPECT_NO_THROW(checkInPlace(allocated));
  DriverOptions fixed;
  fixed.optlevel = 7;
  const DriverResult again = allocate(allocated, fixed);
  EXPECT_EQ(printProgram(again.program), printProgram(allocated));
}

}  // namespace
}  // namespace allocsim
