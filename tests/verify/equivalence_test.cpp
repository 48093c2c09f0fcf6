// The equivalence oracle (verify/equivalence.h): correct allocations pass; each deliberately broken one gives
// exactly one finding that names the first bad instruction (its line), the operand, and the instruction that
// last wrote the physical bytes or register lane it read.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/no_reuse.h"
#include "ir/parse.h"
#include "tests/common/files.h"
#include "tests/common/hazard_programs.h"
#include "tests/common/program_text.h"
#include "verify/equivalence.h"

namespace allocsim {
namespace {

std::vector<Finding> check(const std::string& text, const EquivalenceOptions& o = {}) {
  return checkEquivalence(parseProgram(text), o);
}

bool hasNote(const Finding& f, const std::string& text) {
  return std::any_of(f.notes.begin(), f.notes.end(), [&](const std::string& n) { return n == text; });
}

std::string dump(const Finding& f) { return f.format("p"); }

std::string dump(const std::vector<Finding>& fs) {
  std::string s;
  for (const Finding& f : fs) s += dump(f);
  return s;
}

// The one finding of `broken`; a failure (and an empty finding) where there is not exactly one.
Finding onlyFinding(const std::string& broken) {
  std::vector<Finding> fs = check(broken);
  EXPECT_EQ(fs.size(), 1u) << dump(fs);
  return fs.size() == 1 ? fs[0] : Finding{};
}

// The same for a broken version of a correct program, after checking that the correct one passes.
Finding onlyFinding(const std::string& correct, const std::string& broken) {
  EXPECT_EQ(dump(check(correct)), "");
  return onlyFinding(broken);
}

// a is spilled, b reuses its bytes, a is reloaded onto b's bytes once b is dead.
const std::string kSpillReload = std::string(kSpillReloadDecls) + R"(
dma a, A
dma a_spill, a !spill
dma b, B
ts c, b, 1, add
dma a_Reload1, a_spill !reload
tt c, a_Reload1, c, add
dma C, c
)";

TEST(Equivalence, CorrectSpillAndReloadPass) {
  EXPECT_EQ(dump(check(kSpillReload)), "");
  EXPECT_EQ(dump(check(kSpillReload, {.input_seed = 5, .poison_seed = 99})), "");
}

TEST(Equivalence, MissingReloadNamesTheReaderAndTheTensorThatOwnsTheBytes) {
  std::string broken = replaced(kSpillReload, "dma a_Reload1, a_spill !reload", "# reload missing");
  const Finding f = onlyFinding(broken);
  EXPECT_EQ(f.oracle, Oracle::Equivalence);
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 16u);
  EXPECT_EQ(f.inst_id, 4u);  // the missing reload no longer takes an id or a step
  EXPECT_EQ(f.step, 5u);
  EXPECT_EQ(f.message.rfind("`tt c, a_Reload1, c, add` reads source a 'a_Reload1' element [0, 0] = ", 0), 0u)
      << f.message;
  EXPECT_TRUE(hasNote(f, "instruction: line 16 `tt c, a_Reload1, c, add` (id 4, step 5); reference step 4")) << dump(f);
  EXPECT_TRUE(hasNote(f, "tensor 'a_Reload1' (inserted by reload, holds 'a') element [0, 0] lives at SBUF p0 bytes 0..3"))
      << dump(f);
  EXPECT_TRUE(hasNote(f, "those bytes were last written by: line 13 `dma b, B` at step 3, writing tensor 'b'")) << dump(f);
  EXPECT_TRUE(hasNote(f, "poison seed 0, input seed 1 (the same seeds reproduce this run)")) << dump(f);
}

