// The allocators' linear order and live ranges (alloc/linear_order.h, alloc/liveness.h): the production allocator's
// anchors and loop extension on hand-written programs, plus the back-edge rule for values carried within one loop.
#include "alloc/liveness.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"

namespace allocsim {
namespace {

// The position of the instruction (or loop header) written on source line `line`.
uint32_t at(const LinearOrder& order, uint32_t line) {
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& lp = order.positions[pos];
    if (lp.inst != nullptr && lp.inst->loc.line == line && lp.kind != LinearPosition::Kind::LoopEnd) return pos;
  }
  ADD_FAILURE() << "no instruction on line " << line;
  return kNone;
}

// The end position of the loop whose header is on source line `line`.
uint32_t endOf(const LinearOrder& order, uint32_t line) {
  for (const LinearLoop& l : order.loops)
    if (l.inst->loc.line == line) return l.end;
  ADD_FAILURE() << "no loop on line " << line;
  return kNone;
}

struct Live {
  Program p;
  Liveness live;
  explicit Live(const std::string& text) : p(parseProgram(text)), live(computeLiveness(p)) {}
  LiveRange tensor(const std::string& name) const { return live.tensors.at(p.findTensor(name)); }
  LiveRange reg(const std::string& name) const { return live.registers.at(p.findRegister(name)); }
  uint32_t pos(uint32_t line) const { return at(live.order, line); }
  uint32_t end(uint32_t line) const { return endOf(live.order, line); }
};

LiveRange range(uint32_t first, uint32_t last) { return LiveRange{first, last}; }

// Lines 1-10; instructions start on line 11.
const char* const kDecls =
    "arch tiny\n"
    "dram A [8, 64] u32 input\n"
    "dram O [8, 64] u32 output\n"
    "sbuf a [8, 64] u32\n"
    "sbuf b [8, 64] u32\n"
    "sbuf c [8, 64] u32\n"
    "sbuf d [8, 64] u32\n"
    "reg i\n"
    "reg j\n"
    "reg s\n";

TEST(LinearOrder, LoopsFlattenToHeaderBodyEnd) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                 // 11
         "loop i = 0, 2, 1 {\n"       // 12
         "  loop j = 0, 3, 1 {\n"     // 13
         "    tt b, a, a, add\n"      // 14
         "  }\n"
         "  copy c, b\n"              // 16
         "}\n"
         "dma O, c\n");               // 18
  const LinearOrder& o = l.live.order;
  using K = LinearPosition::Kind;
  ASSERT_EQ(o.positions.size(), 10u);
  std::vector<K> kinds;
  for (const LinearPosition& lp : o.positions) kinds.push_back(lp.kind);
  EXPECT_EQ(kinds, (std::vector<K>{K::Start, K::Instruction, K::LoopHeader, K::LoopHeader, K::Instruction,
                                   K::LoopEnd, K::Instruction, K::LoopEnd, K::Instruction, K::End}));
  ASSERT_EQ(o.loops.size(), 2u);
  EXPECT_EQ(o.loops[0].header, 2u);
  EXPECT_EQ(o.loops[0].end, 7u);
  EXPECT_EQ(o.loops[0].parent, -1);
  EXPECT_EQ(o.loops[0].trips, 2u);
  EXPECT_EQ(o.loops[1].header, 3u);
  EXPECT_EQ(o.loops[1].end, 5u);
  EXPECT_EQ(o.loops[1].parent, 0);
  EXPECT_EQ(o.loops[1].depth, 2u);
  EXPECT_EQ(o.nest(4), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(o.nest(3), (std::vector<int32_t>{0}));  // a header belongs to the enclosing nest
  EXPECT_EQ(o.nest(5), (std::vector<int32_t>{0}));
  EXPECT_EQ(o.nest(8), (std::vector<int32_t>{}));
  EXPECT_EQ(o.end(), 9u);
}

TEST(LoopTrips, CeilOfSpanOverStepAndZeroForEmptyOrBadLoops) {
  Instruction loop;
  loop.op = Op::Loop;
  loop.lo = 0, loop.hi = 10, loop.step = 3;
  EXPECT_EQ(loopTrips(loop), 4u);
  loop.lo = 10;
  EXPECT_EQ(loopTrips(loop), 0u);
  loop.lo = 0, loop.step = 0;
  EXPECT_EQ(loopTrips(loop), 0u);
  loop.lo = INT64_MIN, loop.hi = INT64_MAX, loop.step = 1;
  EXPECT_EQ(loopTrips(loop), UINT64_MAX);
}

TEST(Liveness, DefinedBeforeALoopAndUsedInsideIsLiveToTheLoopEnd) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "loop i = 0, 4, 1 {\n"  // 12
         "  tt b, a, a, add\n"   // 13
         "  copy c, b\n"         // 14
         "}\n"
         "dma O, c\n");          // 16
  EXPECT_EQ(l.tensor("a"), range(l.pos(11), l.end(12)));
}

