// DMAOptimization (alloc/dma_opt/, the production allocator's DMAOptimization): each peephole on a small
// hand-allocated program whose expected rewrite is derived by hand in the comment above it, and every result checked
// by the three oracles with the original program, and by recovering the program it stands for (which must not change).
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/driver.h"
#include "alloc/dma_opt/dma_traffic.h"
#include "alloc/dma_opt/merge_tracker.h"
#include "alloc/optlevel.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/cli_run.h"
#include "tests/common/verify_checks.h"
#include "verify/reference.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// A tiny-machine program: X -> x, spilled to x_S and reloaded; two stand-ins at the same bytes.
const char* kHeader =
    "arch tiny\n"
    "dram X [8, 16] f32 input\n"
    "dram Y [8, 16] f32 output\n"
    "sbuf x [8, 16] f32 @p0+0\n"
    "sbuf y [8, 16] f32 @p0+64\n"
    "dram x_S [8, 16] f32 !spill(x)\n"
    "sbuf x_R1 [8, 16] f32 @p0+128 !reload(x)\n"
    "sbuf x_R2 [8, 16] f32 @p0+128 !reload(x)\n"
    "sbuf x_R3 [8, 16] f32 @p0+192 !reload(x)\n";

struct Optimized {
  Program before, after;
  DmaOptResult result;
};

Optimized optimize(const std::string& text, DmaOptInstance instance = DmaOptInstance::Sb, int level = 1) {
  Optimized r;
  r.before = parseProgram(text);
  requireWellFormed(r.before);
  DmaOptOptions o;
  o.instance = instance;
  o.level = level;
  o.verbosity = 1;
  r.result = optimizeDmas(r.before, o);
  r.after = r.result.program;
  return r;
}

// The transform_load decisions the pass recorded, in order.
std::vector<dma_event::CopyConsidered> copyDecisions(const DmaOptStats& s) {
  std::vector<dma_event::CopyConsidered> out;
  for (const DmaOptEvent& e : s.log)
    if (const auto* c = std::get_if<dma_event::CopyConsidered>(&e)) out.push_back(*c);
  return out;
}

// The rewritten program is well-formed, passes all three oracles against the original, and stands for the same
// program as before (docs/verification.md "The reference program").
void expectCorrect(const Optimized& r) {
  // The input is the unallocated program the hand allocation stands for.
  const Program original = referenceProgram(r.before).program;
  const Verdict v = verdictAgainst(original, r.after, 7);
  EXPECT_TRUE(v.ok()) << describeDefect(v, "allocated") << "\n" << printProgram(r.after);
  EXPECT_EQ(referenceProgram(r.after).program, referenceProgram(r.before).program);
}

// The instructions as printed (the declarations of unused inserted tensors may go: dce).
std::string instructionsText(const Program& p) {
  const std::string text = printProgram(p);
  return text.substr(text.find("\n\n"));
}

uint64_t dmas(const Program& p) { return measureDmaTraffic(p).instructions; }

// x is loaded, saved to its slot x_S and reloaded into x_R1, which y reads: the start of the programs below.
const std::string kSaveReloadRead =
    "dma x, X\n"
    "dma x_S, x !spill\n"
    "dma x_R1, x_S !reload\n"
    "act y, x_R1, relu\n";

// The second reload of x_S lands on the bytes the first filled (x_R2 and x_R1 share @p0+128) and nothing wrote
// them or the slot in between: merge_load removes it and re-points `tt` onto x_R1; x_R2 is then unnamed (dce).
// The first reload is not redundant at level 1 (x holds the value, but at other bytes), so 5 DMAs become 4.
const std::string kRepeatedReload = std::string(kHeader) +
                                    kSaveReloadRead +
                                    "dma x_R2, x_S !reload\n"
                                    "tt y, y, x_R2, add\n"
                                    "dma Y, y\n";