TEST(Equivalence, AReloadOntoFreshBytesReadsPoisonThatVariesWithTheSeed) {
  std::string broken = replaced(replaced(kSpillReload, "dma a_Reload1, a_spill !reload", "# reload missing"),
                                "a_Reload1 [8, 64] u32 @p0+0", "a_Reload1 [8, 64] u32 @p0+1024");
  std::vector<Finding> f0 = check(broken, {.poison_seed = 0});
  std::vector<Finding> f1 = check(broken, {.poison_seed = 1});
  ASSERT_EQ(f0.size(), 1u);
  ASSERT_EQ(f1.size(), 1u);
  EXPECT_EQ(f0[0].loc.line, 16u);
  EXPECT_NE(f0[0].message, f1[0].message);  // the value found is the poison, and it differs
  EXPECT_TRUE(hasNote(f0[0], "those bytes were last written by: nothing in the physical run before this step: the "
                             "bytes hold their initial contents (poison, or input data)"))
      << dump(f0);
}

const std::string kTwoLive = R"(arch tiny
dram A [8, 64] u32 input
dram B [8, 64] u32 input
dram C [8, 64] u32 output
sbuf a [8, 64] u32 @p0+0
sbuf b [8, 64] u32 @p0+256
sbuf c [8, 64] u32 @p0+512

dma a, A
dma b, B
tt c, a, b, add
dma C, c
)";

TEST(Equivalence, TwoLiveTensorsOverlappingByOneByte) {
  const Finding f = onlyFinding(kTwoLive, replaced(kTwoLive, "@p0+256", "@p0+255"));
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 11u);
  EXPECT_EQ(f.message.rfind("`tt c, a, b, add` reads source a 'a' element [0, 63] = ", 0), 0u) << f.message;
  EXPECT_TRUE(hasNote(f, "tensor 'a' element [0, 63] lives at SBUF p0 bytes 252..255; differing byte(s) 255"))
      << dump(f);
  EXPECT_TRUE(hasNote(f, "those bytes were last written by: line 10 `dma b, B` at step 2, writing tensor 'b'"))
      << dump(f);
}

const std::string kLoop = R"(arch tiny
dram A [8, 64] u32 input
dram C [8, 64] u32 output
sbuf a [8, 16] u32 @p0+0
sbuf c [8, 16] u32 @p0+64
reg n @r0
reg t @r1

loop n = 0, 4, 1 {
  li t, 3
  dma a, A[:, n*16:16]
  ts c, a, t, add
  dma C[:, n*16:16], c
}
)";

TEST(Equivalence, LoopRegisterClobberedByARegisterSharingItsLane) {
  const Finding f = onlyFinding(kLoop, replaced(kLoop, "reg t @r1", "reg t @r0"));
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 11u);
  EXPECT_EQ(f.step, 3u);
  EXPECT_EQ(f.message,
            "`dma a, A[:, n*16:16]` reads register 'n' (address of source 'A[:, n*16:16]') = 3 (0x00000003); "
            "the reference reads 0 (0x00000000)");
  EXPECT_TRUE(hasNote(f, "register 'n' @r0; lane r0 differs")) << dump(f);
  EXPECT_TRUE(hasNote(f, "lane r0 last written by: line 10 `li t, 3` at step 2, writing register 't' @r0")) << dump(f);
}

TEST(Equivalence, AnOutOfRangeAccessInThePhysicalRunIsAFindingWithItsCause) {
  const Finding f = onlyFinding(replaced(replaced(kLoop, "reg t @r1", "reg t @r0"), "li t, 3", "li t, 100"));
  EXPECT_EQ(f.kind, FindingKind::RuntimeError);
  EXPECT_EQ(f.loc.line, 11u);
  EXPECT_EQ(f.loc.col, 10u);
  EXPECT_EQ(f.step, 3u);
  EXPECT_EQ(f.message, "the physical run fails where the reference does not: elements [1600, 1616) of 'A' out of "
                       "range: it has 64 per partition");
  EXPECT_TRUE(hasNote(f, "cause: `dma a, A[:, n*16:16]` reads register 'n' (address of source 'A[:, n*16:16]') = "
                         "100 (0x00000064); the reference reads 0 (0x00000000)"))
      << dump(f);
  EXPECT_TRUE(hasNote(f, "lane r0 last written by: line 10 `li t, 100` at step 2, writing register 't' @r0"))
      << dump(f);
}