// c is written whole on every iteration before anything reads it: what an iteration leaves is gone when the next
// one writes it again, and only the last iteration's value reaches the read after the loop.
TEST(Liveness, WrittenWholeInALoopAndUsedAfterIsLiveFromTheWrite) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "loop i = 0, 4, 1 {\n"  // 12
         "  tt b, a, a, add\n"   // 13
         "  copy c, b\n"         // 14
         "}\n"
         "dma O, c\n");          // 16
  EXPECT_EQ(l.tensor("c"), range(l.pos(14), l.pos(16)));
}

// Each iteration writes another chunk of c: the chunks of earlier iterations wait for the read after the loop, so c
// is live from the loop header.
TEST(Liveness, WrittenInChunksInALoopAndUsedAfterIsLiveFromTheLoopHeader) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                              // 11
         "loop i = 0, 4, 1 {\n"                    // 12
         "  copy c[:, i*16:16], a[:, i*16:16]\n"   // 13
         "}\n"
         "dma O, c\n");                            // 15
  EXPECT_EQ(l.tensor("c"), range(l.pos(12), l.pos(15)));
}

// The same chunks, each written twice by an inner loop: every iteration of the outer loop rewrites all of c before
// its end, so c is live from its first write (in the outer loop's last iteration's terms), not from the header.
TEST(Liveness, RewrittenWholeByAnInnerLoopOnEveryIterationIsLiveFromTheFirstWrite) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                                // 11
         "loop i = 0, 3, 1 {\n"                      // 12
         "  tt b, a, a, add\n"                       // 13
         "  loop j = 0, 4, 1 {\n"                    // 14
         "    copy c[:, j*16:16], b[:, j*16:16]\n"   // 15
         "  }\n"
         "}\n"
         "dma O, c\n");                              // 18
  // Inside the inner loop the chunks of earlier j iterations wait: live from its header.
  EXPECT_EQ(l.tensor("c"), range(l.pos(14), l.pos(18)));
}

// A loop that runs once has no earlier iteration: a value first written in it is live from the write, and one last
// read in it dies at the read.
TEST(Liveness, ALoopOfOneIterationExtendsNothing) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                              // 11
         "loop i = 0, 1, 1 {\n"                    // 12
         "  tt b, a, a, add\n"                     // 13
         "  copy c[:, 0:16], a[:, 0:16]\n"         // 14
         "  copy b[:, 0:16], a[:, 16:16]\n"        // 15
         "}\n"
         "dma O, c\n");                            // 17
  EXPECT_EQ(l.tensor("a"), range(l.pos(11), l.pos(15)));
  EXPECT_EQ(l.tensor("c"), range(l.pos(14), l.pos(17)));
}

// A partial write after which only what it wrote is read starts a value: nothing of the old one is read again.
TEST(Liveness, PartialRewriteReadBackOnlyStartsAValue) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                        // 11
         "copy b, a\n"                       // 12
         "copy c, b\n"                       // 13: the first value's last read
         "copy d, a\n"                       // 14
         "memset b[:, 0:16], 1\n"            // 15
         "copy c[:, 0:16], b[:, 0:16]\n"     // 16: reads only what 15 wrote
         "dma O, c\n");                      // 17
  EXPECT_EQ(l.live.value_starts[l.p.findTensor("b")], (std::vector<uint32_t>{l.pos(15)}));
  LiveRange expected(l.pos(12), l.pos(13));
  expected.add({l.pos(15), l.pos(16)});
  EXPECT_EQ(l.tensor("b"), expected);
}

// The same, but the read after the partial write also reads an element of the old value: one value.
TEST(Liveness, PartialRewriteThenAReadOfOlderElementsKeepsOneValue) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                        // 11
         "copy b, a\n"                       // 12
         "copy c, b\n"                       // 13
         "copy d, a\n"                       // 14
         "memset b[:, 0:16], 1\n"            // 15
         "copy c[:, 0:17], b[:, 0:17]\n"     // 16: element 16 is the first value's
         "dma O, c\n");                      // 17
  EXPECT_TRUE(l.live.value_starts[l.p.findTensor("b")].empty());
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.pos(16)));
}

// A start@first matmul that nothing reads afterwards is no dead store: on the later iterations of its loop it reads
// what the earlier ones accumulated, so it is live over the loop.
TEST(Liveness, UnreadAccumulationIsLiveOverItsLoop) {
  Live l("arch tiny\n"
         "dram A [8, 64] f32 input\n"
         "sbuf a [8, 64] f32\n"
         "psum acc [8, 8] f32\n"
         "reg j\n"
         "dma a, A\n"                                                   // 6
         "loop j = 0, 2, 1 {\n"                                         // 7
         "  matmul acc, a[:, 0:8], a[:, 8:8], start@first, stop@last\n"  // 8
         "}\n");
  EXPECT_EQ(l.tensor("acc"), range(l.pos(7), l.end(7)));
}

