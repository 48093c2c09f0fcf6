// withoutBody (ir/program.h): a copy of an instruction's head is the instruction with an empty body, every operand
// kept, so that the passes that copy one instruction of a loop nest (the equivalence oracle's original match, the
// reference program, the SBUF spill writer, the shrinker) see the same instruction as a whole copy would give.
#include <gtest/gtest.h>

#include "ir/parse.h"
#include "ir/program.h"

namespace allocsim {
namespace {

const char* const kNest =
    "arch tiny\n"
    "dram A [8, 64] f32 input\n"
    "dram O [8, 64] f32 output\n"
    "sbuf a [8, 64] f32\n"
    "reg i\n"
    "reg j\n"
    "dma a, A\n"
    "loop i = 0, 2, 1 {\n"
    "  loop j = 1, 3, 1 {\n"
    "    ts a[:, i*32:16], a[:, i*32:16], 2.0, mul\n"
    "  }\n"
    "}\n"
    "dma O, a\n";

TEST(WithoutBody, KeepsALoopsOperandsAndDropsItsBody) {
  const Program p = parseProgram(kNest);
  const Instruction& outer = p.body.at(1);
  ASSERT_EQ(outer.op, Op::Loop);
  ASSERT_EQ(outer.body.size(), 1u);
  const Instruction head = withoutBody(outer);
  EXPECT_TRUE(head.body.empty());
  Instruction expected = outer;
  expected.body.clear();
  EXPECT_EQ(head, expected);
  EXPECT_EQ(head.rd, p.findRegister("i"));
  EXPECT_EQ(head.hi, 2);
}

TEST(WithoutBody, IsTheWholeInstructionWhenItHasNoBody) {
  const Program p = parseProgram(kNest);
  const Instruction& ts = p.body.at(1).body.at(0).body.at(0);
  ASSERT_EQ(ts.op, Op::TS);
  ASSERT_FALSE(ts.dst.offset.terms.empty());  // a register-indexed view: its terms are copied too
  EXPECT_EQ(withoutBody(ts), ts);
}

}  // namespace
}  // namespace allocsim