TEST(DmaOptimization, RepeatedReloadIntoTheSameBytesIsRemoved) {
  Optimized r = optimize(kRepeatedReload);
  EXPECT_EQ(dmas(r.before), 5u);
  EXPECT_EQ(dmas(r.after), 4u);
  EXPECT_EQ(r.result.stats.loads_removed, 1u);
  EXPECT_EQ(r.after.findTensor("x_R2"), kNone);
  EXPECT_NE(printProgram(r.after).find("tt y, y, x_R1, add"), std::string::npos);
  expectCorrect(r);
}

// Level 2 adds transform_load: the first reload's data is resident in x (the save's source, untouched since), so
// it becomes `copy x_R1, x` (8 descriptors >= 4, 64 bytes per partition <= 512, distance 1 <= 32); the second
// reload, no longer after a DMA into its bytes, likewise becomes `copy x_R2, x` (distance 3); then the slot is
// never read, so the save is dead: only the two original DMAs remain.
TEST(DmaOptimization, LevelTwoTurnsAResidentReloadIntoAnOnChipCopy) {
  Optimized r = optimize(kRepeatedReload, DmaOptInstance::Sb, 2);
  EXPECT_EQ(r.result.stats.copies, 2u);
  EXPECT_EQ(r.result.stats.dead_removed, 1u);
  EXPECT_EQ(dmas(r.after), 2u);
  EXPECT_NE(printProgram(r.after).find("copy x_R1, x !copy"), std::string::npos) << printProgram(r.after);
  // both decisions recorded, with the figures the comment derives
  std::vector<dma_event::CopyConsidered> considered = copyDecisions(r.result.stats);
  ASSERT_EQ(considered.size(), 2u);
  EXPECT_EQ(considered[0].ring_decrease, 8u);
  EXPECT_EQ(considered[0].bytes, 64u);
  EXPECT_EQ(considered[0].distance, 1u);
  EXPECT_EQ(considered[0].resident, "x");
  EXPECT_TRUE(considered[0].taken);
  EXPECT_EQ(considered[1].distance, 3u);
  EXPECT_TRUE(considered[1].taken);
  expectCorrect(r);
}

// transform_load never copies from a tile whose rectangle meets the destination's (dma_opt_fuzz found it:
// corpus/regressions/dma_opt_copy_onto_resident.nki.txt). x_R1 [128, 192) holds x when x_R2[:, 8:8] is reloaded
// into x_R2 [96, 160): the views are apart (160..191 and 128..159), but a copy from x_R1 would keep x_R1 live where
// x_R2 is written, and the two rectangles share bytes 128..159. The only other resident copy, x_R0, was
// overwritten by the memset of y (bytes 32..63) before either reload: both reloads stay DMAs.
TEST(DmaOptimization, NoOnChipCopyFromATileThatOverlapsTheDestination) {
  const std::string text =
      "arch tiny\n"
      "dram X [8, 16] f32 input\n"
      "dram Y [8, 8] f32 output\n"
      "dram Z [8, 8] f32 output\n"
      "sbuf x [8, 16] f32 @p0+256\n"
      "sbuf y [8, 8] f32 @p0+32\n"
      "sbuf z [8, 8] f32 @p0+64\n"
      "dram x_S [8, 16] f32 !spill(x)\n"
      "sbuf x_R0 [8, 16] f32 @p0+0 !reload(x)\n"
      "sbuf x_R1 [8, 16] f32 @p0+128 !reload(x)\n"
      "sbuf x_R2 [8, 16] f32 @p0+96 !reload(x)\n"
      "dma x_R0, X\n"
      "dma x_S, x_R0 !spill\n"
      "memset y, 0\n"
      "dma x_R1, x_S !reload\n"
      "tt y, x_R1[:, 0:8], x_R1[:, 8:8], add\n"
      "dma x_R2[:, 8:8], x_S[:, 8:8] !reload\n"
      "act z, x_R2[:, 8:8], relu\n"
      "dma Y, y\n"
      "dma Z, z\n";
  Optimized r = optimize(text, DmaOptInstance::Sb, 2);
  EXPECT_EQ(r.result.stats.copies, 0u) << printProgram(r.after);
  EXPECT_NE(printProgram(r.after).find("dma x_R2[:, 8:8], x_S[:, 8:8] !reload"), std::string::npos)
      << printProgram(r.after);
  expectCorrect(r);
}