TEST(Equivalence, AClobberBeforeAFailureIsReportedWhereItIsFirstRead) {
  // t shares n's lane: the first dma reads A[:, 32:16] (in range, wrong), the second then runs out of range.
  std::string broken = replaced(replaced(replaced(kLoop, "reg t @r1", "reg t @r0"), "li t, 3", "li t, 2"),
                                "ts c, a, t, add", "addi t, t, 10");
  const Finding f = onlyFinding(broken);
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 11u);
  EXPECT_TRUE(hasNote(f, "lane r0 last written by: line 10 `li t, 2` at step 2, writing register 't' @r0")) << dump(f);
  EXPECT_TRUE(hasNote(f, "the physical run later fails at line 13: elements [192, 208) of 'C' out of range: it has 64 "
                         "per partition"))
      << dump(f);
}

const std::string kWide = R"(arch tiny
dram D [1, 2] u32 output
reg w 64 @r0
reg k @r2

li w, 0x100000005
li k, 7
reg_store D, w
)";

TEST(Equivalence, A64BitRegisterGivenOneLane) {
  const Finding f = onlyFinding(kWide, replaced(kWide, "reg k @r2", "reg k @r1"));
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 8u);
  EXPECT_EQ(f.message, "`reg_store D, w` reads register 'w' (source) = 30064771077 (0x0000000700000005); the "
                       "reference reads 4294967301 (0x0000000100000005)");
  EXPECT_TRUE(hasNote(f, "register 'w' @r0 (lanes r0, r1); lane r1 differs")) << dump(f);
  EXPECT_TRUE(hasNote(f, "lane r1 last written by: line 7 `li k, 7` at step 2, writing register 'k' @r1")) << dump(f);
}

const std::string kAccumulate = R"(arch tiny
dram S [4, 8] f32 input
dram M [4, 16] f32 input
dram O [8, 16] f32 output
sbuf s [4, 8] f32 @p0+0
sbuf m [4, 16] f32 @p0+32
sbuf o [8, 16] f32 @p0+96
sbuf o2 [8, 16] f32 @p0+160
psum acc [8, 16] f32 @bank0
psum tmp [8, 16] f32 @bank1

dma s, S
dma m, M
matmul acc, s, m, start
memset tmp, 1.5
matmul acc, s, m, stop
copy o, acc
copy o2, tmp
tt o, o, o2, add
dma O, o
)";

TEST(Equivalence, PsumBankReusedInTheMiddleOfAnAccumulationGroup) {
  const Finding f = onlyFinding(kAccumulate, replaced(kAccumulate, "psum tmp [8, 16] f32 @bank1", "psum tmp [8, 16] f32 @bank0"));
  EXPECT_EQ(f.kind, FindingKind::OperandMismatch);
  EXPECT_EQ(f.loc.line, 16u);
  EXPECT_EQ(f.message.rfind("`matmul acc, s, m, stop` reads accumulator 'acc' element [0, 0] = 1.5 (0x3fc00000); "
                            "the reference reads ",
                            0),
            0u)
      << f.message;
  EXPECT_TRUE(hasNote(f, "tensor 'acc' element [0, 0] lives at PSUM p0 bank 0 bytes 0..3; differing byte(s) 1, 2, 3")) << dump(f);
  EXPECT_TRUE(hasNote(f, "those bytes were last written by: line 15 `memset tmp, 1.5` at step 4, writing tensor 'tmp'"))
      << dump(f);
}

const std::string kSpillOverOutput = R"(arch tiny
dram A [8, 16] u32 input
dram C [8, 16] u32 output @0
sbuf x [8, 16] u32 @p0+0
dram x_spill [8, 16] u32 @512 !spill(x)

dma x, A
dma C, x
dma x_spill, x !spill
)";