// A write after a value's last read that nothing reads (no later iteration can: no loop holds both) is a dead
// store: live at its own position, not from the read to it.
TEST(Liveness, DeadStoreAfterTheLastReadIsLiveAtItsPositionOnly) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                      // 11
         "copy b, a\n"                     // 12
         "copy c, b\n"                     // 13
         "copy d, a\n"                     // 14
         "copy b[:, 0:16], a[:, 0:16]\n"   // 15: read by nobody
         "tt c, c, d, add\n"               // 16
         "dma O, c\n");                    // 17
  LiveRange expected(l.pos(12), l.pos(13));
  expected.add({l.pos(15), l.pos(15)});
  EXPECT_EQ(l.tensor("b"), expected);
}

TEST(Liveness, BodyLocalValueStaysInTheBody) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "loop i = 0, 4, 1 {\n"  // 12
         "  tt b, a, a, add\n"   // 13
         "  copy c, b\n"         // 14
         "}\n"
         "dma O, c\n");          // 16
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(14)));
  EXPECT_FALSE(interferes(l.tensor("b"), l.tensor("c")) && l.tensor("b").last < l.tensor("c").first);
}

TEST(Liveness, InputsStartAtProgramStartAndOutputsEndAtProgramEnd) {
  Live l(std::string(kDecls) +
         "dma a, A\n"    // 11
         "dma O, a\n");  // 12
  EXPECT_EQ(l.tensor("A"), range(0, l.pos(11)));
  EXPECT_EQ(l.tensor("O"), range(l.pos(12), l.live.order.end()));
  EXPECT_EQ(l.tensor("a"), range(l.pos(11), l.pos(12)));
  EXPECT_TRUE(l.tensor("b").empty());  // never mentioned
}

TEST(Liveness, AccumulationOverAKLoopIsLiveFromTheKLoopHeaderToTheLastReader) {
  Live l(
      "arch tiny\n"
      "dram L [32, 8] bf16 input\n"
      "dram R [32, 64] bf16 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf lt [8, 8] bf16\n"
      "sbuf rt [8, 64] bf16\n"
      "psum acc [8, 64] f32\n"
      "sbuf res [8, 64] f32\n"
      "reg k\n"
      "loop k = 0, 4, 1 {\n"                               // 10
      "  dma lt, L[k*8:8, :]\n"                            // 11
      "  dma rt, R[k*8:8, :]\n"                            // 12
      "  matmul acc, lt, rt, start@first, stop@last\n"     // 13
      "}\n"
      "copy res, acc\n"                                    // 15
      "dma O, res\n");                                     // 16
  // def = the first matmul, inside the k loop, so anchored at its header; use = the last reader.
  EXPECT_EQ(l.tensor("acc"), range(l.pos(10), l.pos(15)));
  // The operand tiles are reloaded in every iteration: body-local.
  EXPECT_EQ(l.tensor("lt"), range(l.pos(11), l.pos(13)));
  EXPECT_EQ(l.tensor("rt"), range(l.pos(12), l.pos(13)));
  EXPECT_EQ(l.reg("k"), range(l.pos(10), l.end(10)));
}

TEST(Liveness, AccumulatorIsNotCarriedAcrossTheOuterLoopThatRestartsIt) {
  Live l(
      "arch tiny\n"
      "dram L [32, 8] bf16 input\n"
      "dram R [32, 128] bf16 input\n"
      "dram O [8, 128] f32 output\n"
      "sbuf lt [8, 8] bf16\n"
      "sbuf rt [8, 64] bf16\n"
      "psum acc [8, 64] f32\n"
      "sbuf res [8, 128] f32\n"
      "reg n\n"
      "reg k\n"
      "loop n = 0, 2, 1 {\n"                               // 11
      "  loop k = 0, 4, 1 {\n"                             // 12
      "    dma lt, L[k*8:8, :]\n"                          // 13
      "    dma rt, R[k*8:8, n*64:64]\n"                    // 14
      "    matmul acc, lt, rt, start@first, stop@last\n"   // 15
      "  }\n"
      "  copy res[:, n*64:64], acc\n"                      // 17
      "}\n"
      "dma O, res\n");                                     // 19
  // start@first replaces the whole accumulator on the first k iteration of every n iteration.
  EXPECT_EQ(l.tensor("acc"), range(l.pos(12), l.pos(17)));
  // res is written a slice per n iteration and read after the loop: live from the n header.
  EXPECT_EQ(l.tensor("res"), range(l.pos(11), l.pos(19)));
}

TEST(Liveness, AccumulatorThatKeepsAccumulatingAcrossAnOuterLoopIsCarried) {
  Live l(
      "arch tiny\n"
      "dram L [32, 8] bf16 input\n"
      "dram R [32, 64] bf16 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf lt [8, 8] bf16\n"
      "sbuf rt [8, 64] bf16\n"
      "psum acc [8, 64] f32\n"
      "sbuf res [8, 64] f32\n"
      "reg n\n"
      "reg k\n"
      "loop n = 0, 2, 1 {\n"                                    // 11
      "  loop k = 0, 4, 1 {\n"                                  // 12
      "    dma lt, L[k*8:8, :]\n"                               // 13
      "    dma rt, R[k*8:8, :]\n"                               // 14
      "    matmul acc, lt, rt, start@first, stop\n"             // 15
      "    copy res, acc\n"                                     // 16
      "  }\n"
      "}\n"
      "dma O, res\n");                                          // 19
  // The matmul's innermost loop is k: start@first restarts it per k entry, so acc is body-local to n but
  // carried around k's back edge (a matmul without start in iterations 2..4 adds to it).
  EXPECT_EQ(l.tensor("acc"), range(l.pos(12), l.end(12)));
}

