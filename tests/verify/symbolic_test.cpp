// The symbolic value-flow checker (verify/symbolic.h): correct allocations with spills, reloads and register
// spills raise nothing; each classic allocation bug is caught at the first instruction that reads a wrong value,
// with the expected and the found value named.
#include "verify/symbolic.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gen/generate.h"
#include "ir/check.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

std::vector<Finding> check(const std::string& text) {
  Program p = parseProgram(text);
  requireWellFormed(p);  // every break below is an allocation bug, not a malformed program
  return checkSymbolic(p);
}

// The findings of `program` ended by the placement digit `bad`, then `body`, after checking that the same program with
// the digit `good` has none.
std::vector<Finding> findingsWhenMisplaced(const std::string& program, const std::string& good, const std::string& bad,
                                           const std::string& body) {
  EXPECT_TRUE(check(program + good + body).empty());
  return check(program + bad + body);
}

std::string all(const std::vector<Finding>& fs) {
  std::string out;
  for (const Finding& f : fs) out += f.format("t");
  return out;
}

// Exactly one finding, of `kind`, at `line`, with this message.
void expectFinding(const std::vector<Finding>& fs, FindingKind kind, uint32_t line, const std::string& message) {
  ASSERT_EQ(fs.size(), 1u) << all(fs);
  EXPECT_EQ(fs[0].oracle, Oracle::Symbolic);
  EXPECT_EQ(fs[0].kind, kind) << all(fs);
  EXPECT_EQ(fs[0].loc.line, line) << all(fs);
  EXPECT_EQ(fs[0].message, message) << all(fs);
}

const std::string kHeader =
    "arch tiny\n"                            // 1
    "dram A [8, 16] f32 input\n"             // 2
    "dram O [8, 16] f32 output\n";           // 3

// a is spilled to DRAM while b reuses its bytes, then reloaded, into its own place or into a tensor of its own.
std::string spillProgram(const std::string& slot_b_at, const std::string& reload_dst, const std::string& reload_src,
                         bool reload_late) {
  const std::string reload = "dma " + reload_dst + ", " + reload_src + " !reload\n";
  const std::string use = "tt c, " + reload_dst + ", c, add\n";
  return kHeader +
         "sbuf a [8, 16] f32 @p0+0\n"                      // 4
         "sbuf b [8, 16] f32 @p0+0\n"                      // 5
         "sbuf c [8, 16] f32 @p0+64\n"                     // 6
         "dram a_Spill1 [8, 16] f32 @0 !spill(a)\n"        // 7
         "dram b_Spill1 [8, 16] f32 " + slot_b_at + " !spill(b)\n"  // 8
         "sbuf a_Reload1 [8, 16] f32 @p0+128 !reload(a)\n"  // 9
         "\n"                                               // 10
         "dma a, A\n"                                       // 11
         "dma a_Spill1, a !spill\n"                         // 12
         "memset b, 2.0\n"                                  // 13
         "dma b_Spill1, b !spill\n"                         // 14
         "tt c, b, b, add\n" +                              // 15
         (reload_late ? use + reload : reload + use) +      // 16, 17
         "dma O, c\n";                                      // 18
}

TEST(Symbolic, CorrectSpillAndReloadPass) {
  EXPECT_TRUE(check(spillProgram("@512", "a", "a_Spill1", false)).empty());
  EXPECT_TRUE(check(spillProgram("@512", "a_Reload1", "a_Spill1", false)).empty());
}

TEST(Symbolic, DeadTensorSpaceReusedPasses) {
  EXPECT_TRUE(check(kHeader +
                    "sbuf a [8, 16] f32 @p0+0\n"
                    "sbuf b [8, 16] f32 @p0+0\n"
                    "\n"
                    "dma a, A\n"
                    "tt b, a, a, add\n"  // a dies here; b takes its bytes
                    "tt b, b, b, mul\n"
                    "dma O, b\n")
                  .empty());
}