TEST(Equivalence, ASpillSlotOverAnOutputIsAnOutputMismatchNamingTheSpill) {
  // The slot overlaps the output from its byte 8 on: C[0, 2] is overwritten with x[0, 0].
  const Finding f = onlyFinding(kSpillOverOutput, replaced(kSpillOverOutput, "@512 !spill(x)", "@8 !spill(x)"));
  EXPECT_EQ(f.kind, FindingKind::OutputMismatch);
  EXPECT_EQ(f.loc.line, 9u);
  EXPECT_EQ(f.step, 3u);
  EXPECT_EQ(f.message.rfind("output 'C' element [0, 2] = ", 0), 0u) << f.message;
  EXPECT_TRUE(hasNote(f, "it lives at DRAM bytes 8..11")) << dump(f);
  EXPECT_TRUE(hasNote(f, "those bytes were last written by: line 9 `dma x_spill, x !spill` at step 3 (inserted spill), "
                         "writing tensor 'x_spill' (inserted by spill, holds 'x')"))
      << dump(f);
}

// Two outputs of their own storage overwritten by inserted DMAs after their last original write: the allocated run
// gives C1 its bytes (it is final first) before C0, and the finding is still about the first output by declaration.
const std::string kInsertedWritesOverOutputs = R"(arch tiny
dram A [8, 16] u32 input
dram B [8, 16] u32 input
dram C0 [8, 16] u32 output
dram C1 [8, 16] u32 output
sbuf x [8, 16] u32 @p0+0
sbuf y [8, 16] u32 @p0+64

dma x, A
dma y, B
dma C0, x
dma C1, x
dma C1, y !spill
dma C0, y !spill
)";

TEST(Equivalence, OutputsComparedAsTheyBecomeFinalReportTheFirstDeclaredMismatch) {
  const Finding f = onlyFinding(kInsertedWritesOverOutputs);
  EXPECT_EQ(f.kind, FindingKind::OutputMismatch);
  EXPECT_EQ(f.message.rfind("output 'C0' element [0, 0] = ", 0), 0u) << f.message;
  EXPECT_EQ(f.loc.line, 14u) << dump(f);  // the inserted DMA that last wrote C0
  // Without the inserted writes both outputs agree.
  EXPECT_EQ(dump(check(replaced(replaced(kInsertedWritesOverOutputs, "dma C1, y !spill\n", ""), "dma C0, y !spill\n", ""))),
            "");
}

TEST(Equivalence, ProgramsThatCannotRunThrow) {
  EXPECT_THROW(check("arch tiny\nsbuf a [8, 4] u32\nmemset a, 1\n"), InputError);  // no placement
  // The reference itself fails: out of range on every run.
  EXPECT_THROW(check("arch tiny\nsbuf a [8, 4] u32 @p0+0\nreg n @r0\nli n, 9\nmemset a[:, n:1], 1\n"), InputError);
}

// ---- every corpus kernel, placed without reuse, is equivalent ----

// placeNoReuse, on a machine made large enough when the kernel overfills its own (the tiny kernels are meant to).
Program placedWithoutReuse(Program p) {
  try {
    return placeNoReuse(p);
  } catch (const AllocError&) {
    p.arch.sbuf_bytes = std::min<uint32_t>(p.arch.sbuf_bytes * 16, 1u << 24);
    p.arch.psum_banks = 64;
    p.arch.sp_registers = std::max<uint32_t>(p.arch.sp_registers, 64);
    return placeNoReuse(p);
  }
}

TEST(Equivalence, EveryCorpusKernelPlacedWithoutReusePasses) {
  size_t kernels = 0, tiny = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels")) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 8 || name.substr(name.size() - 8) != ".nki.txt") continue;
    ++kernels;
    tiny += name.ends_with("_tiny.nki.txt");
    Program placed = placedWithoutReuse(parseProgram(readFile(entry.path())));
    EXPECT_EQ(dump(checkEquivalence(placed, {.input_seed = 3, .poison_seed = kernels})), "") << name;
  }
  EXPECT_GT(tiny, 0u);
  EXPECT_EQ(kernels, 2 * tiny);  // every kernel and its _tiny twin
}

}  // namespace
}  // namespace allocsim