TEST(Liveness, PartialWriteReadInALaterIterationIsLiveOverTheWholeLoop) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                        // 11
         "loop i = 0, 4, 1 {\n"              // 12
         "  copy b[:, i*16:16], a[:, 0:16]\n"   // 13
         "  copy c[:, i*16:16], b[:, 0:16]\n"   // 14: iterations 2..4 read what iteration 1 wrote
         "  memset d, 0\n"                   // 15
         "  copy c[:, 0:16], d[:, 0:16]\n"   // 16
         "}\n"
         "dma O, c\n");                      // 18
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.end(12)));
  // d is replaced whole at the top of every iteration: body-local although read in the same body.
  EXPECT_EQ(l.tensor("d"), range(l.pos(15), l.pos(16)));
  EXPECT_FALSE(interferes(l.tensor("d"), range(l.pos(13), l.pos(14))));
  EXPECT_TRUE(interferes(l.tensor("b"), l.tensor("d")));
}

TEST(Liveness, InPlaceUpdateInALoopIsARead) {
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "loop i = 0, 4, 1 {\n"    // 12
         "  memset b, 1\n"         // 13
         "  tt b, b, a, add\n"     // 14
         "  tt c, c, b, add\n"     // 15: c carried around the back edge; its first mention
         "}\n"
         "dma O, b\n");            // 17
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(17)));  // written whole in the loop, used after
  EXPECT_EQ(l.tensor("c"), range(l.pos(12), l.end(12)));
}

TEST(Liveness, DeadStoreKeepsItsMemoryUntilItWrites) {
  Live l(std::string(kDecls) +
         "dma a, A\n"       // 11
         "dma O, a\n"       // 12
         "memset a, 0\n");  // 13
  EXPECT_EQ(l.tensor("a"), range(l.pos(11), l.pos(13)));
}

TEST(Liveness, CodeInALoopThatNeverRunsMentionsNothing) {
  Live l(std::string(kDecls) +
         "dma a, A\n"             // 11
         "loop i = 4, 4, 1 {\n"   // 12: zero iterations
         "  memset b, 0\n"        // 13
         "  copy c, a\n"          // 14
         "}\n"
         "dma O, a\n");           // 16
  EXPECT_TRUE(l.tensor("b").empty());
  EXPECT_TRUE(l.tensor("c").empty());
  EXPECT_EQ(l.tensor("a"), range(l.pos(11), l.pos(16)));
  EXPECT_FALSE(l.live.order.positions[l.pos(13)].executes);
  EXPECT_TRUE(l.live.order.positions[l.end(12)].executes);
  // The loop still writes its register (to lo) at its header and end.
  EXPECT_EQ(l.reg("i"), range(l.pos(12), l.end(12)));
}

TEST(Liveness, RegistersFollowTheSameRule) {
  Live l(std::string(kDecls) +
         "li s, 8\n"                        // 11
         "dma a, A\n"                       // 12
         "loop i = 0, 2, 1 {\n"             // 13
         "  loop j = 0, 2, 1 {\n"           // 14
         "    addi s, j, 4\n"               // 15: s written in the body (whole) and read after it
         "    copy b[:, s:4], a[:, i:4]\n"  // 16
         "  }\n"
         "}\n"
         "dma O, b\n"                       // 19: outputs must be written: not our business here
         "mov j, i\n");                     // 20: reads i's exit value, writes all of j
  // s: the li's value is never read (live at the li only); the addi writes all of s before its read in every
  // iteration, so that value lives from the addi to the copy, per iteration of both loops.
  LiveRange s = range(l.pos(11), l.pos(11));
  s.add({l.pos(15), l.pos(16)});
  EXPECT_EQ(l.reg("s"), s);
  // j: the value its loop's header starts lives over that loop (header to end, started anew on every iteration of
  // loop i); the mov writes all of j again after the nest: a second value.
  LiveRange j = range(l.pos(14), l.end(14));
  j.add({l.pos(20), l.pos(20)});
  EXPECT_EQ(l.reg("j"), j);
  // i: one value, from its header over its loop to the mov that reads its exit value.
  EXPECT_EQ(l.reg("i"), range(l.pos(13), l.pos(20)));
}

TEST(Liveness, RegisterDefinedInTheBodyBeforeItsReadIsBodyLocal) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                       // 11
         "loop i = 0, 2, 1 {\n"             // 12
         "  addi s, i, 4\n"                 // 13
         "  copy b[:, s:4], a[:, 0:4]\n"    // 14
         "}\n"
         "dma O, b\n");                     // 16
  EXPECT_EQ(l.reg("s"), range(l.pos(13), l.pos(14)));
}