TEST(Symbolic, ReloadOneInstructionTooLate) {
  auto fs = check(spillProgram("@512", "a", "a_Spill1", true));
  expectFinding(fs, FindingKind::Clobber, 16, "`tt c, a, c, add` reads first source 'a' element [0, 0], which 'b' overwrote (clobber)");
  ASSERT_EQ(fs[0].notes.size(), 3u);
  EXPECT_EQ(fs[0].notes[0], "expected: the value `dma a, A` (11:1) at step 1 wrote to 'a' element [0, 0]");
  EXPECT_EQ(fs[0].notes[1], "found: the value `memset b, 2.0` (13:1) at step 3 wrote to 'b' element [0, 0]");
  EXPECT_EQ(fs[0].notes[2], "location: SBUF partition 0, bytes 0..3, last written by `memset b, 2.0` (13:1) at step 3");
  EXPECT_EQ(fs[0].inst_id, 5u);
  EXPECT_EQ(fs[0].step, 6u);
}

TEST(Symbolic, OneSpillSlotSharedByTwoLiveValues) {
  auto fs = check(spillProgram("@0", "a", "a_Spill1", false));  // b's slot is a's
  expectFinding(fs, FindingKind::Clobber, 16,
                "`dma a, a_Spill1 !reload` reads source 'a_Spill1' element [0, 0], which 'b' overwrote (clobber)");
  ASSERT_EQ(fs[0].notes.size(), 3u);
  EXPECT_EQ(fs[0].notes[0], "expected: the value `dma a, A` (11:1) at step 1 wrote to 'a' element [0, 0]");
  EXPECT_EQ(fs[0].notes[1], "found: the value `memset b, 2.0` (13:1) at step 3 wrote to 'b' element [0, 0]");
  EXPECT_EQ(fs[0].notes[2], "location: DRAM bytes 0..3, last written by the inserted `dma b_Spill1, b !spill` (14:1) at step 4");
}

TEST(Symbolic, ReloadFromTheWrongSpillSlot) {
  auto fs = check(spillProgram("@512", "a_Reload1", "b_Spill1", false));
  expectFinding(fs, FindingKind::WrongValue, 17,
                "`tt c, a_Reload1, c, add` reads first source 'a_Reload1' element [0, 0], which holds a value of "
                "'b', not the value the reference program reads");
  ASSERT_EQ(fs[0].notes.size(), 2u);
  EXPECT_EQ(fs[0].notes[0], "expected: the value `dma a, A` (11:1) at step 1 wrote to 'a' element [0, 0]");
  EXPECT_EQ(fs[0].notes[1], "found: the value `memset b, 2.0` (13:1) at step 3 wrote to 'b' element [0, 0]");
  EXPECT_EQ(fs[0].step, 7u);
}

TEST(Symbolic, TwoLiveTensorsOverlappingByOneByte) {
  // a holds bytes 0..63 of each partition; c starts at byte 63 instead of 64.
  auto fs = check(kHeader +
                  "sbuf a [8, 16] f32 @p0+0\n"   // 4
                  "sbuf c [8, 16] f32 @p0+63\n"  // 5
                  "\n"
                  "dma a, A\n"         // 7
                  "memset c, 1.0\n"    // 8
                  "tt c, a, c, add\n"  // 9
                  "dma O, c\n");
  expectFinding(fs, FindingKind::Clobber, 9, "`tt c, a, c, add` reads first source 'a' element [0, 15], which 'c' overwrote (clobber)");
  EXPECT_EQ(fs[0].notes[2], "location: SBUF partition 0, byte 63, last written by `memset c, 1.0` (8:1) at step 2");
}

TEST(Symbolic, PartitionRangeOffByOne) {
  auto fs = check("arch tiny\n"
                  "dram A [4, 16] f32 input\n"
                  "dram O [4, 16] f32 output\n"
                  "sbuf a [4, 16] f32 @p0+0\n"
                  "sbuf b [4, 16] f32 @p3+0\n"  // 5: partitions 3..6, but a holds 0..3
                  "\n"
                  "dma a, A\n"         // 7
                  "memset b, 1.0\n"    // 8
                  "tt b, a, b, add\n"  // 9
                  "dma O, b\n");
  expectFinding(fs, FindingKind::Clobber, 9, "`tt b, a, b, add` reads first source 'a' element [3, 0], which 'b' overwrote (clobber)");
  EXPECT_EQ(fs[0].notes[2], "location: SBUF partition 3, bytes 0..3, last written by `memset b, 1.0` (8:1) at step 2");
}