// The cost model refuses a copy that would move more than 512 bytes per partition: [8, 160] f32 is 640.
TEST(DmaOptimization, CostModelKeepsAWideReload) {
  const std::string text =
      "arch tiny\n"
      "dram X [8, 160] f32 input\n"
      "dram Y [8, 160] f32 output\n"
      "sbuf x [8, 160] f32 @p0+0\n"
      "dram x_S [8, 160] f32 !spill(x)\n"
      "sbuf x_R1 [8, 160] f32 @p0+640 !reload(x)\n"
      "dma x, X\n"
      "dma x_S, x !spill\n"
      "dma x_R1, x_S !reload\n"
      "dma Y, x_R1\n";
  Optimized r = optimize(text, DmaOptInstance::Sb, 2);
  EXPECT_EQ(r.result.stats.copies, 0u);
  EXPECT_EQ(dmas(r.after), 4u);
  const std::vector<dma_event::CopyConsidered> considered = copyDecisions(r.result.stats);
  ASSERT_FALSE(considered.empty());
  for (const dma_event::CopyConsidered& c : considered) EXPECT_FALSE(c.taken);
  expectCorrect(r);
}

// A write to the resident bytes between the two reloads (y_T, a tensor of its own that the allocator put on
// the stand-ins' bytes once x_R1 is dead) makes the second reload necessary.
TEST(DmaOptimization, AWriteInBetweenKeepsTheReload) {
  const std::string text = std::string(kHeader) +
                           "sbuf y_T [8, 16] f32 @p0+128\n" +
                           kSaveReloadRead +
                           "act y_T, y, relu\n"
                           "tt y, y, y_T, add\n"
                           "dma x_R2, x_S !reload\n"
                           "tt y, y, x_R2, add\n"
                           "dma Y, y\n";
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.loads_removed, 0u);
  EXPECT_EQ(dmas(r.after), 5u);
  expectCorrect(r);
}

// Not across a loop boundary: the second reload sits in a loop body, the first outside.
TEST(DmaOptimization, NoRemovalAcrossALoopBoundary) {
  const std::string text = std::string(kHeader) +
                           "reg i @r0\n" +
                           kSaveReloadRead +
                           "loop i = 0, 2, 1 {\n"
                           "  dma x_R2, x_S !reload\n"
                           "  tt y, y, x_R2, add\n"
                           "}\n"
                           "dma Y, y\n";
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.loads_removed, 0u);
  expectCorrect(r);
}

// Original DMAs are never rewritten: loading X twice into x is the program's own choice.
TEST(DmaOptimization, OriginalDmasAreKept) {
  const std::string text = std::string(kHeader) +
                           "dma x, X\n"
                           "act y, x, relu\n"
                           "dma x, X\n"
                           "tt y, y, x, add\n"
                           "dma Y, y\n";
  Optimized r = optimize(text, DmaOptInstance::Sb, 2);
  EXPECT_EQ(instructionsText(r.after), instructionsText(r.before));
  EXPECT_EQ(dmas(r.after), 3u);
}

// A save into a slot that nothing reads afterwards is dead; so is one overwritten by a later save of the whole
// slot before any read. The second save is read by the reload and stays: 2 of 3 saves go, and x_S stays.
TEST(DmaOptimization, DeadSavesAreRemoved) {
  const std::string text = std::string(kHeader) +
                           "dram y_S [8, 16] f32 !spill(y)\n"
                           "dma x, X\n"
                           "dma x_S, x !spill\n"
                           "act x, x, relu\n"
                           "dma x_S, x !spill\n"
                           "act y, x, relu\n"
                           "dma y_S, y !spill\n"
                           "dma x_R3, x_S !reload\n"
                           "tt y, y, x_R3, add\n"
                           "dma Y, y\n";
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.dead_removed, 2u);
  EXPECT_EQ(dmas(r.after), 4u);
  EXPECT_EQ(r.after.findTensor("y_S"), kNone);
  EXPECT_NE(r.after.findTensor("x_S"), kNone);
  expectCorrect(r);
}

