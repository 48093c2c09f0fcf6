// The gaps a walk decides (alloc/loop_gaps.h, alloc/liveness.h rule 5): a value carried around a loop whose iterations
// rotate through halves of the tensor, or that a nested loop rewrites piecewise, is dead between its last mention
// in an iteration and the write that follows; the ranges leave those positions out. Expected ranges and max-live are
// worked out by hand from the programs' data flow, and the dynamic liveness (the verifier's) is checked to agree.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "alloc/liveness.h"
#include "alloc/loop_gaps.h"
#include "ir/parse.h"
#include "tests/common/linear_positions.h"
#include "verify/liveness_precision.h"

namespace allocsim {
namespace {

// Lines 1-9; instructions start on line 10. Bytes per partition: h 256, x 128, y 128.
const char* const kDecls =
    "arch tiny\n"
    "dram A [8, 64] u32 input\n"
    "dram O [8, 32] u32 output\n"
    "sbuf h [8, 64] u32\n"
    "sbuf x [8, 32] u32\n"
    "sbuf y [8, 32] u32\n"
    "reg i\n"
    "reg j\n"
    "reg k\n";

// Each iteration reads the half of h the one before wrote (the dma's upper half on the first) and then writes the
// other half: h is carried around the loop, yet between the read (line 12) and the write (line 15) nothing of it is
// ever read again before being overwritten. By hand, per step: the dma's lower half is never read; iteration 0
// reads the upper half, iteration 1 reads the lower half iteration 0 wrote, and the upper half iteration 1 writes is
// read after the loop. So h is live from the dma to iteration 0's read, from each write to the next read, and not at
// lines 13-14 of either iteration. Live bytes: line 12 h + x = 384 (read and write at one step), lines 13-14 x + y =
// 256, line 15 h + x = 384, elsewhere h alone: the max-live is 384 (with h live at 13-14 it would be 512).
const std::string kRotating = std::string(kDecls) +
                              "dma h, A\n"                            // 10
                              "loop i = 0, 2, 1 {\n"                  // 11
                              "  copy x, h[:, i%2*-32+32:32]\n"       // 12
                              "  memset y, 1\n"                       // 13
                              "  tt x, x, y, add\n"                   // 14
                              "  copy h[:, i*32:32], x\n"             // 15
                              "}\n"                                   // 16
                              "dma O, h[:, 32:32]\n";                 // 17

TEST(LoopGaps, RotatingHalvesLeaveTheValueDeadBetweenTheReadAndTheWrite) {
  const Program p = parseProgram(kRotating);
  const Liveness live = computeLiveness(p);
  const LiveRange& h = live.tensors[p.findTensor("h")];
  ASSERT_EQ(h.segmentCount(), 2u);
  EXPECT_EQ(h.segment(0), (Segment{at(live.order, 10), at(live.order, 12)}));
  EXPECT_EQ(h.segment(1).first, at(live.order, 15));
  EXPECT_EQ(h.segment(1).last, at(live.order, 17));
  EXPECT_FALSE(interferes(h, live.tensors[p.findTensor("y")]));
  const LivenessPrecision lp = livenessPrecision(p);
  EXPECT_EQ(lp.static_sbuf_bytes, 384u);
  EXPECT_EQ(lp.dynamic_sbuf_bytes, 384u);
}

// The same loop with each iteration reading and writing one half, i: iteration 1 reads the upper half the dma wrote,
// which iteration 0 never overwrites. The walk from iteration 0's write (line 15) meets that read unwritten, so there
// is no gap: the upper half is live through lines 13-14 of iteration 0, where h + x + y = 512 bytes are live, the
// max-live by hand.
TEST(LoopGaps, NoGapWhereALaterIterationReadsWhatWasWrittenBeforeTheWrite) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "dma h, A\n"                  // 10
                                 "loop i = 0, 2, 1 {\n"        // 11
                                 "  copy x, h[:, i*32:32]\n"   // 12
                                 "  memset y, 1\n"             // 13
                                 "  tt x, x, y, add\n"         // 14
                                 "  copy h[:, i*32:32], x\n"   // 15
                                 "}\n"                         // 16
                                 "dma O, h[:, 32:32]\n");      // 17
  const Liveness live = computeLiveness(p);
  const LiveRange& h = live.tensors[p.findTensor("h")];
  for (uint32_t line : {13u, 14u}) EXPECT_TRUE(h.contains(at(live.order, line))) << "line " << line;
  EXPECT_FALSE(deadBefore(p, live.order, p.findTensor("h"), at(live.order, 15), at(live.order, 17)));
  const LivenessPrecision lp = livenessPrecision(p);
  EXPECT_EQ(lp.static_sbuf_bytes, 512u);
  EXPECT_EQ(lp.dynamic_sbuf_bytes, 512u);
}

// A nested loop rewrites h piecewise on every iteration after the iteration has read all of it: between the loop that
// reads and the loop that rewrites (lines 15-16), nothing of h is read before it is rewritten. By hand: h is read in
// pieces by the loop of lines 12-14 and rewritten in pieces by the loop of lines 17-19, on each iteration; after the
// outer loop line 21 reads it. Live bytes: at line 13 h + x = 384, lines 15-16 x + y = 256, line 18 h + x = 384:
// max-live 384 (with h live at lines 15-16, 512).
TEST(LoopGaps, ANestedLoopThatRewritesTheTensorPiecewiseEndsTheValueBeforeIt) {
  const Program p = parseProgram(std::string(kDecls) +
                                 "dma h, A\n"                          // 10
                                 "loop i = 0, 2, 1 {\n"                // 11
                                 "  loop j = 0, 2, 1 {\n"              // 12
                                 "    copy x, h[:, j*32:32]\n"         // 13
                                 "  }\n"                               // 14
                                 "  memset y, 1\n"                     // 15
                                 "  tt x, x, y, add\n"                 // 16
                                 "  loop k = 0, 2, 1 {\n"              // 17
                                 "    copy h[:, k*32:32], x\n"         // 18
                                 "  }\n"                               // 19
                                 "}\n"                                 // 20
                                 "dma O, h[:, 0:32]\n");               // 21
  const Liveness live = computeLiveness(p);
  const LiveRange& h = live.tensors[p.findTensor("h")];
  EXPECT_FALSE(h.contains(at(live.order, 15)));
  EXPECT_FALSE(h.contains(at(live.order, 16)));
  const LivenessPrecision lp = livenessPrecision(p);
  EXPECT_EQ(lp.static_sbuf_bytes, 384u);
  EXPECT_EQ(lp.dynamic_sbuf_bytes, 384u);
}

}  // namespace
}  // namespace allocsim
