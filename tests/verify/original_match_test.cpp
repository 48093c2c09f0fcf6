// `verify --original` really compares with the original (verify/original_match.h): the recovered program
// must be the original instruction for instruction, the equivalence oracle then runs the original itself, and
// a mismatch names the first differing instruction of each. And `alloc --verify`'s own-output check
// (verify/correct.h): an ill-formed output or one that does not recover to the input is never ok.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "alloc/driver.h"
#include "ir/parse.h"
#include "verify/correct.h"
#include "verify/original_match.h"
#include "verify/reference.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

const char* const kOriginal =
    "arch tiny\n"
    "dram A [8, 64] f32 input\n"
    "dram B [8, 64] f32 input\n"
    "dram O [8, 64] f32 output\n"
    "sbuf a [8, 64] f32\n"
    "sbuf b [8, 64] f32\n"
    "reg i\n"
    "dma a, A\n"
    "dma b, B\n"
    "loop i = 0, 2, 1 {\n"
    "  tt a[:, i*32:32], a[:, i*32:32], b[:, i*32:32], add\n"
    "}\n"
    "dma O, a\n";

Program allocated(const Program& p) {
  DriverOptions o;
  o.optlevel = 2;
  return allocate(p, o).program;
}

VerifyReport verifyWith(const Program& alloc, const Program* original) {
  VerifyOptions o;
  o.poison_seed = 11;
  o.original = original;
  return verifyAllocated(alloc, o);
}

Instruction* firstOf(std::vector<Instruction>& body, Op op) {
  for (Instruction& i : body) {
    if (i.op == op) return &i;
    if (i.op == Op::Loop)
      if (Instruction* in = firstOf(i.body, op)) return in;
  }
  return nullptr;
}

TEST(OriginalMatch, AnAllocationOfTheOriginalMatchesAndRunsTheOriginalAsReference) {
  const Program orig = parseProgram(kOriginal);
  const Program alloc = allocated(orig);
  EXPECT_TRUE(matchOriginal(alloc, referenceProgram(alloc), orig).empty());
  VerifyReport r = verifyWith(alloc, &orig);
  EXPECT_TRUE(r.ok()) << r.findings.front().format("allocated");
  EXPECT_TRUE(r.against_original);
  EXPECT_FALSE(verifyWith(alloc, nullptr).against_original);
}

TEST(OriginalMatch, InsertedSpillsAndReloadsAreAllowed) {
  const Program alloc = parseProgram(
      "arch tiny\n"
      "dram X [8, 512] f32 input\n"
      "dram Z [8, 512] f32 output\n"
      "sbuf x [8, 512] f32 @p0+0\n"
      "dram x_Spill [8, 512] f32 @0 !spill(x)\n"
      "sbuf x_Reload [8, 512] f32 @p0+2048 !reload(x)\n"
      "dma x, X\n"
      "dma x_Spill, x !spill\n"
      "dma x_Reload, x_Spill !reload\n"
      "act x_Reload, x_Reload, square\n"
      "dma Z, x_Reload\n");
  const Program orig = parseProgram(
      "arch tiny\n"
      "dram X [8, 512] f32 input\n"
      "dram Z [8, 512] f32 output\n"
      "sbuf x [8, 512] f32\n"
      "dma x, X\n"
      "act x, x, square\n"
      "dma Z, x\n");
  EXPECT_TRUE(matchOriginal(alloc, referenceProgram(alloc), orig).empty());
  EXPECT_TRUE(verifyWith(alloc, &orig).ok());
}

TEST(OriginalMatch, AddTurnedIntoSubIsAFindingNamingBothInstructions) {
  const Program orig = parseProgram(kOriginal);
  Program alloc = allocated(orig);
  firstOf(alloc.body, Op::TT)->alu = AluOp::Sub;
  // Recovered from the allocated program alone, the reference has the `sub` too: nothing to see.
  EXPECT_TRUE(verifyWith(alloc, nullptr).ok());
  VerifyReport r = verifyWith(alloc, &orig);
  ASSERT_FALSE(r.ok());
  const Finding& f = r.findings.front();
  EXPECT_EQ(f.oracle, Oracle::Equivalence);
  EXPECT_EQ(f.kind, FindingKind::OriginalMismatch);
  EXPECT_EQ(f.loc.line, 11u);  // the allocated program's `tt`
  EXPECT_NE(f.message.find("instruction #4 of the recovered program is `tt a[:, i*32:32], a[:, i*32:32], "
                           "b[:, i*32:32], sub` where the original has `tt a[:, i*32:32], a[:, i*32:32], "
                           "b[:, i*32:32], add` (original line 11:3)"),
            std::string::npos)
      << f.message;
}

TEST(OriginalMatch, AnAddedInstructionIsAFinding) {
  const Program orig = parseProgram(kOriginal);
  Program alloc = allocated(orig);
  Instruction extra = alloc.body.back();  // a second `dma O, a`, as an original instruction
  alloc.body.push_back(extra);
  alloc.renumber();
  VerifyReport r = verifyWith(alloc, &orig);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.findings.front().kind, FindingKind::OriginalMismatch);
  EXPECT_NE(r.findings.front().message.find("instruction #6 of the recovered program is `dma O, a` where the "
                                            "original has the end of the program"),
            std::string::npos)
      << r.findings.front().message;
}

// An allocation for a machine with twice the SBUF may place tensors where this machine has no bytes.
TEST(OriginalMatch, AnAllocationForAnotherMachineIsAFinding) {
  const Program orig = parseProgram(kOriginal);
  Program alloc = allocated(orig);
  alloc.arch.sbuf_bytes *= 2;
  VerifyReport r = verifyWith(alloc, &orig);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.findings.front().kind, FindingKind::OriginalMismatch);
  EXPECT_NE(r.findings.front().message.find("the allocated program is for another machine: `arch tiny"),
            std::string::npos)
      << r.findings.front().message;
}