// A dead save inside a loop: the next iteration may read the slot before the loop's save, so it stays.
TEST(DmaOptimization, ASaveReadByTheNextIterationStays) {
  const std::string text = std::string(kHeader) +
                           "reg i @r0\n"
                           "dma x, X\n"
                           "memset y, 0\n"
                           "loop i = 0, 3, 1 {\n"
                           "  dma x_R3, x_S !reload\n"
                           "  tt y, y, x_R3, add\n"
                           "  dma x_S, x !spill\n"
                           "}\n"
                           "dma Y, y\n";
  // The first iteration reads x_S before any save: not well-formed as written, so save first.
  std::string fixed = text;
  fixed.replace(fixed.find("memset y, 0\n"), 12, "memset y, 0\ndma x_S, x !spill\n");
  Optimized r = optimize(fixed);
  EXPECT_EQ(r.result.stats.dead_removed, 0u);
  expectCorrect(r);
}

// Two reloads of abutting views into abutting bytes of one stand-in, back to back: one !coalesced DMA of the
// union (8 rows x 16 elements = 64 bytes per partition <= the tiny budget 256).
const std::string kAbutting = std::string(kHeader) +
                              "sbuf z [8, 8] f32 @p0+256\n"
                              "dram Z [8, 8] f32 output\n"
                              "dma x, X\n"
                              "dma x_S, x !spill\n"
                              "dma x_R3[:, 0:8], x_S[:, 0:8] !reload\n"
                              "dma x_R3[:, 8:8], x_S[:, 8:8] !reload\n"
                              "tt z, x_R3[:, 0:8], x_R3[:, 8:8], add\n"
                              "dma Z, z\n"
                              "dma Y, x\n";

TEST(DmaOptimization, AbuttingReloadsCoalesce) {
  Optimized r = optimize(kAbutting);
  EXPECT_EQ(r.result.stats.coalesced, 1u);
  EXPECT_EQ(dmas(r.after), 5u);
  EXPECT_NE(printProgram(r.after).find("dma x_R3, x_S !coalesced"), std::string::npos) << printProgram(r.after);
  expectCorrect(r);
}

// The per-partition byte budget is the arch model's dma-coalesce-bytes (the production allocator,
// tooLargeForCoalescing): the merge moves 16 f32 = 64 bytes per partition, so a budget of 64 allows it and 63 refuses
// it; the PSUM bank size is not the budget (a 32-byte bank with a 64-byte budget still merges).
TEST(DmaOptimization, CoalescingRespectsTheArchBudget) {
  auto coalescedWith = [](const std::string& arch_line) {
    std::string text = kAbutting;
    text.replace(0, 9, arch_line);
    Optimized r = optimize(text);
    expectCorrect(r);
    EXPECT_EQ(dmas(r.after), r.result.stats.coalesced == 1 ? 5u : 6u) << arch_line;
    return r.result.stats.coalesced;
  };
  EXPECT_EQ(coalescedWith("arch tiny dma-coalesce-bytes=64"), 1u);
  EXPECT_EQ(coalescedWith("arch tiny dma-coalesce-bytes=63"), 0u);
  EXPECT_EQ(coalescedWith("arch tiny dma-coalesce-bytes=32"), 0u);
  EXPECT_EQ(coalescedWith("arch tiny psum-bank-bytes=32 dma-coalesce-bytes=64"), 1u);
}

