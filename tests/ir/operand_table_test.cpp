// The operand table (ir/operand_table.h): each instruction's operands in the order docs/format.md writes them, what
// it does with each, and which are views and which registers.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ir/operand_table.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

const std::string kHead =
    "arch tiny\nsbuf x [2, 4] f32\nsbuf c [2, 1] f32\nsbuf r [2, 1] f32\nsbuf y [2, 4] f32\nsbuf w [2, 2] f32\n"
    "psum acc [2, 2] f32\nreg s\nreg n\n\n";

struct Entry {
  Operand operand;
  Role role;
  std::string name;
  bool operator==(const Entry&) const = default;
};

std::vector<Entry> entries(const Instruction& inst) {
  std::vector<Entry> out;
  for (const OperandUse* u : operandUses(inst)) out.push_back({u->operand, u->role, u->name});
  return out;
}

// `ts DST, A, SCALAR, ALU [, SCALAR2, ALU2] [, reduce=OP -> R]`: a register scalar, a view second scalar and a fused
// reduction make five operands; the scalars are a register and a view.
TEST(OperandTable, TsListsEveryOperandAsWritten) {
  const Program p = parseProgram(kHead + "li s, 1\nts y, x, s, mul, c, add, reduce=add -> r\n");
  const Instruction& ts = p.body[1];
  EXPECT_EQ(entries(ts), (std::vector<Entry>{{Operand::Dst, Role::Write, "destination"},
                                             {Operand::A, Role::Read, "source"},
                                             {Operand::Scalar, Role::Read, "scalar"},
                                             {Operand::Scalar2, Role::Read, "second scalar"},
                                             {Operand::ReduceDst, Role::Write, "reduction destination"}}));
  EXPECT_EQ(operandView(ts, Operand::Scalar), nullptr);
  EXPECT_EQ(operandRegister(ts, Operand::Scalar), p.findRegister("s"));
  ASSERT_NE(operandView(ts, Operand::Scalar2), nullptr);
  EXPECT_EQ(operandView(ts, Operand::Scalar2)->tensor, p.findTensor("c"));
  EXPECT_EQ(operandRegister(ts, Operand::Scalar2), kNone);
  EXPECT_EQ(operandView(ts, Operand::ReduceDst)->tensor, p.findTensor("r"));
}

// An immediate scalar is no operand; without a second op or a reduction only the destination and the source remain.
TEST(OperandTable, ImmediatesAndAbsentPartsAreLeftOut) {
  const Program p = parseProgram(kHead + "ts y, x, 2.0, mul\nact y, x, exp, bias=c\n");
  EXPECT_EQ(entries(p.body[0]), (std::vector<Entry>{{Operand::Dst, Role::Write, "destination"},
                                                    {Operand::A, Role::Read, "source"}}));
  EXPECT_EQ(entries(p.body[1]), (std::vector<Entry>{{Operand::Dst, Role::Write, "destination"},
                                                    {Operand::A, Role::Read, "source"},
                                                    {Operand::Bias, Role::Read, "bias"}}));
}

// A matmul adds to its accumulator unless its start flag holds: the destination accumulates.
TEST(OperandTable, MatmulAccumulates) {
  const Program p = parseProgram(kHead + "memset w, 1.0\nmatmul acc, w, w, start, stop\n");
  EXPECT_EQ(entries(p.body[1]), (std::vector<Entry>{{Operand::Dst, Role::Accumulate, "destination"},
                                                    {Operand::A, Role::Read, "stationary"},
                                                    {Operand::B, Role::Read, "moving"}}));
}

// Register instructions: the destination register is written, the sources read; reg_load reads a view into a
// register, reg_store a register into a view.
TEST(OperandTable, RegisterInstructions) {
  const Program p =
      parseProgram(kHead + "li s, 1\nadd n, s, s\nreg_store c[0:1, 0:1], s\nreg_load n, c[1:2, 0:1]\n");
  EXPECT_EQ(entries(p.body[0]), (std::vector<Entry>{{Operand::Rd, Role::Write, "destination"}}));
  EXPECT_EQ(entries(p.body[1]), (std::vector<Entry>{{Operand::Rd, Role::Write, "destination"},
                                                    {Operand::Rs, Role::Read, "first source"},
                                                    {Operand::Rt, Role::Read, "second source"}}));
  EXPECT_EQ(entries(p.body[2]), (std::vector<Entry>{{Operand::Dst, Role::Write, "destination"},
                                                    {Operand::Rs, Role::Read, "source"}}));
  EXPECT_EQ(entries(p.body[3]), (std::vector<Entry>{{Operand::Rd, Role::Write, "destination"},
                                                    {Operand::A, Role::Read, "source"}}));
  EXPECT_EQ(operandRegister(p.body[1], Operand::Rd), p.findRegister("n"));
  EXPECT_EQ(operandView(p.body[1], Operand::Rd), nullptr);
}

// An index's registers are read: an affine_select's offset c, an if's condition, a loop's bound; a loop writes its
// register. Their bodies are not operands.
TEST(OperandTable, IndexOperandsAndBodies) {
  const Program p = parseProgram(kHead +
                                 "loop s = 0, 2, 1 {\n  loop n = 0, s, 1 {\n"
                                 "    affine_select y, x, p=1, e=-1, c=n, ge, 0.0\n  }\n  if s >= 1 {\n"
                                 "    memset y, 0.0\n  }\n}\n");
  const Instruction& outer = p.body[0];
  const Instruction& inner = outer.body[0];
  EXPECT_EQ(entries(inner), (std::vector<Entry>{{Operand::Rd, Role::Write, "loop register"},
                                                {Operand::MaskC, Role::Read, "bound"}}));
  EXPECT_EQ(entries(inner.body[0]), (std::vector<Entry>{{Operand::Dst, Role::Write, "destination"},
                                                        {Operand::A, Role::Read, "source"},
                                                        {Operand::MaskC, Role::Read, "mask offset c"}}));
  EXPECT_EQ(entries(outer.body[1]), (std::vector<Entry>{{Operand::MaskC, Role::Read, "condition"}}));
}

// operandOf names a view field whatever the scalar's kind; a register operand has none.
TEST(OperandTable, OperandOfViewFieldsOnly) {
  Program p = parseProgram(kHead + "act y, x, exp, scale=c\n");
  EXPECT_EQ(operandOf(p.body[0], Operand::Scale).tensor, p.findTensor("c"));
  EXPECT_EQ(&operandOf(p.body[0], Operand::Dst), &p.body[0].dst);
  EXPECT_THROW(operandOf(p.body[0], Operand::Rd), std::invalid_argument);
}

}  // namespace
}  // namespace allocsim
