// Values as places (alloc/liveness.h, alloc/value_split.h): a program that reuses its PSUM tensors phase after phase
// allocates at every level in one bank, each value of a tensor may become a tensor of its own, and O7 accepts a hand
// allocation that puts every PSUM tensor on one bank.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/value_split.h"
#include "ir/parse.h"
#include "tests/common/verify_checks.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// Three PSUM tensors, each defined twice, one at a time: at no point are two PSUM tensors live, so one bank is
// enough (psum-banks=1).
std::string phases(const std::string& psum_placement) {
  const std::string at = psum_placement.empty() ? "" : " " + psum_placement;
  return "arch tiny psum-banks=1\n"
         "dram X [8, 64] f32 input\n"
         "dram W [8, 8] f32 input\n"
         "dram O [8, 64] f32 output\n"
         "sbuf x [8, 64] f32" + std::string(psum_placement.empty() ? "" : " @p0+0") + "\n"
         "sbuf w [8, 8] f32" + std::string(psum_placement.empty() ? "" : " @p0+256") + "\n"
         "sbuf s [8, 64] f32" + std::string(psum_placement.empty() ? "" : " @p0+512") + "\n"
         "psum a [8, 64] f32" + at + "\n"
         "psum b [8, 64] f32" + at + "\n"
         "psum c [8, 64] f32" + at + "\n"
         "\n"
         "dma x, X\n"
         "dma w, W\n"
         "matmul a, w, x, start, stop\n"
         "copy s, a\n"
         "matmul b, w, s, start, stop\n"
         "copy s, b\n"
         "memset c, 0.5\n"
         "tt s, s, c, add\n"
         "matmul a, w, s, start, stop\n"
         "copy s, a\n"
         "matmul b, w, s, start, stop\n"
         "copy s, b\n"
         "matmul c, w, s, start, stop\n"
         "copy s, c\n"
         "dma O, s\n";
}

void expectVerified(const Program& allocated, const Program& original) {
  expectCorrectAllocation(original, allocated, "allocated", 11);
}

TEST(ValuePhases, EveryLevelAllocatesInOneBank) {
  const Program p = parseProgram(phases(""));
  for (int level : {1, 2, 3, 6, 8}) {
    SCOPED_TRACE("-O" + std::to_string(level));
    DriverOptions o;
    o.optlevel = level;
    DriverResult r = allocate(p, o);
    expectVerified(r.program, p);
  }
  DriverOptions o;
  o.allocator = "exact";
  DriverResult r = allocate(p, o);
  expectVerified(r.program, p);
}

TEST(ValuePhases, O7AcceptsEveryPsumTensorOnOneBank) {
  const Program original = parseProgram(phases(""));
  const Program pinned = parseProgram(phases("@bank0"));
  expectVerified(pinned, original);  // the hand allocation is correct
  DriverOptions o;
  o.optlevel = 7;
  DriverResult r = allocate(pinned, o);
  for (const char* name : {"a", "b", "c"})
    EXPECT_EQ(r.program.tensors[r.program.findTensor(name)].placement->bank, 0u) << name;
  expectVerified(r.program, original);
}

TEST(ValueSplit, EachLaterValueGetsATensorOfItsOwn) {
  Program p = parseProgram(phases(""));
  const ValueSplitStats s = splitValues(p);
  // a, b, c: 2 values each; s: a value per copy into it, 5 (the tt updates it in place).
  EXPECT_EQ(s.tensors, 4u);
  EXPECT_EQ(s.values, 1u + 1u + 1u + 4u);
  std::set<TensorId> psum_operands;
  uint32_t copies_of_a = 0;
  for (const Tensor& t : p.tensors) {
    if (t.origin != Origin::Copy) continue;
    ASSERT_LT(t.copy_of, p.tensors.size());
    EXPECT_EQ(t.space, p.tensors[t.copy_of].space);
    EXPECT_EQ(t.elements, p.tensors[t.copy_of].elements);
    copies_of_a += p.tensors[t.copy_of].name == "a";
  }
  EXPECT_EQ(copies_of_a, 1u);
  for (const Instruction& i : p.body)
    if (i.op == Op::Matmul) psum_operands.insert(i.dst.tensor);
  EXPECT_EQ(psum_operands.size(), 5u);  // five matmuls, five different values
}

}  // namespace
}  // namespace allocsim