// Views with a gap (0:4 then 8:8) do not abut: no merge.
TEST(DmaOptimization, AGapPreventsCoalescing) {
  std::string text = kAbutting;
  text.replace(text.find("x_R3[:, 0:8], x_S[:, 0:8]"), 25, "x_R3[:, 0:4], x_S[:, 0:4]");
  text.replace(text.find("tt z, x_R3[:, 0:8]"), 18, "tt z[:, 0:4], x_R3[:, 0:4]");
  text.replace(text.find("x_R3[:, 8:8], add"), 17, "x_R3[:, 8:4], add");
  text.replace(text.find("dma Z, z\n"), 9, "memset z[:, 4:4], 0\ndma Z, z\n");
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.coalesced, 0u);
  expectCorrect(r);
}

// Partial-DMA: the whole-tile reload is read only over rows 2..5 and elements 4..11, so it shrinks to that; then
// the whole save is read only over that range by the narrowed reload, so the next round shrinks it too.
TEST(DmaOptimization, AnOverBroadReloadShrinksToTheUsedRange) {
  const std::string text = std::string(kHeader) +
                           "sbuf w [4, 8] f32 @p0+256\n"
                           "dram W [4, 8] f32 output\n"
                           "dma x, X\n"
                           "dma x_S, x !spill\n"
                           "dma x_R3, x_S !reload\n"
                           "act w, x_R3[2:4, 4:8], relu\n"
                           "dma W, w\n"
                           "dma Y, x\n";
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.partial, 2u);
  const std::string after = printProgram(r.after);
  EXPECT_NE(after.find("dma x_S[2:4, 4:8], x[2:4, 4:8] !partial"), std::string::npos) << after;
  EXPECT_NE(after.find("dma x_R3[2:4, 4:8], x_S[2:4, 4:8] !partial"), std::string::npos) << after;
  EXPECT_EQ(measureDmaTraffic(r.after).bytes, measureDmaTraffic(r.before).bytes - 2 * (8 * 16 - 4 * 8) * 4);
  expectCorrect(r);
}

// Partial-DMA on the shape the spill writers leave (alloc/spill_dma.h): x saved whole after its writer, reloaded
// once per instruction over exactly the view read: rows 2..5 x elements 4..11 and row 1 x elements 8..15. The
// slot is read over the hull, rows 1..5 x elements 4..15, so the save shrinks to x_S[1:5, 4:12] (5 x 12 of 8 x 16
// f32 elements) and the reloads, already exact, stay.
TEST(DmaOptimization, AnOverBroadSaveShrinksToWhatItsReloadsRead) {
  const std::string text = std::string(kHeader) +
                           "sbuf w [8, 8] f32 @p0+256\n"
                           "dram W [8, 8] f32 output\n"
                           "dma x, X\n"
                           "dma x_S, x !spill\n"
                           "memset w, 0\n"
                           "dma x_R3[2:4, 4:8], x_S[2:4, 4:8] !reload\n"
                           "act w[2:4, :], x_R3[2:4, 4:8], relu\n"
                           "dma x_R1[1:1, 8:8], x_S[1:1, 8:8] !reload\n"
                           "act w[1:1, :], x_R1[1:1, 8:8], relu\n"
                           "dma W, w\n"
                           "dma Y, x\n";
  Optimized r = optimize(text);
  EXPECT_EQ(r.result.stats.partial, 1u);
  const std::string after = printProgram(r.after);
  EXPECT_NE(after.find("dma x_S[1:5, 4:12], x[1:5, 4:12] !partial"), std::string::npos) << after;
  EXPECT_NE(after.find("dma x_R3[2:4, 4:8], x_S[2:4, 4:8] !reload"), std::string::npos) << after;
  EXPECT_NE(after.find("dma x_R1[1:1, 8:8], x_S[1:1, 8:8] !reload"), std::string::npos) << after;
  EXPECT_EQ(measureDmaTraffic(r.after).bytes, measureDmaTraffic(r.before).bytes - (8 * 16 - 5 * 12) * 4);
  expectCorrect(r);
}

