// The placement oracle decides overlaps byte by byte (verify/byte_liveness.h): two tensors whose footprints
// intersect while both are live are an overlap only when some shared byte holds live data of both at one step.
// Each case comes as a correct allocation (the shared bytes are never live together: nothing is reported) and its
// broken twin (one instruction moved, so that a read finds the other tensor's bytes), whose finding is derived by
// hand in the comments.
#include "verify/placement.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

std::vector<Finding> check(const std::string& text) { return checkPlacement(parseProgram(text)); }

std::string describe(const std::vector<Finding>& fs) {
  std::string s;
  for (const Finding& f : fs) s += f.format("t");
  return s;
}

// A tile array q of two tiles (tile 0 at bytes 0..63, tile 1 at 64..127) and c placed on tile 1. `middle` is the
// two instructions of lines 10 and 11: the last read of tile 1 and the first write of c, in some order.
std::string tileProgram(const std::string& middle) {
  return "arch tiny\n"                          // 1
         "dram A [8, 32] f32 input\n"           // 2
         "dram O [8, 16] f32 output\n"          // 3
         "dram P [8, 16] f32 output\n"          // 4
         "sbuf q [2] [8, 16] f32 @p0+0\n"       // 5
         "sbuf c [8, 16] f32 @p0+64\n"          // 6
         "sbuf d [8, 16] f32 @p0+128\n"         // 7
         "\n"                                   // 8
         "dma q, A\n" +                         // 9: step 1
         middle +                               // 10, 11: steps 2, 3
         "tt c, c, q{0}, add\n"                 // 12: step 4
         "dma O, c\n"                           // 13: step 5
         "dma P, d\n";                          // 14: step 6
}

TEST(ByteLiveness, DeadTileOfATileArrayIsFreeForAnotherTensor) {
  // Tile 1 is read for the last time at step 2 (copy d, q{1}); c moves onto it at step 3 while tile 0 stays live
  // until step 4. q and c are both live at steps 3..4, but never in the same byte.
  EXPECT_TRUE(check(tileProgram("copy d, q{1}\nmemset c, 1.0\n")).empty());
}

TEST(ByteLiveness, LiveTileOverwrittenIsAnOverlap) {
  // c is written at step 2 (line 10) over tile 1, which copy d, q{1} still reads at step 3. Element [0, 0] of c
  // covers byte 64 of partition 0, which is element [0, 16] of q (tile 1's first): q's is live over steps 1..3
  // (loaded, then read), c's over steps 2..5 (memset, read and written by tt at 4, read by the dma at 5).
  auto fs = check(tileProgram("memset c, 1.0\ncopy d, q{1}\n"));
  ASSERT_EQ(fs.size(), 1u) << describe(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::Overlap);
  EXPECT_EQ(fs[0].loc.line, 10u);
  EXPECT_EQ(fs[0].step, 2u);
  EXPECT_EQ(fs[0].message,
            "sbuf tensors 'c' @p0+64 and 'q' @p0+0 overlap in partitions 0..7, bytes 64..127 while both are live");
  ASSERT_EQ(fs[0].notes.size(), 2u);
  EXPECT_EQ(fs[0].notes[1],
            "first shared live byte: SBUF partition 0 byte 64, element [0, 0] of 'c' (live over steps 2..5) and "
            "element [0, 16] of 'q' (live over steps 1..3)");
}

// b (bytes 32..95) is placed over the upper half of a (bytes 0..63), as a kernel that writes its result over the
// part of its input it has consumed does: `first` and `second` are lines 9 and 10.
std::string halfProgram(const std::string& first, const std::string& second) {
  return "arch tiny sbuf-align=1\n"   // 1
         "dram A [8, 16] f32 input\n"  // 2
         "dram O [8, 16] f32 output\n"  // 3
         "sbuf a [8, 16] f32 @p0+0\n"   // 4
         "sbuf b [8, 16] f32 @p0+32\n"  // 5
         "\n"                           // 6
         "dma a, A\n"                   // 7: step 1
         "\n" +                         // 8
         first + "\n" +                 // 9: step 2
         second + "\n" +                // 10: step 3
         "dma O, b\n";                  // 11: step 4
}

TEST(ByteLiveness, BytesReadForTheLastTimeMayBeOverwritten) {
  // Step 2 reads a's elements 8..15 for the last time and writes b's 8..15 (bytes 64..95, outside a); step 3 writes
  // b's elements 0..7 (bytes 32..63) over a's elements 8..15, dead since step 2, and reads a's 0..7 (bytes 0..31).
  EXPECT_TRUE(check(halfProgram("act b[:, 8:8], a[:, 8:8], relu", "act b[:, 0:8], a[:, 0:8], relu")).empty());
}