// Rule 3 decided from the views (alloc/iteration_coverage.h): what each iteration writes before it reads.
TEST(Liveness, ColumnChunkWrittenThenReadInOneIterationIsPerIteration) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                               // 11
         "loop i = 0, 4, 1 {\n"                     // 12
         "  copy b[:, i*16:16], a[:, i*16:16]\n"     // 13: chunk i of b
         "  copy c[:, i*16:16], b[:, i*16:16]\n"     // 14: reads exactly chunk i
         "}\n"
         "dma O, c\n");                             // 16
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(14)));
  EXPECT_EQ(l.live.stats.per_iteration, 1u);
  EXPECT_EQ(l.live.stats.carried, 0u);
  EXPECT_EQ(l.live.stats.undecidable, 0u);
}

TEST(Liveness, TileAssembledByAnInnerLoopAndReadWholeIsPerIterationOfTheOuterLoop) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                                 // 11
         "loop i = 0, 2, 1 {\n"                       // 12
         "  loop j = 0, 4, 1 {\n"                     // 13
         "    copy b[j*2:2, j*16:16], a[0:2, 0:16]\n"   // 14: k-slices: partitions and columns both move
         "    copy b[j*2:2, j*-16+48:16], a[0:2, 16:16]\n"   // 15
         "  }\n"
         "  tt c, b, a, add\n"                        // 17: reads only what this i iteration wrote?
         "}\n"
         "dma O, c\n");                               // 19
  // Each j writes columns j*16.. and 48-j*16.. of partitions 2j, 2j+1; j = 0..3 write rows 0..7 (all 8), but
  // only 2 of the 4 column chunks per row: the read of the whole b is not covered.
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.end(12)));
  EXPECT_EQ(l.live.stats.carried, 1u);
}

TEST(Liveness, RowsWrittenByAnInnerLoopCoverAWholeRead) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                         // 11
         "loop i = 0, 2, 1 {\n"               // 12
         "  loop j = 0, 4, 1 {\n"             // 13
         "    copy b[j*2:2, :], a[0:2, :]\n"    // 14
         "  }\n"
         "  tt c, b, a, add\n"                // 16
         "  dma O, c\n"                       // 17
         "}\n");
  // Anchored at the j header (the def is deeper than the use), not extended over i.
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(16)));
  EXPECT_EQ(l.live.stats.per_iteration, 1u);  // b (c is replaced whole first: the quick kill, not counted)
}

TEST(Liveness, HalfWrittenTensorReadWholeIsCarried) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                          // 11
         "loop i = 0, 4, 1 {\n"                // 12
         "  copy b[:, 0:32], a[:, 0:32]\n"      // 13
         "  copy c, b\n"                       // 14
         "}\n"
         "dma O, c\n");                        // 16
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.end(12)));
}

TEST(Liveness, SecondDimensionViewsAreWalkedElementByElement) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                                   // 11
         "loop i = 0, 2, 1 {\n"                         // 12
         "  copy b[:, 0:8, 16:4], a[:, 0:32]\n"    // 13: columns 0..7, 16..23, 32..39, 48..55
         "  copy b[:, 8:8, 16:4], a[:, 32:32]\n"   // 14: the gaps
         "  copy c, b\n"                                // 15
         "}\n"
         "dma O, c\n");                                 // 17
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(15)));
}

TEST(Liveness, AddressFromARegisterSetOutsideTheLoopIsUndecidableAndConservative) {
  Live l(std::string(kDecls) +
         "li s, 16\n"                           // 11
         "dma a, A\n"                           // 12
         "loop i = 0, 4, 1 {\n"                 // 13
         "  copy b[:, s:16], a[:, 0:16]\n"      // 14
         "  copy c[:, i*16:16], b[:, s:16]\n"    // 15
         "}\n"
         "dma O, c\n");                         // 17
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.end(13)));
  EXPECT_EQ(l.live.stats.undecidable, 1u);
}

TEST(Liveness, AddressComputedFromTheLoopRegisterInsideTheBodyIsKnown) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                           // 11
         "loop i = 0, 4, 1 {\n"                 // 12
         "  addi s, i, 2\n"                     // 13
         "  copy b[:, s:16], a[:, 0:16]\n"      // 14
         "  copy c[:, i*16:16], b[:, s:16]\n"    // 15
         "}\n"
         "dma O, c\n");                         // 17
  EXPECT_EQ(l.tensor("b"), range(l.pos(14), l.pos(15)));
  EXPECT_EQ(l.live.stats.undecidable, 0u);
}

TEST(Liveness, HugeLoopsAroundTheQuestionEndWithinTheBudget) {
  // 2^31 iterations of an empty inner loop between the write and the read: the walk gives up (undecidable,
  // conservative) instead of running them.
  Live l(std::string(kDecls) +
         "dma a, A\n"                            // 11
         "loop i = 0, 2, 1 {\n"                  // 12
         "  copy b[:, i*16:16], a[:, 0:16]\n"     // 13
         "  loop j = 0, 2147483648, 1 {\n"       // 14
         "  }\n"
         "  copy c[:, i*16:16], b[:, i*16:16]\n"  // 16
         "}\n"
         "dma O, c\n");                          // 18
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.end(12)));
  EXPECT_EQ(l.live.stats.undecidable, 1u);
}