TEST(Symbolic, PsumBankReusedInTheMiddleOfAnAccumulationGroup) {
  const std::string program =
      "arch tiny\n"
      "dram A [8, 8] f32 input\n"
      "dram O [8, 8] f32 output\n"
      "dram P [8, 8] f32 output\n"
      "sbuf s [8, 8] f32 @p0+0\n"
      "sbuf r [8, 8] f32 @p0+32\n"
      "psum acc [8, 8] f32 @bank0\n"
      "psum tmp [8, 8] f32 @bank";  // 8
  const std::string body =
      "\n"
      "reg k @r0\n"
      "\n"
      "dma s, A\n"  // 11
      "loop k = 0, 2, 1 {\n"
      "  matmul acc, s, s, start@first, stop@last\n"  // 13
      "  matmul tmp, s, s, start, stop\n"             // 14
      "}\n"
      "copy r, acc\n"
      "dma O, r\n"
      "copy r, tmp\n"
      "dma P, r\n";
  auto fs = findingsWhenMisplaced(program, "1", "0", body);
  expectFinding(fs, FindingKind::Clobber, 13,
                "`matmul acc, s, s, start@first, stop@last` reads accumulator 'acc' element [0, 0], which 'tmp' "
                "overwrote (clobber)");
  EXPECT_EQ(fs[0].step, 6u);  // the loop's second iteration
  EXPECT_EQ(fs[0].notes[2], "location: PSUM partition 0, bank 0, bytes 0..3, last written by `matmul tmp, s, s, start, stop` (14:3) at step 4");
}

TEST(Symbolic, LoopRegisterClobberedInsideItsLoop) {
  const std::string program = kHeader +
                              "sbuf a [8, 16] f32 @p0+0\n"
                              "reg k @r0\n"
                              "reg t @r";  // 6
  const std::string body =
      "\n"
      "\n"
      "loop k = 0, 16, 8 {\n"          // 8
      "  li t, 3\n"                     // 9
      "  dma a[:, k:8], A[:, k:8]\n"    // 10
      "  ts a[:, k:8], a[:, k:8], t, add\n"
      "}\n"
      "dma O, a\n";
  auto fs = findingsWhenMisplaced(program, "1", "0", body);
  expectFinding(fs, FindingKind::Clobber, 10, "`dma a[:, k:8], A[:, k:8]` reads register 'k', which register 't' overwrote (clobber)");
  EXPECT_EQ(fs[0].notes[0], "expected: the value `loop k = 0, 16, 8 {` (8:1) at step 1 wrote to register 'k'");
  EXPECT_EQ(fs[0].notes[2], "location: register lane @r0, last written by `li t, 3` (9:3) at step 2");
}

TEST(Symbolic, SixtyFourBitRegisterGivenOneLane) {
  const std::string program = kHeader +
                              "sbuf a [8, 16] f32 @p0+0\n"
                              "reg i 64 @r0\n"
                              "reg j @r";  // 6
  const std::string body =
      "\n"
      "\n"
      "li i, 8\n"                       // 8
      "li j, 3\n"                       // 9
      "dma a[:, 0:8], A[:, 0:8]\n"
      "dma a[:, i:8], A[:, i:8]\n"      // 11
      "ts a, a, j, add\n"
      "dma O, a\n";
  auto fs = findingsWhenMisplaced(program, "2", "1", body);
  expectFinding(fs, FindingKind::Clobber, 11, "`dma a[:, i:8], A[:, i:8]` reads register 'i' lane 1, which register 'j' overwrote (clobber)");
}

TEST(Symbolic, RegisterSpillAndReloadPass) {
  // n and t share @r0: n goes to a DRAM slot while t is live, then comes back.
  const std::string program = kHeader +
                              "sbuf a [8, 16] f32 @p0+0\n"
                              "dram n_Slot [1, 2] u32 @0 !spill\n"
                              "reg n 64 @r0\n"
                              "reg t @r0\n"
                              "\n"
                              "li n, 8\n"
                              "reg_store n_Slot, n !spill\n"
                              "li t, 0\n"
                              "dma a[:, t:8], A[:, t:8]\n";
  EXPECT_TRUE(check(program +
                    "reg_load n, n_Slot !reload\n"
                    "dma a[:, n:8], A[:, n:8]\n"
                    "dma O, a\n")
                  .empty());
  // Without the reload, n's address term reads t.
  auto fs = check(program +
                  "dma a[:, n:8], A[:, n:8]\n"  // 13
                  "dma O, a\n");
  expectFinding(fs, FindingKind::Clobber, 13, "`dma a[:, n:8], A[:, n:8]` reads register 'n' lane 0, which register 't' overwrote (clobber)");
}