TEST(ByteLiveness, BytesStillToBeReadAreNot) {
  // The same two instructions the other way round: step 2 writes b's elements 0..7 over a's 8..15, which step 3
  // still reads. b's element [0, 0] (byte 32) is live over steps 2..4, a's element [0, 8] over steps 1..3.
  auto fs = check(halfProgram("act b[:, 0:8], a[:, 0:8], relu", "act b[:, 8:8], a[:, 8:8], relu"));
  ASSERT_EQ(fs.size(), 1u) << describe(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::Overlap);
  EXPECT_EQ(fs[0].loc.line, 9u);
  EXPECT_EQ(fs[0].step, 2u);
  EXPECT_EQ(fs[0].notes[1],
            "first shared live byte: SBUF partition 0 byte 32, element [0, 0] of 'b' (live over steps 2..4) and "
            "element [0, 8] of 'a' (live over steps 1..3)");
}

// Two PSUM tensors in bank 0: acc (elements 0..15, bytes 0..63 of each partition) holds an open accumulation group
// from step 2 to step 4, while a second matmul writes `view` of t [8, 32] (line 14).
std::string psumProgram(const std::string& view) {
  return "arch tiny\n"                                  // 1
         "dram A [8, 16] bf16 input\n"                   // 2
         "dram O [8, 16] f32 output\n"                   // 3
         "dram P [8, 16] f32 output\n"                   // 4
         "sbuf s [8, 16] bf16 @p0+0\n"                   // 5
         "sbuf o [8, 16] f32 @p0+64\n"                   // 6
         "sbuf o2 [8, 16] f32 @p0+128\n"                 // 7
         "psum acc [8, 16] f32 @bank0\n"                 // 8
         "psum t [8, 32] f32 @bank0\n"                   // 9
         "\n"                                            // 10
         "dma s, A\n"                                    // 11: step 1
         "matmul acc, s[:, 0:8], s, start\n"             // 12: step 2
         "\n"                                            // 13
         "matmul " + view + ", s[:, 0:8], s, start, stop\n"  // 14: step 3
         "matmul acc, s[:, 0:8], s, stop\n"              // 15: step 4
         "copy o, acc\n"                                 // 16: step 5
         "copy o2, " + view + "\n"                       // 17: step 6
         "dma O, o\n"                                    // 18: step 7
         "dma P, o2\n";                                  // 19: step 8
}

TEST(ByteLiveness, TwoAccumulationGroupsOnDisjointBytesOfOneBank) {
  // t's elements 16..31 are bytes 64..127 of the bank: beside acc's 0..63. t's elements 0..15 are never used.
  EXPECT_TRUE(check(psumProgram("t[:, 16:16]")).empty());
}

TEST(ByteLiveness, SecondGroupOnTheBytesOfAnOpenOne) {
  // t's elements 0..15 are acc's bytes, written at step 3 while acc's group is open (read again at step 4).
  // acc's element [0, 0] is live over steps 2..5, t's over steps 3..6.
  auto fs = check(psumProgram("t[:, 0:16]"));
  ASSERT_EQ(fs.size(), 1u) << describe(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::Overlap);
  EXPECT_EQ(fs[0].loc.line, 14u);
  EXPECT_EQ(fs[0].step, 3u);
  EXPECT_EQ(fs[0].message,
            "psum tensors 't' @bank0 and 'acc' @bank0 overlap in bank 0 (all partitions) while both are live");
  EXPECT_EQ(fs[0].notes[1],
            "first shared live byte: PSUM partition 0 byte 0 (bank 0), element [0, 0] of 't' (live over steps 3..6) "
            "and element [0, 0] of 'acc' (live over steps 2..5)");
}

TEST(ByteLiveness, TheWholeVerdictAgrees) {
  // The correct twins pass all three oracles; the broken ones fail with the value oracles too (a read finds the
  // other tensor's bytes).
  for (const std::string& ok : {tileProgram("copy d, q{1}\nmemset c, 1.0\n"),
                                halfProgram("act b[:, 8:8], a[:, 8:8], relu", "act b[:, 0:8], a[:, 0:8], relu"),
                                psumProgram("t[:, 16:16]")}) {
    Verdict v = checkAllocation(parseProgram(ok));
    EXPECT_TRUE(v.ok()) << ok << describeDefect(v, "t");
  }
  for (const std::string& bad : {tileProgram("memset c, 1.0\ncopy d, q{1}\n"),
                                 halfProgram("act b[:, 0:8], a[:, 0:8], relu", "act b[:, 8:8], a[:, 8:8], relu"),
                                 psumProgram("t[:, 0:16]")}) {
    Verdict v = checkAllocation(parseProgram(bad));
    EXPECT_FALSE(v.ok()) << bad;
  }
}

}  // namespace
}  // namespace allocsim
