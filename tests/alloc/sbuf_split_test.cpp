// Live-range splitting by a copy (alloc/sbuf/sbuf_split.h): where three tensors interfere pairwise although at most
// two are live at once, a copy of one of them where the third is dead brings the SBUF colorer down to the max-live.
// The max-live and the heights are worked out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "alloc/driver.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "ir/parse.h"
#include "tests/common/verify_checks.h"
#include "verify/liveness_precision.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

// Bytes per partition: h 256, a 128, c 128. Each iteration reads the half of h the one before wrote into a, copies a
// to c and writes c into the other half of h; after the loop the upper half (iteration 1's) is read. By hand, per
// step: h and a are live at line 10 (h read, a written: 384 bytes), a and c at line 11 (256; h is dead there on both
// iterations: what it holds is overwritten before it is read again), h and c at line 12 (384). Max-live 384. Yet h,
// a and c interfere pairwise, so whole tensors need 256 + 128 + 128 = 512 bytes, 1.33x the max-live. With c copied
// right after line 11 (where h is dead), c's first part can sit in h's rectangle and the copy where a was: 384.
const char* const kProgram =
    "arch tiny\n"
    "dram A [8, 64] u32 input\n"
    "dram O [8, 32] u32 output\n"
    "sbuf h [8, 64] u32\n"
    "sbuf a [8, 32] u32\n"
    "sbuf c [8, 32] u32\n"
    "reg i\n"
    "dma h, A\n"                           // 8
    "loop i = 0, 2, 1 {\n"                 // 9
    "  copy a, h[:, i%2*-32+32:32]\n"      // 10
    "  copy c, a\n"                        // 11
    "  copy h[:, i*32:32], c\n"            // 12
    "}\n"
    "dma O, h[:, 32:32]\n";

TEST(SbufSplit, ACopyWhereTheThirdTensorIsDeadReachesTheMaxLive) {
  const Program p = parseProgram(kProgram);
  const LivenessPrecision lp = livenessPrecision(p);
  EXPECT_EQ(lp.static_sbuf_bytes, 384u);
  EXPECT_EQ(lp.dynamic_sbuf_bytes, 384u);

  SbufOptions whole;
  whole.split = false;
  EXPECT_GE(memoryUse(allocateSbuf(p, whole).program).sbuf_peak, 512u);  // the three whole tensors: apart

  // The copy the stats report (what `alloc -v` prints). Copying a right after line 10 reaches 384 as well: h is
  // dead from there to line 12, so a' (the copy, read at line 11) can take h's bytes and c a's (h-a at line 10, a-a'
  // at the copy, a'-c at line 11, c-h at line 12: a cycle of four, two colors of 256 and 128 bytes). The two split
  // points tie on their size (128 bytes) and on the area live across the cut (the tensor, 8 x 128, and its copy),
  // so the earlier tensor's, a's, is tried first and kept (a later one only replaces it when lower).
  const SbufStats split = allocateSbuf(p).stats;
  EXPECT_EQ(split.split_copies, 1u);
  ASSERT_EQ(split.split_log.size(), 1u);
  EXPECT_EQ(split.split_log[0].tensor, "a");
  EXPECT_EQ(split.split_log[0].copy, "a_Split1");
  EXPECT_EQ(split.split_log[0].line, 10u);
  EXPECT_TRUE(allocateSbuf(p, whole).stats.split_log.empty());

  for (int level : {1, 2, 3}) {
    const std::string what = "-O" + std::to_string(level);
    DriverOptions o;
    o.optlevel = level;
    const Program out = allocate(p, o).program;
    EXPECT_EQ(memoryUse(out).sbuf_peak, 384u) << what;
    uint32_t copies = 0;
    forEachInstruction(out.body, [&](const Instruction& inst) { copies += inst.origin == Origin::Copy; });
    EXPECT_EQ(copies, 1u) << what;
    expectCorrectAllocation(p, out, what, uint64_t(level));
  }
}

// A program whose whole tensors already fit within 1.05x the max-live gets no copy.
TEST(SbufSplit, NoCopyWhereWholeTensorsFit) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 64] u32 input\n"
      "dram O [8, 64] u32 output\n"
      "sbuf a [8, 64] u32\n"
      "sbuf b [8, 64] u32\n"
      "dma a, A\n"
      "copy b, a\n"
      "tt a, b, b, add\n"
      "dma O, a\n");
  const Program out = allocatedAt(p, 2);
  uint32_t copies = 0;
  forEachInstruction(out.body, [&](const Instruction& inst) { copies += inst.origin != Origin::Source; });
  EXPECT_EQ(copies, 0u);
  EXPECT_EQ(memoryUse(out).sbuf_peak, 512u);  // a and b live together at the copy and the add: 256 + 256
}

}  // namespace
}  // namespace allocsim