TEST(Symbolic, DmaReadsStaleDataAfterTheTensorMoved) {
  // a moves to a_Moved (its old bytes stay as they were); the update goes to the new place, but the final DMA
  // still reads the old one.
  const std::string program = kHeader +
                              "sbuf a [8, 16] f32 @p0+0\n"
                              "sbuf a_Moved [8, 16] f32 @p0+128 !copy(a)\n"
                              "\n"
                              "dma a, A\n"                        // 7
                              "copy a_Moved, a !copy\n"           // 8
                              "ts a_Moved, a_Moved, 1.0, add\n";  // 9
  EXPECT_TRUE(check(program + "dma O, a_Moved\n").empty());
  auto fs = check(program + "dma O, a\n");  // 10
  expectFinding(fs, FindingKind::StaleRead, 10,
                "`dma O, a` reads source 'a' element [0, 0] and finds an out-of-date value of it (stale read)");
  EXPECT_EQ(fs[0].notes[0], "expected: the value `ts a_Moved, a_Moved, 1.0, add` (9:1) at step 3 wrote to 'a_Moved' element [0, 0]");
  EXPECT_EQ(fs[0].notes[1], "found: the value `dma a, A` (7:1) at step 1 wrote to 'a' element [0, 0]");
}

TEST(Symbolic, OutputClobberedAfterItsLastWrite) {
  // O shares DRAM bytes with a spill slot written after O's last write; no instruction reads O again.
  auto fs = check(kHeader.substr(0, kHeader.size() - 1) + " @0\n" +  // O @0
                  "sbuf a [8, 16] f32 @p0+0\n"
                  "dram a_Spill1 [8, 16] f32 @0 !spill(a)\n"
                  "\n"
                  "dma a, A\n"
                  "dma O, a\n"
                  "dma a_Spill1, a !spill\n");
  expectFinding(fs, FindingKind::Clobber, 3, "at the end of the run, output 'O' element [0, 0], which 'a' overwrote (clobber)");
  EXPECT_EQ(fs[0].inst_id, kNone);
  EXPECT_EQ(fs[0].notes[2], "location: DRAM bytes 0..3, last written by the inserted `dma a_Spill1, a !spill` (9:1) at step 3");
}

// Outputs are checked a run of elements at a time; the finding still names the first element that differs, here
// the one element of O a one-element spill slot shares bytes with (O [8, 16] f32 @0: element [2, 3] at byte 140).
TEST(Symbolic, AnOutputClobberedInOneElementIsReportedAtThatElement) {
  auto fs = check(kHeader.substr(0, kHeader.size() - 1) + " @0\n" +  // O @0
                  "sbuf x [8, 16] f32 @p0+64\n"
                  "sbuf a [1, 1] f32 @p0+0\n"
                  "dram a_Spill1 [1, 1] f32 @140 !spill(a)\n"
                  "\n"
                  "dma x, A\n"
                  "dma O, x\n"
                  "dma a, A[0:1, 0:1]\n"
                  "dma a_Spill1, a !spill\n");
  expectFinding(fs, FindingKind::Clobber, 3, "at the end of the run, output 'O' element [2, 3], which 'a' overwrote (clobber)");
}

// Outputs of their own storage are judged when they become final (their last statement) and their symbols
// dropped; the report is still the end of the run's: reads first, then the outputs in declaration order. Here P
// becomes final first and both are wrong, yet O, declared first, is the one reported.
TEST(Symbolic, OutputsJudgedEarlyAreReportedInDeclarationOrder) {
  auto fs = check(kHeader +
                  "dram P [8, 16] f32 output\n"
                  "sbuf a [8, 16] f32 @p0+0\n"
                  "sbuf b [8, 16] f32 @p0+64\n"
                  "sbuf b_Copy1 [8, 16] f32 @p0+128 !copy(b)\n"
                  "\n"
                  "dma a, A\n"
                  "dma O, a\n"
                  "memset b, 1\n"
                  "dma P, b\n"
                  "copy b_Copy1, b !copy\n"
                  "dma P, b_Copy1 !copy\n"  // P final here: holds b's value, the reference's is the dma's copy
                  "dma O, b_Copy1 !copy\n"  // O final here
                  "tt a, a, a, add\n");
  expectFinding(fs, FindingKind::WrongValue, 3,
                "at the end of the run, output 'O' element [0, 0], which holds a value of 'b', not the value the "
                "reference program reads");
  EXPECT_EQ(fs[0].step, 8u);  // the end of the run (8 steps), not where O became final
}