TEST(Liveness, HugeTripCountsAreDecidedWhereTheViewsDoNotMove) {
  // b's views name no register: every iteration but the first and the last repeats the second, so the walk visits
  // three of the 2^31 and decides (a walk of every iteration would run out of budget and keep b live over the
  // whole loop).
  Live l(std::string(kDecls) +
         "dma a, A\n"                            // 11
         "loop i = 0, 2147483648, 1 {\n"         // 12
         "  copy b, a\n"                         // 13
         "  copy c, b\n"                         // 14
         "}\n"
         "dma O, c\n");                          // 16
  EXPECT_EQ(l.tensor("b"), range(l.pos(13), l.pos(14)));
  EXPECT_EQ(l.live.stats.undecidable, 0u);
}

TEST(Liveness, SampledIterationsStillSeeAnAccumulationThatOnlyTheFirstStarts) {
  // start@first in a loop of its own: only iteration 0 starts the group, every later one reads acc before writing
  // it. The views do not move, so the walk samples iterations 0, 1 and 999: iteration 1 is the carried one.
  Live l(
      "arch tiny\n"
      "dram L [8, 8] bf16 input\n"
      "dram R [8, 64] bf16 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf lt [8, 8] bf16\n"
      "sbuf rt [8, 64] bf16\n"
      "psum acc [8, 64] f32\n"
      "sbuf res [8, 64] f32\n"
      "reg k\n"
      "dma lt, L\n"                                       // 10
      "dma rt, R\n"                                       // 11
      "loop k = 0, 1000, 1 {\n"                           // 12
      "  matmul acc, lt, rt, start@first, stop@last\n"    // 13
      "  copy res, acc\n"                                 // 14
      "}\n"
      "dma O, res\n");                                    // 16
  EXPECT_EQ(l.tensor("acc"), range(l.pos(12), l.end(12)));  // carried: live around the back edge
  EXPECT_EQ(l.live.stats.undecidable, 0u);
}

TEST(Interferes, InclusiveOverlapOfNonEmptyRanges) {
  EXPECT_TRUE(interferes(range(1, 5), range(5, 9)));
  EXPECT_TRUE(interferes(range(5, 9), range(1, 5)));
  EXPECT_TRUE(interferes(range(1, 9), range(3, 4)));
  EXPECT_FALSE(interferes(range(1, 4), range(5, 9)));
  EXPECT_FALSE(interferes(range(5, 9), range(1, 4)));
  EXPECT_FALSE(interferes(LiveRange{}, range(0, 100)));
  EXPECT_FALSE(interferes(LiveRange{}, LiveRange{}));
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

LiveRange segments(std::initializer_list<Segment> s) {
  LiveRange r;
  for (const Segment& x : s) r.add(x);
  return r;
}

TEST(LiveSegments, AddMergesTouchingAndOverlappingSegments) {
  EXPECT_EQ(segments({{1, 3}, {4, 6}}), range(1, 6));  // touching: one segment
  EXPECT_EQ(segments({{5, 9}, {1, 2}, {3, 4}}), range(1, 9));
  const LiveRange two = segments({{1, 2}, {5, 6}});
  EXPECT_EQ(two.segmentCount(), 2u);
  EXPECT_EQ(two.first, 1u);
  EXPECT_EQ(two.last, 6u);
  EXPECT_TRUE(two.contains(2));
  EXPECT_FALSE(two.contains(3));
  EXPECT_FALSE(two.contains(4));
  EXPECT_TRUE(two.contains(5));
  EXPECT_EQ(segments({{1, 2}, {5, 6}, {2, 5}}), range(1, 6));  // a bridge joins them
}

TEST(LiveSegments, InterferenceIsSegmentAgainstSegment) {
  const LiveRange a = segments({{1, 2}, {7, 8}});
  EXPECT_FALSE(interferes(a, range(3, 6)));  // in the gap
  EXPECT_TRUE(interferes(a, range(2, 3)));
  EXPECT_TRUE(interferes(a, range(6, 7)));
  EXPECT_FALSE(interferes(a, segments({{3, 4}, {9, 10}})));
  EXPECT_TRUE(interferes(a, segments({{3, 4}, {8, 10}})));
}

// The tensors of a program that reuses buffers: a full write after the last read starts a new value, and the
// tensor is not live between its values.
TEST(LiveSegments, AFullWriteAfterTheLastReadStartsANewValue) {
  Live l(std::string(kDecls) +
         "dma a, A\n"          // 11
         "copy b, a\n"         // 12
         "copy c, b\n"         // 13
         "copy d, c\n"         // 14: d's first value, never read
         "memset b, 1\n"       // 15: b's second value
         "tt d, b, c, add\n"   // 16: d's second value
         "dma O, d\n");        // 17
  const LiveRange b = l.tensor("b");
  EXPECT_EQ(b.segmentCount(), 2u);
  EXPECT_EQ(b.segment(0), (Segment{l.pos(12), l.pos(13)}));
  EXPECT_EQ(b.segment(1), (Segment{l.pos(15), l.pos(16)}));
  EXPECT_EQ(l.live.value_starts[l.p.findTensor("b")], (std::vector<uint32_t>{l.pos(15)}));
  // d's dead first value lies in b's gap.
  EXPECT_EQ(l.tensor("d").segment(0), (Segment{l.pos(14), l.pos(14)}));
  EXPECT_FALSE(interferes(b, range(l.pos(14), l.pos(14))));
}

TEST(LiveSegments, APartialWriteExtendsTheValueItLandsIn) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                  // 11
         "copy b, a\n"                 // 12
         "copy c, b\n"                 // 13
         "memset b[:, 0:32], 1\n"      // 14: half of b: the rest of the old value survives
         "tt d, b, c, add\n"           // 15
         "dma O, d\n");                // 16
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.pos(15)));
}