// PSUM vs SB by memory type: a PSUM reload is the PSUM instance's, never the SB instance's.
const std::string kPsumReload =
    "arch tiny\n"
    "dram X [8, 8] f32 input\n"
    "dram Y [8, 8] f32 output\n"
    "sbuf x [8, 8] f32 @p0+0\n"
    "sbuf y [8, 8] f32 @p0+32\n"
    "psum acc [8, 8] f32 @bank0\n"
    "sbuf acc_S [8, 8] f32 @p0+64 !spill(acc)\n"
    "psum acc_R1 [8, 8] f32 @bank1 !reload(acc)\n"
    "psum acc_R2 [8, 8] f32 @bank1 !reload(acc)\n"
    "dma x, X\n"
    "matmul acc, x, x, start, stop\n"
    "dma acc_S, acc !spill\n"
    "dma acc_R1, acc_S !reload\n"
    "copy y, acc_R1\n"
    "dma acc_R2, acc_S !reload\n"
    "tt y, y, acc_R2, add\n"
    "dma Y, y\n";

TEST(DmaOptimization, PsumDmasBelongToThePsumInstance) {
  Optimized sb = optimize(kPsumReload, DmaOptInstance::Sb);
  EXPECT_EQ(printProgram(sb.after), printProgram(sb.before));
  Optimized ps = optimize(kPsumReload, DmaOptInstance::Psum);
  EXPECT_EQ(ps.result.stats.loads_removed, 1u);
  EXPECT_EQ(ps.result.stats.psum_spill_removed, 1u);
  EXPECT_EQ(sb.result.stats.psum_spill_removed, 0u);
  expectCorrect(ps);
}

TEST(DmaOptimization, LevelsMinusOneAndZeroRewriteNothing) {
  Optimized off = optimize(kRepeatedReload, DmaOptInstance::Sb, -1);
  EXPECT_EQ(printProgram(off.after), printProgram(off.before));
  EXPECT_FALSE(off.result.stats.ran);
  EXPECT_EQ(off.result.stats.pre, DmaTraffic{});  // not even the analysis
  Optimized zero = optimize(kRepeatedReload, DmaOptInstance::Sb, 0);
  EXPECT_EQ(printProgram(zero.after), printProgram(zero.before));
  EXPECT_TRUE(zero.result.stats.ran);
  EXPECT_EQ(zero.result.stats.pre.instructions, 5u);
  EXPECT_EQ(zero.result.stats.post.instructions, 5u);
  DmaOptOptions bad;
  bad.level = 3;
  EXPECT_THROW(optimizeDmas(zero.before, bad), OptionError);
}

TEST(DmaOptimization, AProgramWithoutDmaIsSkipped) {
  Optimized r = optimize("arch tiny\nsbuf x [8, 8] f32 @p0+0\nmemset x, 1\n");
  EXPECT_FALSE(r.result.stats.ran);
  EXPECT_EQ(r.result.stats.instance, DmaOptInstance::Sb);
  EXPECT_EQ(r.result.stats.pre, DmaTraffic{});
}

// DMA_analysis: a [8, 16] f32 DMA in a loop of 4 iterations, then a [2, 4, 2:2]-shaped one (two runs per row).
TEST(DmaTraffic, CountsExecutionsDescriptorsAndBytes) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 16] f32 input\n"
      "sbuf x [8, 16] f32\n"
      "reg i @r0\n"
      "loop i = 0, 7, 2 {\n"
      "  dma x, X\n"
      "}\n"
      "dma x[0:2, 0:2, 8:2], X[0:2, 0:2, 8:2]\n");
  DmaTraffic t = measureDmaTraffic(p);
  EXPECT_EQ(t.instructions, 2u);
  EXPECT_EQ(t.executed, 5u);                          // ceil(7 / 2) = 4, plus 1
  EXPECT_EQ(t.descriptors, 4u * 8 + 2 * 2);           // 8 rows each; 2 rows x 2 runs
  EXPECT_EQ(t.bytes, 4u * 8 * 16 * 4 + 2 * 4 * 4);    // 4 x 512 B, then 2 rows x 4 elements x 4 B
}