TEST(Symbolic, UnplacedTensorsAndRegistersAreReported) {
  auto fs = checkSymbolic(parseProgram(kHeader +
                                       "sbuf a [8, 16] f32\n"
                                       "reg n\n"
                                       "\n"
                                       "li n, 0\n"
                                       "dma a, A\n"
                                       "dma O, a\n"));
  ASSERT_EQ(fs.size(), 2u) << all(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::Unplaced);
  EXPECT_EQ(fs[0].loc.line, 4u);
  EXPECT_EQ(fs[0].message, "sbuf tensor 'a' has no placement; it is checked as if it had storage of its own");
  EXPECT_EQ(fs[1].message, "register 'n' has no placement; it is checked as if it had storage of its own");
}

TEST(Symbolic, OutOfBoundsPlacementsAreMappedAsWritten) {
  // Bounds are the placement checker's: far outside the machine, two tensors still collide or not.
  const std::string program = kHeader +
                              "sbuf a [8, 16] f32 @p4000000000+9000000000000000000\n"
                              "sbuf b [8, 16] f32 @p4000000000+";  // 5
  const std::string body =
      "\n"
      "\n"
      "dma a, A\n"
      "memset b, 1.0\n"
      "tt b, a, b, add\n"  // 9
      "dma O, b\n";
  EXPECT_TRUE(checkSymbolic(parseProgram(program + "9000000000000000064" + body)).empty());
  auto fs = checkSymbolic(parseProgram(program + "9000000000000000060" + body));
  expectFinding(fs, FindingKind::Clobber, 9, "`tt b, a, b, add` reads first source 'a' element [0, 15], which 'b' overwrote (clobber)");
}

// No reuse at all, bounds ignored (the symbolic checker maps any placement): every SBUF tensor on partitions
// from 0 at its own byte range, every PSUM tensor at its own banks, every register at its own lanes.
Program placeApart(Program p) {
  uint64_t sbuf = 0;
  uint32_t bank = 0, lane = 0;
  for (Tensor& t : p.tensors) {
    if (t.space == Space::Sbuf) {
      t.placement = Placement{0, sbuf, 0};
      sbuf += (t.bytesPerPartition() + 3) / 4 * 4;
    } else if (t.space == Space::Psum) {
      t.placement = Placement{0, 0, bank};
      bank += uint32_t((t.bytesPerPartition() + p.arch.psum_bank_bytes - 1) / p.arch.psum_bank_bytes);
    }
  }
  for (Register& r : p.registers) {
    r.phys = lane;
    lane += r.lanes();
  }
  return p;
}

TEST(Symbolic, NoFalseAlarmOnGeneratedProgramsPlacedApart) {
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    SeededChoices c(seed);
    const Program p = placeApart(generateProgram(c, GenOptions{*archPreset("tiny"), 20, 150}));
    EXPECT_TRUE(checkSymbolic(p).empty()) << "seed " << seed << "\n" << all(checkSymbolic(p));
  }
}

TEST(Symbolic, NoFalseAlarmOnCorpusKernelsPlacedApart) {
  const std::string dir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/";
  int kernels = 0, tiny = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".txt") continue;
    tiny += e.path().filename().string().ends_with("_tiny.nki.txt");
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const Program p = placeApart(parseProgram(text.str()));
    EXPECT_TRUE(checkSymbolic(p).empty()) << e.path() << "\n" << all(checkSymbolic(p));
    ++kernels;
  }
  EXPECT_GT(tiny, 0);
  EXPECT_EQ(kernels, 2 * tiny);  // every kernel and its tiny twin
}

TEST(Symbolic, StepLimitIsAnInputError) {
  const Program p = placeApart(parseProgram(kHeader +
                                            "sbuf a [8, 16] f32\n"
                                            "reg n\n"
                                            "\n"
                                            "loop n = 0, 100, 1 {\n"
                                            "  dma a, A\n"
                                            "}\n"
                                            "dma O, a\n"));
  EXPECT_TRUE(checkSymbolic(p).empty());
  SymbolicOptions opts;
  opts.max_steps = 50;
  EXPECT_THROW(checkSymbolic(p, opts), InputError);
}

}  // namespace
}  // namespace allocsim