TEST(OriginalMatch, ADroppedInstructionOrAChangedLoopIsAFinding) {
  const Program orig = parseProgram(kOriginal);
  Program dropped = allocated(orig);
  dropped.body.pop_back();
  dropped.renumber();
  EXPECT_EQ(verifyWith(dropped, &orig).findings.front().kind, FindingKind::OriginalMismatch);
  Program loop = allocated(orig);
  firstOf(loop.body, Op::Loop)->hi = 1;
  EXPECT_EQ(verifyWith(loop, &orig).findings.front().kind, FindingKind::OriginalMismatch);
}

// The recovered side is read off the allocated program's original instructions (no copy of them): a loop's body
// length counts its original instructions only, so an allocation that inserts into a loop still matches, and one
// more original instruction in the loop is named with both lengths.
TEST(OriginalMatch, ALoopWithAnotherOriginalInstructionIsAFindingWithBothBodyLengths) {
  const Program orig = parseProgram(kOriginal);
  Program alloc = allocated(orig);
  Instruction* loop = firstOf(alloc.body, Op::Loop);
  ASSERT_NE(loop, nullptr);
  Instruction inserted = *firstOf(loop->body, Op::TT);
  inserted.origin = Origin::Copy;  // an inserted instruction in the loop body: not part of the recovered program
  loop->body.push_back(inserted);
  alloc.renumber();
  EXPECT_TRUE(matchOriginal(alloc, referenceProgram(alloc, ReferenceBody::None), orig).empty());
  Instruction twice = *firstOf(loop->body, Op::TT);
  loop->body.push_back(twice);
  alloc.renumber();
  const std::vector<Finding> fs = matchOriginal(alloc, referenceProgram(alloc, ReferenceBody::None), orig);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].kind, FindingKind::OriginalMismatch);
  EXPECT_EQ(fs[0].loc.line, 10u) << fs[0].message;  // the allocated program's loop (its line in the original)
  EXPECT_NE(fs[0].message.find("instruction #3 of the recovered program is `loop i = 0, 2, 1 {` where the original "
                               "has `loop i = 0, 2, 1 {` (original line 10:1)"),
            std::string::npos)
      << fs[0].message;
  EXPECT_NE(std::find(fs[0].notes.begin(), fs[0].notes.end(), "the loops' bodies differ in length: 2 and 1"),
            fs[0].notes.end());
  // The same finding from a recovered program with its copy of the instructions.
  const std::vector<Finding> copied = matchOriginal(alloc, referenceProgram(alloc), orig);
  ASSERT_EQ(copied.size(), 1u);
  EXPECT_EQ(copied[0].message, fs[0].message);
  EXPECT_EQ(copied[0].notes, fs[0].notes);
}

TEST(OriginalMatch, AnUnrelatedKernelIsAFinding) {
  const Program orig = parseProgram(kOriginal);
  const Program other = parseProgram(
      "arch tiny\n"
      "dram X [8, 512] f32 input\n"
      "dram Z [8, 512] f32 output\n"
      "sbuf x [8, 512] f32 @p0+0\n"
      "dma x, X\n"
      "dma Z, x\n");
  VerifyReport r = verifyWith(other, &orig);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.findings.front().kind, FindingKind::OriginalMismatch);
  EXPECT_NE(r.findings.front().message.find("tensor #0 is `dram X [8, 512] f32 input`"), std::string::npos)
      << r.findings.front().message;
}

TEST(AllocatorOutput, IllFormedOutputIsNeverOk) {
  const Program orig = parseProgram(kOriginal);
  Program out = allocated(orig);
  // A read of `a` before anything wrote it: well-formedness rejects it, whatever the oracles would say.
  Instruction early = out.body.back();  // dma O, a
  out.body.insert(out.body.begin(), early);
  out.body.front().origin = Origin::Copy;  // inserted: the recovered program stays the original
  out.renumber();
  CorrectnessOptions check;
  check.input = &orig;
  Verdict v = checkAllocation(out, check);
  EXPECT_EQ(v.defect, Defect::IllFormed);
  EXPECT_FALSE(v.diagnostics.empty());
  EXPECT_FALSE(v.ok());
  EXPECT_FALSE(v.report.oracles[0].ran);
}

TEST(AllocatorOutput, OutputThatDoesNotRecoverToTheInputIsNeverOk) {
  const Program orig = parseProgram(kOriginal);
  Program out = allocated(orig);
  firstOf(out.body, Op::TT)->alu = AluOp::Sub;
  CorrectnessOptions check;
  check.input = &orig;
  check.verify.poison_seed = 3;
  Verdict v = checkAllocation(out, check);
  EXPECT_EQ(v.defect, Defect::NotTheInput);
  EXPECT_NE(v.mismatch.find("the input has `tt"), std::string::npos) << v.mismatch;
  EXPECT_FALSE(v.ok());
  // As an original only (no input to implement), the oracles run and the equivalence oracle finds the mismatch.
  CorrectnessOptions original_only;
  original_only.verify.original = &orig;
  original_only.verify.poison_seed = 3;
  Verdict w = checkAllocation(out, original_only);
  EXPECT_EQ(w.defect, Defect::Findings);
  EXPECT_EQ(w.report.findings.front().kind, FindingKind::OriginalMismatch);
  // The same output against itself as the input passes: the checks above failed for the mismatch alone.
  const Program itself = referenceProgram(out).program;
  check.input = &itself;
  EXPECT_TRUE(checkAllocation(out, check).ok());
}

}  // namespace
}  // namespace allocsim