TEST(MergeTracker, JoinsChainsOntoTheirFirstMember) {
  MergeTracker m(5);
  m.join(1, 2);
  m.join(2, 3);
  EXPECT_EQ(m.find(3), 1u);
  EXPECT_EQ(m.members(2), (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(m.find(0), 0u);
  EXPECT_EQ(m.members(4), (std::vector<size_t>{4}));
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// The CLI: --gca-dma-optlevel takes the production allocator's four levels only, and the figures reach -v and --json.
TEST(DmaOptimizationCli, LevelOptionAndFigures) {
  const std::string k = "alloc corpus/kernels/matmul_tiled_tiny.nki.txt";
  for (const char* bad : {"3", "-2", "one", ""}) {
    CliRun r = allocsim(k + " --gca-dma-optlevel '" + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.out.find("--gca-dma-optlevel expects -1, 0, 1 or 2"), std::string::npos) << r.out;
  }
  CliRun v = allocsim(k + " -v -o /dev/null");
  ASSERT_EQ(v.exit_code, 0) << v.out;
  EXPECT_NE(v.out.find("[dma_optimization_psum]"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("[dma_optimization_sb]"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("  Pre GCA DMA instructions: "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("  Post GCA DMA instructions: "), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("[psum spill optimization]: removed "), std::string::npos) << v.out;
  CliRun j = allocsim(k + " --json -o /dev/null --gca-dma-optlevel 2", "2>/dev/null");
  ASSERT_EQ(j.exit_code, 0) << j.out;
  for (const char* key : {"\"dma.pre_gca.instructions\": ", "\"dma.post_gca.descriptors\": ", "\"dma.post_gca.bytes\": ",
                          "\"dma.level\": 2"})
    EXPECT_NE(j.out.find(key), std::string::npos) << key;
  CliRun off = allocsim(k + " -v -o /dev/null --gca-dma-optlevel -1");
  ASSERT_EQ(off.exit_code, 0) << off.out;
  EXPECT_NE(off.out.find("dma_optimization_sb: off (--gca-dma-optlevel -1)"), std::string::npos) << off.out;
  EXPECT_EQ(off.out.find("Pre GCA"), std::string::npos) << off.out;
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// The pass reaches its fixed point: optimizing its own output again removes nothing. Here the dead-store
// removal of the first round leaves a reload redundant (found by RegColorer.DeterministicAndReproducedAtO7:
// O7 on an O2 output removed that reload, so O7 did not reproduce its input).
TEST(DmaOptimization, OptimizingTheOutputAgainRemovesNothing) {
  const Program p = parseProgram(
      "arch tiny sbuf-bytes=8192 psum-banks=8\n"
      "sbuf t0 [1, 2048] u32\nsbuf t1 [1, 2048] u32\nsbuf t2 [1, 1] u32\n"
      "dram out0 [1, 2048] u32 output\ndram out1 [1, 2048] u32 output\ndram out2 [1, 1] u32 output\n"
      "reg r0\n"
      "loop r0 = 0, 1, 1 {\n"
      "  memset t0, 0\n"
      "  tt t1, t0[:, 0:1024, 1024:2], t0, add\n"
      "  memset t2, 0\n"
      "}\n"
      "dma out0, t0\ndma out1, t1\ndma out2, t2\n");
  DriverOptions o;
  o.optlevel = 2;
  const Program once = allocate(p, o).program;
  DmaOptOptions again;
  again.level = 1;
  const DmaOptResult twice = optimizeDmas(once, again);
  EXPECT_EQ(printProgram(twice.program), printProgram(once));
  o.optlevel = 7;
  EXPECT_EQ(printProgram(allocate(once, o).program), printProgram(once));
}

}  // namespace
}  // namespace allocsim
