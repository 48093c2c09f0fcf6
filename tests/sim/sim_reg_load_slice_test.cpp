// The instructions a timing-only run computes for the register loads (sim/reg_load_slice.h), on small programs whose
// data flow is worked out by hand in each test: which instruction's result can reach a reg_load's bytes, in program
// order, through loops, ifs, overlapping placements and register-indexed views.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ir/machine_layout.h"
#include "ir/parse.h"
#include "sim/reg_load_slice.h"

namespace allocsim {
namespace {

const std::string kDecls = R"(arch tiny
dram in0 [2, 4] i32 input
dram in1 [2, 4] i32 input
sbuf a [2, 4] i32 @p0+0
sbuf b [2, 4] i32 @p0+16
sbuf c [2, 4] i32 @p0+32
reg r0 @r0
reg r1 @r1
reg r2 @r2
reg r3 @r3
)";

struct Sliced {
  std::set<uint32_t> computed;   // instruction ids (preorder: the order the lines are written in)
  std::set<std::string> inputs;  // tensor names
};

Sliced sliceOf(const Program& p) {
  const sim::RegLoadSlice s = sim::regLoadSlice(p, MachineLayout(p));
  Sliced out;
  for (uint32_t id = 0; id < s.computed.size(); ++id)
    if (s.computed[id]) out.computed.insert(id);
  for (TensorId t = 0; t < s.inputs.size(); ++t)
    if (s.inputs[t]) out.inputs.insert(p.tensors[t].name);
  return out;
}

Sliced sliceOf(const std::string& body) { return sliceOf(parseProgram(kDecls + body)); }

using Ids = std::set<uint32_t>;
using Names = std::set<std::string>;

TEST(RegLoadSlice, FollowsTheChainIntoTheRegisterLoadAndNothingElse) {
  // b's element comes from a + a, a from in0; c and in1 never reach the load.
  const Sliced s = sliceOf(R"(
dma a, in0
dma c, in1
tt b, a, a, add
copy c, b
reg_load r0, b[0:1, 0:1]
)");
  EXPECT_EQ(s.computed, (Ids{0, 2}));
  EXPECT_EQ(s.inputs, (Names{"in0"}));
}

TEST(RegLoadSlice, AProgramWithoutRegisterLoadsComputesNothing) {
  const Sliced s = sliceOf("dma a, in0\ntt b, a, a, add\ndma in1, b\n");
  EXPECT_TRUE(s.computed.empty());
  EXPECT_TRUE(s.inputs.empty());
}

TEST(RegLoadSlice, AWriteAfterTheLoadDoesNotReachIt) {
  // Straight-line code: the copy into b comes after the load.
  EXPECT_TRUE(sliceOf("memset a, 1\nreg_load r0, b[0:1, 0:1]\ncopy b, a\n").computed.empty());
}

TEST(RegLoadSlice, AWriteLaterInALoopBodyReachesTheNextIterationsLoad) {
  // From the second iteration on, the load reads what the copy wrote in the one before, and the copy reads a.
  const Sliced s = sliceOf(R"(
memset a, 1
loop r1 = 0, 3, 1 {
  reg_load r0, b[0:1, 0:1]
  copy b, a
}
)");
  EXPECT_EQ(s.computed, (Ids{0, 3}));
}

TEST(RegLoadSlice, ARegisterStoreOfTheLoadedElementHidesEarlierWrites) {
  // The load reads exactly what the reg_store wrote: the memset cannot reach it.
  EXPECT_TRUE(sliceOf("memset b, 7\nreg_store b[0:1, 0:1], r1\nreg_load r0, b[0:1, 0:1]\n").computed.empty());
  // A store of another element hides nothing the load reads.
  EXPECT_EQ(sliceOf("memset b, 7\nreg_store b[0:1, 1:1], r1\nreg_load r0, b[0:1, 0:1]\n").computed, (Ids{0}));
}

TEST(RegLoadSlice, AStoreInAnIfMayNotRun) {
  const Sliced s = sliceOf(R"(
memset b, 5
if r1 == 0 {
  reg_store b[0:1, 0:1], r0
}
reg_load r2, b[0:1, 0:1]
)");
  EXPECT_EQ(s.computed, (Ids{0}));
}

TEST(RegLoadSlice, TheSameRegisterIndexedViewHidesEarlierWritesWhileItsRegistersKeepTheirValues) {
  // Each iteration loads the element it has just stored.
  EXPECT_TRUE(sliceOf(R"(
memset b, 5
loop r1 = 0, 4, 1 {
  reg_store b[0:1, r1:1], r0
  reg_load r2, b[0:1, r1:1]
}
)")
                  .computed.empty());
  // r3 moves between the store and the load: the load reads another element, which the memset wrote.
  EXPECT_EQ(sliceOf(R"(
memset b, 5
li r3, 0
loop r1 = 0, 3, 1 {
  reg_store b[0:1, r3:1], r0
  addi r3, r3, 1
  reg_load r2, b[0:1, r3:1]
}
)")
                .computed,
            (Ids{0}));
}

TEST(RegLoadSlice, ARegisterIndexedLoadStandsForItsWholeTensor) {
  // The load's element depends on r1: the memset of b's partition 1 counts, conservatively.
  EXPECT_EQ(sliceOf(R"(
loop r1 = 0, 2, 1 {
  memset b[1:1, :], 3
  reg_load r0, b[0:1, r1:1]
}
)")
                .computed,
            (Ids{1}));
  // With constant indexes the load reads partition 0 only.
  EXPECT_TRUE(sliceOf(R"(
loop r1 = 0, 2, 1 {
  memset b[1:1, :], 3
  reg_load r0, b[0:1, 1:1]
}
)")
                  .computed.empty());
}

TEST(RegLoadSlice, TensorsSharingBytesShareTheirWrites) {
  // x holds partition 0's bytes 0..15, y bytes 8..23: y's element 0 is x's element 2; y's element 3 lies past x.
  const Sliced s = sliceOf(parseProgram(R"(arch tiny
sbuf x [1, 4] i32 @p0+0
sbuf y [1, 4] i32 @p0+8
reg r0 @r0
memset y[0:1, 0:1], 1
memset y[0:1, 3:1], 2
reg_load r0, x[0:1, 2:1]
)"));
  EXPECT_EQ(s.computed, (Ids{0}));
}

TEST(RegLoadSlice, AnAccumulatingMatmulReadsItsAccumulator) {
  // The first matmul's sum is added to by the second (no start), whose result the copy brings to the load.
  const Sliced s = sliceOf(parseProgram(R"(arch tiny
dram in0 [2, 4] i32 input
sbuf a [2, 4] i32 @p0+0
sbuf b [2, 4] i32 @p0+16
sbuf c [4, 4] i32 @p0+32
psum acc [4, 4] i32 @bank0
psum other [4, 4] i32 @bank1
reg r0 @r0
dma a, in0
memset b, 2
matmul acc, a, a, start
matmul other, b, a, start, stop
matmul acc, b, b, stop
copy c, acc
reg_load r0, c[0:1, 0:1]
)"));
  EXPECT_EQ(s.computed, (Ids{0, 1, 2, 4, 5}));
  EXPECT_EQ(s.inputs, (Names{"in0"}));
}

TEST(RegLoadSlice, InstructionsNotNumberedInPreorderAreAllComputed) {
  Program p = parseProgram(kDecls + "dma a, in0\ndma c, in1\nreg_load r0, b[0:1, 0:1]\n");
  std::swap(p.body[0].id, p.body[1].id);
  const Sliced s = sliceOf(p);
  EXPECT_EQ(s.computed, (Ids{0, 1, 2}));
  EXPECT_EQ(s.inputs, (Names{"in0", "in1"}));
}

}  // namespace
}  // namespace allocsim