TEST(LiveSegments, AnInPlaceUpdateKeepsOneValue) {
  Live l(std::string(kDecls) +
         "dma a, A\n"          // 11
         "copy b, a\n"         // 12
         "tt b, b, a, add\n"   // 13
         "dma O, b\n");        // 14
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.pos(14)));
  EXPECT_TRUE(l.live.value_starts[l.p.findTensor("b")].empty());
}

// Two values of one tensor within each iteration of a loop: every read is covered by a write of the same iteration,
// so the second full write starts a value there too.
TEST(LiveSegments, ValuesWithinOneIterationOfALoop) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "loop i = 0, 4, 1 {\n"  // 12
         "  copy b, a\n"         // 13
         "  copy c, b\n"         // 14
         "  copy d, c\n"         // 15
         "  memset b, 2\n"       // 16
         "  tt c, b, d, add\n"   // 17
         "}\n"
         "dma O, c\n");          // 19
  const LiveRange b = l.tensor("b");
  EXPECT_EQ(b.segmentCount(), 2u);
  EXPECT_EQ(b.segment(0), (Segment{l.pos(13), l.pos(14)}));
  EXPECT_EQ(b.segment(1), (Segment{l.pos(16), l.pos(17)}));
}

// A value read at the top of the body before the body writes it again is carried around the back edge: no new
// value starts there.
TEST(LiveSegments, NoNewValueWhereTheLoopCarriesTheOldOne) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "copy b, a\n"           // 12
         "loop i = 0, 4, 1 {\n"  // 13
         "  copy c, b\n"         // 14
         "  memset b, 2\n"       // 15
         "  tt b, b, c, add\n"   // 16
         "}\n"
         "dma O, b\n");          // 18
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.pos(18)));
}

// The ifs and register-bounded loops below name only their loops' registers: whether their bodies run is decided by
// counting through the loops (i = 0..3).
TEST(LiveSegments, AWholeWriteInAnIfThatAlwaysHoldsStartsAValueAsUnconditionalCodeDoes) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "copy b, a\n"           // 12: the first value's last read
         "loop i = 0, 4, 1 {\n"  // 13
         "  if i >= 0 {\n"       // 14: holds for every i
         "    memset a, 1\n"     // 15: replaces a on every iteration
         "  }\n"
         "}\n"
         "dma O, a\n");          // 18
  EXPECT_EQ(l.tensor("a"), segments({{l.pos(11), l.pos(12)}, {l.pos(15), l.pos(18)}}));
}

TEST(LiveSegments, AWholeWriteThatRunsOnSomeIterationStartsAValueAtItsLoop) {
  // The memset runs at i = 2 only; nothing in the loop reads a, so after the loop a holds what the memset wrote.
  // Before the memset's run the old value is dead, but one position stands for every iteration: the new value is
  // live from the loop header.
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "copy b, a\n"           // 12
         "loop i = 0, 4, 1 {\n"  // 13
         "  if i == 2 {\n"       // 14
         "    memset a, 1\n"     // 15
         "  }\n"
         "}\n"
         "dma O, a\n");          // 18
  EXPECT_EQ(l.tensor("a"), segments({{l.pos(11), l.pos(12)}, {l.pos(13), l.pos(18)}}));
}

TEST(LiveSegments, AWholeWriteInARegisterBoundedLoopThatRunsStartsAValue) {
  // j runs for i = 1..3: the memset runs, though not on every iteration of i.
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "copy b, a\n"             // 12
         "loop i = 0, 4, 1 {\n"    // 13
         "  loop j = 0, i, 1 {\n"  // 14
         "    memset a, 1\n"       // 15
         "  }\n"
         "}\n"
         "dma O, a\n");            // 18
  EXPECT_EQ(l.tensor("a"), segments({{l.pos(11), l.pos(12)}, {l.pos(13), l.pos(18)}}));
}

TEST(LiveSegments, AConditionalWholeWriteThatNeverRunsOrIsReadAroundKeepsOneValue) {
  // i == 7 never holds: the dma after the loop reads what the first dma wrote.
  Live never(std::string(kDecls) +
             "dma a, A\n"            // 11
             "copy b, a\n"           // 12
             "loop i = 0, 4, 1 {\n"  // 13
             "  if i == 7 {\n"       // 14
             "    memset a, 1\n"     // 15
             "  }\n"
             "}\n"
             "dma O, a\n");          // 18
  EXPECT_EQ(never.tensor("a"), range(never.pos(11), never.pos(18)));
  // The memset runs at i = 2, but iterations 0 to 2 read the first value inside the loop.
  Live read(std::string(kDecls) +
            "dma a, A\n"            // 11
            "loop i = 0, 4, 1 {\n"  // 12
            "  copy b, a\n"         // 13
            "  if i == 2 {\n"       // 14
            "    memset a, 1\n"     // 15
            "  }\n"
            "}\n"
            "dma O, a\n");          // 18
  EXPECT_EQ(read.tensor("a"), range(read.pos(11), read.pos(18)));
}

TEST(LiveSegments, ATensorReplacedPiecewiseStartsAValueAtTheFirstPiece) {
  // The two memsets together write every element of b before anything reads it: what the loop reads is theirs.
  Live l(std::string(kDecls) +
         "dma a, A\n"                                // 11
         "copy b, a\n"                               // 12
         "copy c, b\n"                               // 13: the first value's last read
         "copy d, a\n"                               // 14
         "memset b[:, 0:32], 1\n"                    // 15
         "memset b[:, 32:32], 2\n"                   // 16
         "copy d, b\n"                               // 17
         "loop i = 0, 4, 1 {\n"                      // 18
         "  copy c[:, i*16:16], b[:, i*16:16]\n"     // 19
         "}\n"
         "dma O, c\n");                              // 21
  EXPECT_EQ(l.live.value_starts[l.p.findTensor("b")], (std::vector<uint32_t>{l.pos(15)}));
  EXPECT_EQ(l.tensor("b"), segments({{l.pos(12), l.pos(13)}, {l.pos(15), l.end(18)}}));
  // One element short (element 63 keeps the first value's, and the loop reads it): one value.
  Live short_by_one(std::string(kDecls) +
                    "dma a, A\n"                             // 11
                    "copy b, a\n"                            // 12
                    "copy c, b\n"                            // 13
                    "copy d, a\n"                            // 14
                    "memset b[:, 0:32], 1\n"                 // 15
                    "memset b[:, 32:31], 2\n"                // 16
                    "copy d, b\n"                            // 17
                    "loop i = 0, 4, 1 {\n"                   // 18
                    "  copy c[:, i*16:16], b[:, i*16:16]\n"  // 19
                    "}\n"
                    "dma O, c\n");                           // 21
  EXPECT_TRUE(short_by_one.live.value_starts[short_by_one.p.findTensor("b")].empty());
  EXPECT_EQ(short_by_one.tensor("b"), range(short_by_one.pos(12), short_by_one.end(18)));
}

TEST(LiveSegments, ALoopThatWritesEveryElementPiecewiseStartsAValueAtItsHeader) {
  // The loop's four iterations write a quarter each and read nothing of a: after it, a holds only what it wrote.
  // The new value is live from the header (one position stands for every iteration).
  Live l(std::string(kDecls) +
         "dma a, A\n"                          // 11
         "copy b, a\n"                         // 12: the first value's last read
         "loop i = 0, 4, 1 {\n"                // 13
         "  memset a[:, i*16:16], 1\n"         // 14
         "}\n"
         "dma O, a\n");                        // 16
  EXPECT_EQ(l.live.value_starts[l.p.findTensor("a")], (std::vector<uint32_t>{l.pos(14)}));
  EXPECT_EQ(l.tensor("a"), segments({{l.pos(11), l.pos(12)}, {l.pos(13), l.pos(16)}}));
  // Three quarters only: the last quarter is the first value's, read after the loop.
  Live partly(std::string(kDecls) +
              "dma a, A\n"                     // 11
              "copy b, a\n"                    // 12
              "loop i = 0, 3, 1 {\n"           // 13
              "  memset a[:, i*16:16], 1\n"    // 14
              "}\n"
              "dma O, a\n");                   // 16
  EXPECT_TRUE(partly.live.value_starts[partly.p.findTensor("a")].empty());
  EXPECT_EQ(partly.tensor("a"), range(partly.pos(11), partly.pos(16)));
  // Every element written, but the loop also reads a quarter before the iteration that writes it: one value.
  Live reads(std::string(kDecls) +
             "dma a, A\n"                      // 11
             "copy b, a\n"                     // 12
             "loop i = 0, 4, 1 {\n"            // 13
             "  memset a[:, i*16:16], 1\n"     // 14
             "  copy c[:, 0:16], a[:, 48:16]\n"  // 15
             "}\n"
             "dma O, a\n");                    // 17
  EXPECT_TRUE(reads.live.value_starts[reads.p.findTensor("a")].empty());
  EXPECT_EQ(reads.tensor("a"), range(reads.pos(11), reads.pos(17)));
}

}  // namespace
}  // namespace allocsim
