// The allocators' linear order and live ranges (alloc/linear_order.h, alloc/liveness.h): the production allocator's
// anchors and loop extension on hand-written programs, plus the back-edge rule for values carried within one loop.
#include "alloc/liveness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <ostream>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/parse.h"
#include "tests/common/linear_positions.h"

namespace allocsim {
namespace {

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

// The shape most programs below share, after kDecls: a is loaded (line 11), a loop over i of `trips` iterations
// (header on line 12) runs `body` (from line 13 on), and `out` is written to O after the loop.
std::string loadLoopStore(const std::string& body, int64_t trips = 4, const std::string& out = "c") {
  return "dma a, A\n"
         "loop i = 0, " + std::to_string(trips) + ", 1 {\n" +
         body +
         "}\n"
         "dma O, " + out + "\n";
}

// a is loaded (11) and copied to b (12), b's value read (13); a loop over i (14) writes b[:, 0:32] in halves through
// views naming i (15), each read back in its iteration (16); a loop over j (18) writes b[:, 32:64] the same way (19)
// and reads `read` (20); c is completed from d (22) and stored (23).
std::string halvesThroughRegisterViews(const std::string& read) {
  return "dma a, A\n"
         "copy b, a\n"
         "copy c, b\n"
         "loop i = 0, 2, 1 {\n"
         "  memset b[:, i*16:16], 1\n"
         "  copy c[:, i*16:16], b[:, i*16:16]\n"
         "}\n"
         "loop j = 0, 2, 1 {\n"
         "  memset b[:, j*16+32:16], 2\n"
         "  copy d[:, j*16:16], " + read + "\n"
         "}\n"
         "copy c[:, 32:32], d[:, 0:32]\n"
         "dma O, c\n";
}

// a is loaded (11), copied to b (12), b's value read (13), d written (14); b[:, 0:32] is rewritten (15), a loop over
// i of two iterations (16) updates `view` of b in place (17), b[:, 32:32] is rewritten (19) and b read whole (20).
std::string partialThenLoopUpdate(const std::string& view) {
  return "dma a, A\n"
         "copy b, a\n"
         "copy c, b\n"
         "copy d, a\n"
         "memset b[:, 0:32], 1\n"
         "loop i = 0, 2, 1 {\n"
         "  tt " + view + ", " + view + ", d[:, 0:32], add\n"
         "}\n"
         "memset b[:, 32:32], 2\n"
         "copy c, b\n"
         "dma O, c\n";
}
// a is loaded (line 11) and read (12), then a loop over i of four iterations (13) writes a whole under `guard`, an
// if or an inner loop (14; the memset on 15), and O is written from a after the loop (18).
std::string guardedWholeWrite(const std::string& guard) {
  return "dma a, A\n"
         "copy b, a\n"
         "loop i = 0, 4, 1 {\n"
         "  " + guard + " {\n"
         "    memset a, 1\n"
         "  }\n"
         "}\n"
         "dma O, a\n";
}

// A loop body (from line 13): under `if COND` (13; the memset on 14) a is rewritten whole, then read (16); c is
// written from d (17).
std::string laterRewrite(const std::string& cond) {
  return "  if " + cond + " {\n"
         "    memset a, 1\n"
         "  }\n"
         "  copy b, a\n"
         "  copy c, d\n";
}

// A loop body (from line 13): a is read (13), c written (14), a rewritten by `rewrite` (15 on), and read (the line
// after it).
std::string readThenRewrite(const std::string& rewrite) {
  return "  copy b, a\n"
         "  memset c, 2\n"
         "  " + rewrite + "\n"
         "  copy d, a\n";
}

// b's first value (12) is read (13); the memsets on 15 and 16 write its columns 0:32 and `second`; 17 reads b whole
// and the loop on 18 reads it by quarters (19); O is written from c (21).
std::string halvesThenLoop(const std::string& second) {
  return "dma a, A\n"
         "copy b, a\n"
         "copy c, b\n"
         "copy d, a\n"
         "memset b[:, 0:32], 1\n"
         "memset b[:, " + second + "], 2\n"
         "copy d, b\n"
         "loop i = 0, 4, 1 {\n"
         "  copy c[:, i*16:16], b[:, i*16:16]\n"
         "}\n"
         "dma O, c\n";
}

// a is loaded (11) and read (12); a loop of `trips` iterations (13) writes its quarter i (14), then runs `more`; O is
// written from a after the loop (16, or 17 with one line of `more`).
std::string quartersAfterARead(int64_t trips, const std::string& more) {
  return "dma a, A\n"
         "copy b, a\n"
         "loop i = 0, " + std::to_string(trips) + ", 1 {\n"
         "  memset a[:, i*16:16], 1\n" +
         more +
         "}\n"
         "dma O, a\n";
}

// The declarations of the matmul programs below: L holds `k_rows` rows of lhs tiles, R and O `cols` columns, lt and
// rt one tile each, acc one accumulator and res its copies; then one `reg` line for each name in `regs` (the last
// declaration is on line 8 + the number of registers).
std::string matmulDecls(int k_rows, int cols, const std::string& regs) {
  const std::string r = std::to_string(k_rows), c = std::to_string(cols);
  std::string text = "arch tiny\n"
                     "dram L [" + r + ", 8] bf16 input\n"
                     "dram R [" + r + ", " + c + "] bf16 input\n"
                     "dram O [8, " + c + "] f32 output\n"
                     "sbuf lt [8, 8] bf16\n"
                     "sbuf rt [8, 64] bf16\n"
                     "psum acc [8, 64] f32\n"
                     "sbuf res [8, " + c + "] f32\n";
  std::istringstream names(regs);
  for (std::string name; names >> name;) text += "reg " + name + "\n";
  return text;
}

// A position of the linear order named by a source line: the instruction (or loop header) on that line, or the end
// of the loop whose header is on it.
struct Anchor {
  uint32_t line;
  bool loop_end;
};
constexpr Anchor P(uint32_t line) { return {line, false}; }
constexpr Anchor E(uint32_t line) { return {line, true}; }

// Positions live on some iterations of a loop only (LiveRange::only): from the position after `after` to `last`, on
// the last iteration of the loop whose header is on line `loop` or on every one but the last.
struct ExpectedPart {
  Anchor after;
  Anchor last;
  uint32_t loop;
  bool last_iteration;
};

// One value's live range, derived by hand: its segments, where given the positions at which its new values start,
// and where given the positions it holds on some iterations only (the segments alone are compared otherwise).
struct ExpectedRange {
  const char* value;  // a tensor, or with `reg` a register
  std::vector<std::pair<Anchor, Anchor>> segments;
  bool reg = false;
  std::optional<std::vector<Anchor>> value_starts = std::nullopt;
  std::optional<std::vector<ExpectedPart>> only = std::nullopt;
};

// A program written after kDecls (its instructions start on line 11) and what its liveness must be; the loop
// questions' counts are checked where given.
struct RangeCase {
  const char* name;
  std::string body;
  std::vector<ExpectedRange> expect;
  std::optional<uint32_t> undecidable = std::nullopt;
  std::optional<uint32_t> per_iteration = std::nullopt;
  std::optional<uint32_t> carried = std::nullopt;
};

void PrintTo(const RangeCase& c, std::ostream* os) { *os << c.name; }

std::string caseName(const ::testing::TestParamInfo<RangeCase>& info) { return info.param.name; }

class LiveRangeOf : public ::testing::TestWithParam<RangeCase> {};

TEST_P(LiveRangeOf, MatchesTheRangesDerivedByHand) {
  const RangeCase& c = GetParam();
  Live l(kDecls + c.body);
  auto position = [&](Anchor a) { return a.loop_end ? l.end(a.line) : l.pos(a.line); };
  for (const ExpectedRange& e : c.expect) {
    LiveRange expected;
    for (const auto& [first, last] : e.segments) expected.add({position(first), position(last)});
    LiveRange got = e.reg ? l.reg(e.value) : l.tensor(e.value);
    if (e.only) {
      for (const ExpectedPart& q : *e.only) {
        int32_t loop = 0;
        while (size_t(loop) < l.live.order.loops.size() && l.live.order.loops[size_t(loop)].inst->loc.line != q.loop)
          ++loop;
        expected.only.push_back({position(q.after) + 1, position(q.last), loop, q.last_iteration});
      }
    } else {
      got.only.clear();
    }
    EXPECT_EQ(got, expected) << e.value;
    if (e.value_starts) {
      std::vector<uint32_t> starts;
      for (Anchor a : *e.value_starts) starts.push_back(position(a));
      EXPECT_EQ(l.live.value_starts[l.p.findTensor(e.value)], starts) << e.value;
    }
  }
  if (c.undecidable) {
    EXPECT_EQ(l.live.stats.undecidable, *c.undecidable);
  }
  if (c.per_iteration) {
    EXPECT_EQ(l.live.stats.per_iteration, *c.per_iteration);
  }
  if (c.carried) {
    EXPECT_EQ(l.live.stats.carried, *c.carried);
  }
}

TEST(LinearOrder, LoopsFlattenToHeaderBodyEnd) {
  Live l(std::string(kDecls) +
         loadLoopStore("  loop j = 0, 3, 1 {\n"  // 13
                       "    tt b, a, a, add\n"   // 14
                       "  }\n"
                       "  copy c, b\n", 2));     // 16; `dma O, c` is line 18
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
  // The loop directly in a body that holds a position: the tt (4) lies in loop 1, directly in loop 0's body, which
  // lies directly in the top level's.
  EXPECT_EQ(o.childIn(4, -1), 0);
  EXPECT_EQ(o.childIn(4, 0), 1);
  EXPECT_EQ(o.childIn(4, 1), -1);  // directly in loop 1's body
  EXPECT_EQ(o.childIn(3, -1), 0);  // loop 1's header is in loop 0's body
  EXPECT_EQ(o.childIn(6, 0), -1);
  EXPECT_EQ(o.childIn(6, -1), 0);
  EXPECT_EQ(o.childIn(8, -1), -1);
  EXPECT_EQ(o.childIn(8, 0), -1);  // outside loop 0
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

INSTANTIATE_TEST_SUITE_P(Liveness, LiveRangeOf, ::testing::ValuesIn(std::vector<RangeCase>{
    {.name = "DefinedBeforeALoopAndUsedInsideIsLiveToTheLoopEnd",
     .body = loadLoopStore("  tt b, a, a, add\n"  // 13
                           "  copy c, b\n"),      // 14; `dma O, c` is line 16
     // After its last read (13) only an iteration that another follows holds a.
     .expect = {{.value = "a", .segments = {{P(11), E(12)}}, .only = {{{P(13), E(12), 12, false}}}}}},
    // c is written whole on every iteration before anything reads it: what an iteration leaves is gone when the next
    // one writes it again, and only the last iteration's value reaches the read after the loop.
    {.name = "WrittenWholeInALoopAndUsedAfterIsLiveFromTheWrite",
     .body = loadLoopStore("  tt b, a, a, add\n"  // 13
                           "  copy c, b\n"),      // 14; `dma O, c` is line 16
     // After its write (14) in the loop, only the last iteration's c is live.
     .expect = {{.value = "c", .segments = {{P(14), P(16)}}, .only = {{{P(14), E(12), 12, true}}}}}},
    // c is written whole, read (14), and partly rewritten (16) on every iteration: on the iterations but the last
    // nothing reads it after 14, so from there it is the last iteration's only, but at the partial write, which
    // takes its memory on every iteration.
    {.name = "WrittenWholeInALoopIsTheLastIterationsOnlyAfterItsLastReadThere",
     .body = loadLoopStore("  memset c, 1\n"             // 13
                           "  copy b, c\n"               // 14
                           "  copy d, a\n"               // 15
                           "  memset c[:, 0:16], 2\n"),  // 16; `dma O, c` is line 18
     .expect = {{.value = "c",
                 .segments = {{P(13), P(18)}},
                 .only = {{{P(14), P(15), 12, true}, {P(16), E(12), 12, true}}}}}},
    // Each iteration writes another chunk of c: the chunks of earlier iterations wait for the read after the loop, so c
    // is live from the loop header.
    {.name = "WrittenInChunksInALoopAndUsedAfterIsLiveFromTheLoopHeader",
     .body = loadLoopStore("  copy c[:, i*16:16], a[:, i*16:16]\n"),  // 13; `dma O, c` is line 15
     .expect = {{.value = "c", .segments = {{P(12), P(15)}}}}},
    // The same chunks, each written twice by an inner loop: every iteration of the outer loop rewrites all of c before
    // its end, so c is live from its first write (in the outer loop's last iteration's terms), not from the header.
    {.name = "RewrittenWholeByAnInnerLoopOnEveryIterationIsLiveFromTheFirstWrite",
     .body = loadLoopStore("  tt b, a, a, add\n"                      // 13
                           "  loop j = 0, 4, 1 {\n"                   // 14
                           "    copy c[:, j*16:16], b[:, j*16:16]\n"  // 15
                           "  }\n", 3),                               // `dma O, c` is line 18
     // Inside the inner loop the chunks of earlier j iterations wait: live from its header.
     .expect = {{.value = "c", .segments = {{P(14), P(18)}}}}},
    // A loop that runs once has no earlier iteration: a value first written in it is live from the write, and one last
    // read in it dies at the read.
    {.name = "ALoopOfOneIterationExtendsNothing",
     .body = loadLoopStore("  tt b, a, a, add\n"                    // 13
                           "  copy c[:, 0:16], a[:, 0:16]\n"        // 14
                           "  copy b[:, 0:16], a[:, 16:16]\n", 1),  // 15; `dma O, c` is line 17
     .expect = {{.value = "a", .segments = {{P(11), P(15)}}}, {.value = "c", .segments = {{P(14), P(17)}}}}},
    // A partial write after which only what it wrote is read starts a value: nothing of the old one is read again.
    {.name = "PartialRewriteReadBackOnlyStartsAValue",
     .body = "dma a, A\n"                        // 11
             "copy b, a\n"                       // 12
             "copy c, b\n"                       // 13: the first value's last read
             "copy d, a\n"                       // 14
             "memset b[:, 0:16], 1\n"            // 15
             "copy c[:, 0:16], b[:, 0:16]\n"     // 16: reads only what 15 wrote
             "dma O, c\n",                       // 17
     .expect = {{.value = "b", .segments = {{P(12), P(13)}, {P(15), P(16)}}, .value_starts = std::vector<Anchor>{P(15)}}}},
    // The same, but the read after the partial write also reads an element of the old value: one value.
    {.name = "PartialRewriteThenAReadOfOlderElementsKeepsOneValue",
     .body = "dma a, A\n"                        // 11
             "copy b, a\n"                       // 12
             "copy c, b\n"                       // 13
             "copy d, a\n"                       // 14
             "memset b[:, 0:16], 1\n"            // 15
             "copy c[:, 0:17], b[:, 0:17]\n"     // 16: element 16 is the first value's
             "dma O, c\n",                       // 17
     .expect = {{.value = "b", .segments = {{P(12), P(16)}}, .value_starts = std::vector<Anchor>{}}}},
    // Partial writes through views that name a loop register start values: the loop over i writes b[:, 0:32] in
    // halves, each read back in its own iteration, and the loop over j writes b[:, 32:64] the same way; nothing of
    // the value b held before is read again. Three values, each loop's held within its loop (no iteration reads what
    // an earlier one left).
    {.name = "HalvesWrittenThroughLoopRegisterViewsStartValues",
     .body = halvesThroughRegisterViews("b[:, j*16+32:16]"),
     .expect = {{.value = "b",
                 .segments = {{P(12), P(13)}, {P(15), P(16)}, {P(19), P(20)}},
                 .value_starts = std::vector<Anchor>{P(15), P(19)}}}},
    // The same, but the first iteration over j reads b[:, 48:50] before any write since line 12 has covered it: the
    // value written on line 12 is read there, so neither loop starts a value.
    {.name = "ARegisterViewReadOfAnOlderElementKeepsOneValue",
     .body = halvesThroughRegisterViews("b[:, j*14+34:16]"),  // j = 0 reads 34..49: 48 and 49 are line 12's
     .expect = {{.value = "b", .segments = {{P(12), P(20)}}, .value_starts = std::vector<Anchor>{}}}},
    // A loop after a partial write that updates in place what the write wrote, on every iteration: it reads nothing
    // older than line 15, and 19 completes b, so 15 starts a value.
    {.name = "ALoopUpdatingWhatAPartialWriteWroteLetsItStartAValue",
     .body = partialThenLoopUpdate("b[:, 0:32]"),
     .expect = {{.value = "b",
                 .segments = {{P(12), P(13)}, {P(15), P(20)}},
                 .value_starts = std::vector<Anchor>{P(15)}}}},
    // The same, but the loop's second iteration (i = 1) updates columns 32..63, which still hold the first value: one
    // value.
    {.name = "ALoopUpdatingOlderElementsOnALaterIterationKeepsOneValue",
     .body = partialThenLoopUpdate("b[:, i*32:32]"),
     .expect = {{.value = "b", .segments = {{P(12), P(20)}}, .value_starts = std::vector<Anchor>{}}}},
    // Each iteration of the loop rewrites b whole (12) before two partial writes (13, 14). On i = 0 they cover every
    // element, but on i = 2 they write columns 32..63 only: after the loop, columns 0..31 hold the memset's zeros of
    // the last iteration, and the dma reads them. The partial write on 13 lands in the value the memset starts on
    // every iteration, so it starts none: one value, live from the memset to the dma.
    {.name = "PartialWritesCoveringTheTensorOnTheFirstIterationOnlyKeepTheValueTheyLandIn",
     .body = "loop i = 0, 3, 1 {\n"            // 11
             "  memset b, 0\n"                 // 12
             "  memset b[:, i*16:32], 1\n"     // 13: columns 0..31, 16..47, 32..63
             "  memset b[:, 32:32], 2\n"       // 14
             "}\n"
             "dma O, b\n",                     // 16
     .expect = {{.value = "b", .segments = {{P(12), P(16)}}, .value_starts = std::vector<Anchor>{}}}},
    // The same with partial writes that cover every element on every iteration: after each memset, what is read is
    // theirs, so 13 starts a value (the memset's value is a dead store, live at 12 only, which touches the next).
    {.name = "PartialWritesCoveringTheTensorOnEveryIterationStartAValue",
     .body = "loop i = 0, 3, 1 {\n"            // 11
             "  memset b, 0\n"                 // 12
             "  memset b[:, 0:32], 1\n"        // 13
             "  memset b[:, 32:32], 2\n"       // 14
             "}\n"
             "dma O, b\n",                     // 16
     .expect = {{.value = "b", .segments = {{P(12), P(16)}}, .value_starts = std::vector<Anchor>{P(13)}}}},
    // A write after a value's last read that nothing reads (no later iteration can: no loop holds both) is a dead
    // store: live at its own position, not from the read to it.
    {.name = "DeadStoreAfterTheLastReadIsLiveAtItsPositionOnly",
     .body = "dma a, A\n"                      // 11
             "copy b, a\n"                     // 12
             "copy c, b\n"                     // 13
             "copy d, a\n"                     // 14
             "copy b[:, 0:16], a[:, 0:16]\n"   // 15: read by nobody
             "tt c, c, d, add\n"               // 16
             "dma O, c\n",                     // 17
     .expect = {{.value = "b", .segments = {{P(12), P(13)}, {P(15), P(15)}}}}},
    {.name = "InPlaceUpdateInALoopIsARead",
     .body = loadLoopStore("  memset b, 1\n"                // 13
                           "  tt b, b, a, add\n"            // 14
                           "  tt c, c, b, add\n", 4, "b"),  // 15: c carried around the back edge; its first mention
                                                            // `dma O, b` is line 17
     // b is written whole in the loop and used after it; c is carried around the back edge.
     .expect = {{.value = "b", .segments = {{P(13), P(17)}}}, {.value = "c", .segments = {{P(12), E(12)}}}}},
    {.name = "DeadStoreKeepsItsMemoryUntilItWrites",
     .body = "dma a, A\n"       // 11
             "dma O, a\n"       // 12
             "memset a, 0\n",   // 13
     .expect = {{.value = "a", .segments = {{P(11), P(13)}}}}},
    {.name = "RegisterDefinedInTheBodyBeforeItsReadIsBodyLocal",
     .body = loadLoopStore("  addi s, i, 4\n"                         // 13
                           "  copy b[:, s:4], a[:, 0:4]\n", 2, "b"),  // 14; `dma O, b` is line 16
     .expect = {{.value = "s", .segments = {{P(13), P(14)}}, .reg = true}}},
    // Rule 3 decided from the views (alloc/iteration_coverage.h): what each iteration writes before it reads.
    {.name = "ColumnChunkWrittenThenReadInOneIterationIsPerIteration",
     .body = loadLoopStore("  copy b[:, i*16:16], a[:, i*16:16]\n"    // 13: chunk i of b
                           "  copy d, a\n"                            // 14
                           "  copy c[:, i*16:16], b[:, i*16:16]\n"),  // 15: reads exactly chunk i
                                                                      // `dma O, c` is line 17
     .expect = {{.value = "b", .segments = {{P(13), P(15)}}}},
     .undecidable = 0,
     .per_iteration = 1,
     .carried = 0},
    {.name = "TileAssembledByAnInnerLoopAndReadWholeIsPerIterationOfTheOuterLoop",
     .body = loadLoopStore("  loop j = 0, 4, 1 {\n"                           // 13
                           "    copy b[j*2:2, j*16:16], a[0:2, 0:16]\n"       // 14: k-slices: partitions and columns both move
                           "    copy b[j*2:2, j*-16+48:16], a[0:2, 16:16]\n"  // 15
                           "  }\n"
                           "  tt c, b, a, add\n", 2),                         // 17: reads only what this i iteration wrote?
                                                                              // `dma O, c` is line 19
     // Each j writes columns j*16.. and 48-j*16.. of partitions 2j, 2j+1; j = 0..3 write rows 0..7 (all 8), but
     // only 2 of the 4 column chunks per row: the read of the whole b is not covered.
     .expect = {{.value = "b", .segments = {{P(12), E(12)}}}},
     .carried = 1},
    {.name = "RowsWrittenByAnInnerLoopCoverAWholeRead",
     .body = "dma a, A\n"                         // 11
             "loop i = 0, 2, 1 {\n"               // 12
             "  loop j = 0, 4, 1 {\n"             // 13
             "    copy b[j*2:2, :], a[0:2, :]\n"    // 14
             "  }\n"
             "  tt c, b, a, add\n"                // 16
             "  dma O, c\n"                       // 17
             "}\n", 
     // Anchored at the j header (the def is deeper than the use), not extended over i. The one per-iteration
     // answer is b's (c is replaced whole first: the quick kill, not counted).
     .expect = {{.value = "b", .segments = {{P(13), P(16)}}}},
     .per_iteration = 1},
    {.name = "HalfWrittenTensorReadWholeIsCarried",
     .body = loadLoopStore("  copy b[:, 0:32], a[:, 0:32]\n"  // 13
                           "  copy c, b\n"),                  // 14; `dma O, c` is line 16
     .expect = {{.value = "b", .segments = {{P(12), E(12)}}}}},
    {.name = "SecondDimensionViewsAreWalkedElementByElement",
     .body = loadLoopStore("  copy b[:, 0:8, 16:4], a[:, 0:32]\n"   // 13: columns 0..7, 16..23, 32..39, 48..55
                           "  copy b[:, 8:8, 16:4], a[:, 32:32]\n"  // 14: the gaps
                           "  copy c, b\n", 2),                     // 15; `dma O, c` is line 17
     .expect = {{.value = "b", .segments = {{P(13), P(15)}}}}},
    {.name = "AddressFromARegisterSetOutsideTheLoopIsUndecidableAndConservative",
     .body = "li s, 16\n"                           // 11
             "dma a, A\n"                           // 12
             "loop i = 0, 4, 1 {\n"                 // 13
             "  copy b[:, s:16], a[:, 0:16]\n"      // 14
             "  copy d, a\n"                        // 15
             "  copy c[:, i*16:16], b[:, s:16]\n"    // 16
             "}\n"
             "dma O, c\n",                          // 18
     .expect = {{.value = "b", .segments = {{P(13), E(13)}}}},
     .undecidable = 1},
    {.name = "AddressComputedFromTheLoopRegisterInsideTheBodyIsKnown",
     .body = loadLoopStore("  addi s, i, 2\n"                      // 13
                           "  copy b[:, s:16], a[:, 0:16]\n"       // 14
                           "  copy c[:, i*16:16], b[:, s:16]\n"),  // 15; `dma O, c` is line 17
     .expect = {{.value = "b", .segments = {{P(14), P(15)}}}},
     .undecidable = 0},
    // 2^31 iterations of an empty inner loop between the write and the read: the walk gives up (undecidable,
    // conservative) instead of running them.
    {.name = "HugeLoopsAroundTheQuestionEndWithinTheBudget",
     .body = loadLoopStore("  copy b[:, i*16:16], a[:, 0:16]\n"          // 13
                           "  loop j = 0, 2147483648, 1 {\n"             // 14
                           "  }\n"
                           "  copy c[:, i*16:16], b[:, i*16:16]\n", 2),  // 16; `dma O, c` is line 18
     .expect = {{.value = "b", .segments = {{P(12), E(12)}}}},
     .undecidable = 1},
    // b's views name no register: every iteration but the first and the last repeats the second, so the walk visits
    // three of the 2^31 and decides (a walk of every iteration would run out of budget and keep b live over the
    // whole loop).
    {.name = "HugeTripCountsAreDecidedWhereTheViewsDoNotMove",
     .body = loadLoopStore("  copy b, a\n"                // 13
                           "  copy c, b\n", 2147483648),  // 14; `dma O, c` is line 16
     .expect = {{.value = "b", .segments = {{P(13), P(14)}}}},
     .undecidable = 0},
    // The first iteration reads what the dma wrote; every later one rewrites a before reading it: nothing is live from
    // one iteration's read to the next iteration's memset.
    {.name = "ALastMentionInALoopWhoseLaterIterationsWriteBeforeReadingIsNotExtended",
     .body = loadLoopStore(laterRewrite("i >= 1"), 3, "b"),  // the copy to b on line 16
     .expect = {{.value = "a", .segments = {{P(11), P(16)}}}}},
    // The second iteration reads what the first left (the memset runs from the third on): live around the loop.
    {.name = "ALastMentionInALoopWhoseSecondIterationReadsTheFirstsIsExtended",
     .body = loadLoopStore(laterRewrite("i >= 2"), 3, "b"),
     .expect = {{.value = "a", .segments = {{P(11), E(12)}}}}},
}), caseName);

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

TEST(Liveness, BodyLocalValueStaysInTheBody) {
  Live l(std::string(kDecls) +
         loadLoopStore("  tt b, a, a, add\n"  // 13
                       "  copy c, b\n"));     // 14; `dma O, c` is line 16
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
  Live l(matmulDecls(32, 64, "k") +
         "loop k = 0, 4, 1 {\n"                            // 10
         "  dma lt, L[k*8:8, :]\n"                         // 11
         "  dma rt, R[k*8:8, :]\n"                         // 12
         "  matmul acc, lt, rt, start@first, stop@last\n"  // 13
         "}\n"
         "copy res, acc\n"                                 // 15
         "dma O, res\n");                                  // 16
  // def = the first matmul, inside the k loop, so anchored at its header; use = the last reader.
  EXPECT_EQ(l.tensor("acc"), range(l.pos(10), l.pos(15)));
  // The operand tiles are reloaded in every iteration: body-local.
  EXPECT_EQ(l.tensor("lt"), range(l.pos(11), l.pos(13)));
  EXPECT_EQ(l.tensor("rt"), range(l.pos(12), l.pos(13)));
  EXPECT_EQ(l.reg("k"), range(l.pos(10), l.end(10)));
}

// acc's first value (line 12) is read on 13; a half of acc is then restarted (14), accumulated into by a loop (16),
// closed (18), and the other half written (19); acc is read whole (20). The loop reads only the half 14 restarted and
// 19 writes the rest, so 14 starts acc's second value and nothing of acc is live between 13 and 14.
TEST(Liveness, ALoopAccumulatingIntoWhatAPartialWriteRestartedLetsItStartAValue) {
  Live l(matmulDecls(8, 64, "k") +
         "dma lt, L\n"                                              // 10
         "dma rt, R\n"                                              // 11
         "matmul acc, lt, rt, start, stop\n"                        // 12
         "copy res, acc\n"                                          // 13
         "matmul acc[:, 0:32], lt, rt[:, 0:32], start\n"            // 14
         "loop k = 0, 2, 1 {\n"                                     // 15
         "  matmul acc[:, 0:32], lt, rt[:, 0:32]\n"                 // 16
         "}\n"
         "matmul acc[:, 0:32], lt, rt[:, 0:32], stop\n"             // 18
         "matmul acc[:, 32:32], lt, rt[:, 32:32], start, stop\n"    // 19
         "tt res, res, acc, add\n"                                  // 20
         "dma O, res\n");                                           // 21
  LiveRange two;
  two.add({l.pos(12), l.pos(13)});
  two.add({l.pos(14), l.pos(20)});
  EXPECT_EQ(l.tensor("acc"), two);
  EXPECT_EQ(l.live.value_starts[l.p.findTensor("acc")], std::vector<uint32_t>{l.pos(14)});
}

TEST(Liveness, AccumulatorIsNotCarriedAcrossTheOuterLoopThatRestartsIt) {
  Live l(matmulDecls(32, 128, "n k") +
         "loop n = 0, 2, 1 {\n"                            // 11
         "  loop k = 0, 4, 1 {\n"                          // 12
         "    dma lt, L[k*8:8, :]\n"                       // 13
         "    dma rt, R[k*8:8, n*64:64]\n"                 // 14
         "    matmul acc, lt, rt, start@first, stop@last\n"  // 15
         "  }\n"
         "  copy res[:, n*64:64], acc\n"                   // 17
         "}\n"
         "dma O, res\n");                                  // 19
  // start@first replaces the whole accumulator on the first k iteration of every n iteration.
  EXPECT_EQ(l.tensor("acc"), range(l.pos(12), l.pos(17)));
  // res is written a slice per n iteration and read after the loop: live from the n header.
  EXPECT_EQ(l.tensor("res"), range(l.pos(11), l.pos(19)));
}

TEST(Liveness, AccumulatorThatKeepsAccumulatingAcrossAnOuterLoopIsCarried) {
  Live l(matmulDecls(32, 64, "n k") +
         "loop n = 0, 2, 1 {\n"                                 // 11
         "  loop k = 0, 4, 1 {\n"                               // 12
         "    dma lt, L[k*8:8, :]\n"                            // 13
         "    dma rt, R[k*8:8, :]\n"                            // 14
         "    matmul acc, lt, rt, start@first, stop\n"          // 15
         "    copy res, acc\n"                                  // 16
         "  }\n"
         "}\n"
         "dma O, res\n");                                       // 19
  // The matmul's innermost loop is k: start@first restarts it per k entry, so acc is body-local to n but
  // carried around k's back edge (a matmul without start in iterations 2..4 adds to it).
  EXPECT_EQ(l.tensor("acc"), range(l.pos(12), l.end(12)));
}

TEST(Liveness, PartialWriteReadInALaterIterationIsLiveOverTheWholeLoop) {
  Live l(std::string(kDecls) +
         loadLoopStore("  copy b[:, i*16:16], a[:, 0:16]\n"  // 13
                       "  copy c[:, i*16:16], b[:, 0:16]\n"  // 14: iterations 2..4 read what iteration 1 wrote
                       "  memset d, 0\n"                     // 15
                       "  copy c[:, 0:16], d[:, 0:16]\n"));  // 16; `dma O, c` is line 18
  EXPECT_EQ(l.tensor("b"), range(l.pos(12), l.end(12)));
  // d is replaced whole at the top of every iteration: body-local although read in the same body.
  EXPECT_EQ(l.tensor("d"), range(l.pos(15), l.pos(16)));
  EXPECT_FALSE(interferes(l.tensor("d"), range(l.pos(13), l.pos(14))));
  EXPECT_TRUE(interferes(l.tensor("b"), l.tensor("d")));
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

TEST(Liveness, SampledIterationsStillSeeAnAccumulationThatOnlyTheFirstStarts) {
  // start@first in a loop of its own: only iteration 0 starts the group, every later one reads acc before writing
  // it. The views do not move, so the walk samples iterations 0, 1 and 999: iteration 1 is the carried one.
  Live l(matmulDecls(8, 64, "k") +
         "dma lt, L\n"                                    // 10
         "dma rt, R\n"                                    // 11
         "loop k = 0, 1000, 1 {\n"                        // 12
         "  matmul acc, lt, rt, start@first, stop@last\n"  // 13
         "  copy res, acc\n"                              // 14
         "}\n"
         "dma O, res\n");                                 // 16
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

// Hand-written ranges narrowed to iterations of loop 0 (and 1): they interfere only where their iterations do not
// exclude each other.
TEST(LiveIterations, RangesOnOppositeIterationsOfOneLoopDoNotInterfereThere) {
  LiveRange last_only = range(1, 10);
  last_only.only = {{5, 10, 0, true}};  // 5..10 on the last iteration of loop 0 only
  LiveRange others = range(5, 12);
  others.only = {{5, 10, 0, false}};  // 5..10 on every iteration but the last
  EXPECT_FALSE(interferes(last_only, others));
  EXPECT_FALSE(interferes(others, last_only));
  LiveRange earlier = range(4, 10);  // also at 4, where last_only is live on every iteration
  earlier.only = {{5, 10, 0, false}};
  EXPECT_TRUE(interferes(last_only, earlier));
  LiveRange other_loop = range(5, 12);
  other_loop.only = {{5, 10, 1, false}};
  EXPECT_TRUE(interferes(last_only, other_loop));
  LiveRange same = range(5, 12);
  same.only = {{5, 10, 0, true}};  // both on the last iteration
  EXPECT_TRUE(interferes(last_only, same));
  EXPECT_TRUE(interferes(last_only, range(7, 7)));  // no narrowing: every iteration
  // Adding positions makes them live on every iteration: the part is cut around them.
  LiveRange cut = last_only;
  cut.add({7, 7});
  EXPECT_EQ(cut.only, (std::vector<IterationPart>{{5, 6, 0, true}, {8, 10, 0, true}}));
  EXPECT_TRUE(interferes(cut, others));
  EXPECT_EQ(cut.partAt(7), nullptr);
  ASSERT_NE(cut.partAt(9), nullptr);
  EXPECT_EQ(cut.partAt(9)->first, 8u);
}

TEST(LiveIterations, LiveSumTakesTheLargerSideOfEachLoop) {
  LiveRange every = range(0, 9);
  LiveRange last_only = range(2, 9);
  last_only.only = {{4, 9, 0, true}};
  LiveRange others = range(3, 8);
  others.only = {{4, 8, 0, false}};
  LiveRange inner = range(5, 6);
  inner.only = {{5, 6, 1, false}};
  LiveSum sum(10);
  sum.add(every, 1);
  sum.add(last_only, 10);
  sum.add(others, 100);
  sum.add(inner, 1000);
  // At 3 all but inner, on every iteration: 111. At 5 and 6: every, max(10, 100) for loop 0, and inner's 1000 for
  // loop 1: 1101.
  EXPECT_EQ(sum.max(), 1101);
  LiveSum without_inner(10);
  without_inner.add(every, 1);
  without_inner.add(last_only, 10);
  without_inner.add(others, 100);
  EXPECT_EQ(without_inner.max(), 111);  // at 3: 1 + 10 + 100; at 4..8 only 1 + 100
}

// The max-live of tensors a, b, c and d at 256 bytes each: with the ranges' iterations (LiveSum) and over their
// segments alone.
struct MaxLive {
  int64_t with_iterations = 0;
  int64_t segments_only = 0;
};
MaxLive maxLiveOfFour256(const Live& l) {
  LiveSum sum(l.live.order.positions.size());
  std::vector<int64_t> delta(l.live.order.positions.size() + 1, 0);
  for (const char* t : {"a", "b", "c", "d"}) {
    sum.add(l.tensor(t), 256);
    addOverSegments(delta, l.tensor(t), 256);
  }
  int64_t now = 0, peak = 0;
  for (int64_t d : delta) peak = std::max(peak, now += d);
  return {sum.max(), peak};
}

// A value written whole on every iteration and read after the loop (b), and one read in the loop and last mentioned
// there (a): after b's write only the last iteration holds b, after a's read every iteration but the last holds a.
TEST(LiveIterations, LastIterationValueAndAValueLastReadInTheLoop) {
  Live l(std::string(kDecls) +
         "dma a, A\n"            // 11
         "loop i = 0, 4, 1 {\n"  // 12
         "  copy b, a\n"         // 13: b replaced whole on every iteration
         "  copy c, a\n"         // 14: a's last mention
         "  copy d, c\n"         // 15: d never read: a dead store
         "}\n"
         "dma O, b\n");          // 17
  const LiveRange a = l.tensor("a"), b = l.tensor("b");
  EXPECT_EQ(a.first, l.pos(11));
  EXPECT_EQ(a.last, l.end(12));  // the next iteration reads it
  EXPECT_EQ(a.only, (std::vector<IterationPart>{{l.pos(14) + 1, l.end(12), 0, false}}));
  EXPECT_EQ(b.first, l.pos(13));
  EXPECT_EQ(b.last, l.pos(17));
  EXPECT_EQ(b.only, (std::vector<IterationPart>{{l.pos(13) + 1, l.end(12), 0, true}}));
  EXPECT_TRUE(l.tensor("c").only.empty());
  // Both are live at b's write on every iteration (a is read at 14 after it): they interfere.
  EXPECT_TRUE(interferes(a, b));
  // Live at once: at 15, c and d on every iteration, and one of a (every iteration but the last) and b (the last);
  // at 14, a, c and b (the last iteration). Three tensors of 256 bytes per partition, where the segments alone hold
  // four at 15.
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 3 * 256);
  EXPECT_EQ(m.segments_only, 4 * 256);
}

// The same two values inside two nested loops: b, replaced whole on every iteration of both and read after the outer
// one, holds data after its write only on the last iteration of both (on the inner loop's last iteration of an
// earlier outer iteration it is rewritten before any read); a, read on every iteration, is live after its last read
// in the body unless both loops are on their last iteration. Never live together there, so at 16 the live set is
// c, d and one of a and b: three tensors, where a part naming one loop only (or the segments alone) holds four.
TEST(LiveIterations, ValuesOnTheLastIterationOfTwoNestedLoopsAndTheirComplement) {
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "loop j = 0, 2, 1 {\n"    // 12
         "  loop i = 0, 4, 1 {\n"  // 13
         "    copy b, a\n"         // 14: b replaced whole on every iteration of both loops
         "    copy c, a\n"         // 15: a's last mention
         "    copy d, c\n"         // 16: d never read
         "  }\n"
         "}\n"
         "dma O, b\n");            // 19
  EXPECT_TRUE(interferes(l.tensor("a"), l.tensor("b")));  // a is read at 15, after b's write at 14
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 3 * 256);
  EXPECT_EQ(m.segments_only, 4 * 256);
}

// Narrowed to the loop inside the common one: b is replaced whole on every iteration of i and read after i in j's
// body; j, around both, does not carry it (each of j's iterations writes it before reading it).
TEST(LiveIterations, AnInnerLoopsValueReadInTheOuterBodyIsLiveAfterItsWriteOnTheLastIteration) {
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "loop j = 0, 2, 1 {\n"    // 12
         "  loop i = 0, 4, 1 {\n"  // 13
         "    tt b, a, a, add\n"   // 14
         "    copy c, a\n"         // 15
         "  }\n"
         "  tt a, b, a, add\n"     // 17
         "}\n"
         "dma O, a\n");            // 19
  const LiveRange b = l.tensor("b");
  EXPECT_EQ(b.first, l.pos(14));
  EXPECT_EQ(b.last, l.pos(17));
  EXPECT_EQ(b.segmentCount(), 1u);
  EXPECT_EQ(b.only, (std::vector<IterationPart>{{l.pos(15), l.end(13), 1, true}}));  // loop i: the second in order
  EXPECT_TRUE(l.tensor("a").only.empty());  // read on every iteration of both loops, last after them
}

// A loop of one iteration between the loops and the mentions: it runs its body once per iteration of j, so b, replaced
// whole on every iteration of j and last read in the loops at 15, holds data after that read on j's last iteration
// only, inside the one-iteration loop as after it; a, last mentioned at 14, is live after it on every iteration of j
// but the last. At 16 the live set is c, d and one of a and b: three tensors, where the segments alone hold four.
TEST(LiveIterations, ALoopOfOneIterationAroundTheMentionsDoesNotHideTheirLastRun) {
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "loop j = 0, 4, 1 {\n"    // 12
         "  loop i = 0, 1, 1 {\n"  // 13: one iteration
         "    copy b, a\n"         // 14: a's last mention; b replaced whole on every iteration of j
         "    copy c, b\n"         // 15: b's last read in the loops
         "    copy d, c\n"         // 16: d never read
         "  }\n"
         "}\n"
         "dma O, b\n");            // 19
  EXPECT_EQ(l.tensor("a").only, (std::vector<IterationPart>{{l.pos(14) + 1, l.end(12), 0, false}}));
  EXPECT_EQ(l.tensor("b").only, (std::vector<IterationPart>{{l.pos(15) + 1, l.end(12), 0, true}}));
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 3 * 256);
  EXPECT_EQ(m.segments_only, 4 * 256);
}

// b is replaced whole at 13 on every iteration and read after the loop; its first 8 columns are rewritten at 16 before
// the loop reads them at 17. On an iteration other than the last, nothing reads what 13 wrote (the next iteration
// replaces it first), so b holds data between 13 and 16 on the last iteration only, as after 17. At 15 the live set
// is c, d and one of a (every iteration but the last: read again at 14) and b: three tensors, where b live there on
// every iteration would make four.
TEST(LiveIterations, AValueRewrittenBeforeTheLoopReadsItIsLiveOnTheLastIterationOnlyUntilThen) {
  Live l(std::string(kDecls) +
         "dma a, A\n"                     // 11
         "loop i = 0, 4, 1 {\n"           // 12
         "  copy b, a\n"                  // 13: b replaced whole on every iteration
         "  copy c, a\n"                  // 14: a's last mention
         "  copy d, c\n"                  // 15
         "  copy b[:, 0:8], d[:, 0:8]\n"  // 16: b's first 8 columns rewritten
         "  copy d[:, 0:8], b[:, 0:8]\n"  // 17: reads only what 16 wrote
         "}\n"
         "dma O, b\n");                   // 19
  EXPECT_EQ(l.tensor("b").only, (std::vector<IterationPart>{{l.pos(13) + 1, l.pos(16) - 1, 0, true},
                                                            {l.pos(17) + 1, l.end(12), 0, true}}));
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 3 * 256);
  EXPECT_EQ(m.segments_only, 4 * 256);
}

// With the order, a loop of one iteration in a chain is on its last iteration whenever it runs: a part live where i
// or j is not on its last iteration is live where j is not, which excludes a part live on j's last iteration only.
TEST(LiveIterations, LiveSumCountsALoopOfOneIterationAsOnItsLast) {
  Live l(std::string(kDecls) +
         "loop j = 0, 4, 1 {\n"    // 11
         "  loop i = 0, 1, 1 {\n"  // 12: one iteration
         "    memset a, 1\n"       // 13
         "  }\n"
         "}\n");
  const uint32_t at = l.pos(13);
  LiveRange not_last = range(at, at);
  not_last.only = {{at, at, 1, false, 0}};  // the chain j, i: some one of them not on its last iteration
  LiveRange last = range(at, at);
  last.only = {{at, at, 0, true}};  // j's last iteration only
  LiveSum with_order(l.live.order.positions.size(), &l.live.order);
  with_order.add(not_last, 10);
  with_order.add(last, 100);
  EXPECT_EQ(with_order.max(), 100);
  LiveSum without_order(l.live.order.positions.size());  // each chain a loop of its own: both may hold
  without_order.add(not_last, 10);
  without_order.add(last, 100);
  EXPECT_EQ(without_order.max(), 110);
}

// A read that sees only what the instruction just before it wrote: the pair is live at its two positions only. b's
// value from 13 is last read at 14; in the loop each iteration writes one element of b (at a column the views cannot
// tell, s) and reads it straight back. Nothing of b lives from one iteration to the next, nor in between: at 18 only
// c and d are live, where b live over the loop would make three.
TEST(Liveness, AReadOfWhatTheInstructionBeforeWroteIsLiveThereOnly) {
  Live l(std::string(kDecls) +
         "li s, 3\n"                      // 11
         "dma a, A\n"                     // 12
         "copy b, a\n"                    // 13
         "copy c, b\n"                    // 14: b's last read of what 13 wrote
         "loop i = 0, 4, 1 {\n"           // 15
         "  reg_store b[0:1, s:1], i\n"   // 16
         "  reg_load j, b[0:1, s:1]\n"    // 17: reads only what 16 wrote
         "  copy d, c\n"                  // 18
         "  copy c, d\n"                  // 19
         "}\n"
         "dma O, c\n");                   // 21
  const LiveRange b = l.tensor("b");
  ASSERT_EQ(b.segmentCount(), 2u);
  EXPECT_EQ(b.segment(0), (Segment{l.pos(13), l.pos(14)}));
  EXPECT_EQ(b.segment(1), (Segment{l.pos(16), l.pos(17)}));
  EXPECT_TRUE(b.only.empty());
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 2 * 256);
  EXPECT_EQ(m.segments_only, 2 * 256);
}

// A loop of one iteration (i) between a value's last read and the end of the loop that carries it (j): a is read
// after its last mention on every iteration of j but the last, and i, always on its last iteration, changes nothing.
// b is replaced whole on every iteration of j and read after it: after its write only j's last iteration holds it.
// Stepping through: on j = 0, a is live from the load through its read at 15 and on (j = 1 reads it), b only at its
// write (j = 1 replaces it unread), d from 16 to its write's step only; on j = 1, a up to 15, b from 13 on, d from 16
// on. At 15: a and b on j = 1; at 16: a and d on j = 0, b and d on j = 1; at 19: b and d. Never more than two at a
// step. A part that named i as well would let a (every iteration of i and j but the last) and b (the last of j) count
// together at 16: three.
TEST(LiveIterations, ALoopOfOneIterationDoesNotSplitTheIterationsOfTheLoopAroundIt) {
  Live l(std::string(kDecls) +
         "dma a, A\n"              // 11
         "loop j = 0, 2, 1 {\n"    // 12
         "  copy b, a\n"           // 13: b replaced whole on every iteration
         "  loop i = 0, 1, 1 {\n"  // 14: one iteration
         "    dma O, a\n"          // 15: a's last mention
         "    memset d, 1\n"       // 16
         "  }\n"
         "}\n"
         "tt b, b, d, add\n"       // 19
         "dma O, b\n");            // 20
  for (const IterationPart& q : l.tensor("a").only) {
    EXPECT_EQ(q.loop, 0) << "the part at " << q.first << " names loop j alone";
    EXPECT_EQ(q.outer, -1);
  }
  EXPECT_EQ(maxLiveOfFour256(l).with_iterations, 2 * 256);
}

// b is replaced whole on every iteration of i and read after the loop: after its write only the last iteration (i = 3)
// holds it, and the if's body runs at i = 1 only, so b is live nowhere in it. d, written there and read after the
// loop, is live over the whole loop (i = 0 and 1 see nothing of it yet, but one position stands for every
// iteration); a is read after the loop too. Stepping through: at 15 and 16 (i = 1) a, d and c (written at 15, read at
// 16); at 13 on i = 3, a, b and d; after the loop, a, b and d. Three tensors at most; b counted in the if's body too
// would make four.
TEST(LiveIterations, AnIfThatNeverRunsOnTheLastIterationHoldsNoLastIterationValue) {
  Live l(std::string(kDecls) +
         "dma a, A\n"             // 11
         "loop i = 0, 4, 1 {\n"   // 12
         "  copy b, a\n"          // 13: b replaced whole on every iteration
         "  if i == 1 {\n"        // 14
         "    copy c, a\n"        // 15
         "    copy d, c\n"        // 16
         "  }\n"
         "}\n"
         "tt b, b, d, add\n"      // 19
         "tt b, b, a, add\n"      // 20
         "dma O, b\n");           // 21
  const LiveRange b = l.tensor("b");
  EXPECT_TRUE(b.contains(l.pos(14)));  // the if itself runs on every iteration
  EXPECT_FALSE(b.contains(l.pos(15)));
  EXPECT_FALSE(b.contains(l.pos(16)));
  EXPECT_TRUE(b.contains(l.end(12)));
  EXPECT_EQ(maxLiveOfFour256(l).with_iterations, 3 * 256);
}

// a is last read in the loop (13) and read again by the next iteration: after 13 it is live on every iteration but
// the last. The if's body runs at i = 3 only, so a is live nowhere in it. b is written on every iteration and read
// in the if (a dead store on i = 0..2), c lives from 15 to 16, d from its write (16) to the dma. Stepping through: at
// 13, a and b; at 14, a on i < 3, b on i = 3; at 15, b and c; at 16, c and d; then d. Two tensors at most, by the
// ranges too (b over 13..15 on every iteration); a counted in the if's body as well would make three (at 15).
TEST(LiveIterations, AnIfThatRunsOnTheLastIterationOnlyHoldsNoValueOfTheOtherIterations) {
  Live l(std::string(kDecls) +
         "dma a, A\n"             // 11
         "loop i = 0, 4, 1 {\n"   // 12
         "  copy b, a\n"          // 13: a's last mention
         "  if i == 3 {\n"        // 14
         "    copy c, b\n"        // 15
         "    copy d, c\n"        // 16
         "  }\n"
         "}\n"
         "dma O, d\n");           // 19
  const LiveRange a = l.tensor("a");
  EXPECT_TRUE(a.contains(l.pos(14)));  // the if itself runs on every iteration
  EXPECT_FALSE(a.contains(l.pos(15)));
  EXPECT_FALSE(a.contains(l.pos(16)));
  EXPECT_TRUE(a.contains(l.end(12)));
  const MaxLive m = maxLiveOfFour256(l);
  EXPECT_EQ(m.with_iterations, 2 * 256);
  EXPECT_EQ(m.segments_only, 2 * 256);
}

INSTANTIATE_TEST_SUITE_P(LiveSegments, LiveRangeOf, ::testing::ValuesIn(std::vector<RangeCase>{
    {.name = "APartialWriteExtendsTheValueItLandsIn",
     .body = "dma a, A\n"                  // 11
             "copy b, a\n"                 // 12
             "copy c, b\n"                 // 13
             "memset b[:, 0:32], 1\n"      // 14: half of b: the rest of the old value survives
             "tt d, b, c, add\n"           // 15
             "dma O, d\n",                 // 16
     .expect = {{.value = "b", .segments = {{P(12), P(15)}}}}},
    {.name = "AnInPlaceUpdateKeepsOneValue",
     .body = "dma a, A\n"          // 11
             "copy b, a\n"         // 12
             "tt b, b, a, add\n"   // 13
             "dma O, b\n",         // 14
     .expect = {{.value = "b", .segments = {{P(12), P(14)}}, .value_starts = std::vector<Anchor>{}}}},
    // Two values of one tensor within each iteration of a loop: every read is covered by a write of the same iteration,
    // so the second full write starts a value there too.
    {.name = "ValuesWithinOneIterationOfALoop",
     .body = loadLoopStore("  copy b, a\n"          // 13
                           "  copy c, b\n"          // 14
                           "  copy d, c\n"          // 15
                           "  memset b, 2\n"        // 16
                           "  tt c, b, d, add\n"),  // 17; `dma O, c` is line 19
     .expect = {{.value = "b", .segments = {{P(13), P(14)}, {P(16), P(17)}}}}},
    // A value read at the top of the body before the body writes it again is carried around the back edge: no new
    // value starts there.
    {.name = "NoNewValueWhereTheLoopCarriesTheOldOne",
     .body = "dma a, A\n"            // 11
             "copy b, a\n"           // 12
             "loop i = 0, 4, 1 {\n"  // 13
             "  copy c, b\n"         // 14
             "  memset b, 2\n"       // 15
             "  tt b, b, c, add\n"   // 16
             "}\n"
             "dma O, b\n",           // 18
     .expect = {{.value = "b", .segments = {{P(12), P(18)}}}}},
    // The ifs and register-bounded loops below name only their loops' registers: whether their bodies run is decided by
    // counting through the loops (i = 0..3).
    // i >= 0 holds for every i: the memset (line 15) replaces a on every iteration, after the first value's last
    // read (line 12).
    {.name = "AWholeWriteInAnIfThatAlwaysHoldsStartsAValueAsUnconditionalCodeDoes",
     .body = guardedWholeWrite("if i >= 0"),
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(15), P(18)}}}}},
    // The memset runs at i = 2 only; nothing in the loop reads a, so after the loop a holds what the memset wrote.
    // Before the memset's run the old value is dead; after it, i = 3 runs the whole body: the new value is live from
    // the loop header (each iteration's step), before the memset on the last iteration only (the if, line 14).
    {.name = "AWholeWriteThatRunsOnSomeIterationStartsAValueAtItsLoop",
     .body = guardedWholeWrite("if i == 2"),
     .expect = {{.value = "a",
                 .segments = {{P(11), P(12)}, {P(13), P(18)}},
                 .only = std::vector<ExpectedPart>{{P(13), P(14), 13, true}}}}},
    // The memset runs at i = 0 and 1: i = 2 and 3 run before it with the value live, so nothing is narrowed.
    {.name = "AWholeWriteWhoseLastRunIsTwoIterationsBeforeTheEndIsLiveOverTheLoop",
     .body = guardedWholeWrite("if i <= 1"),
     .expect = {{.value = "a",
                 .segments = {{P(11), P(12)}, {P(13), P(18)}},
                 .only = std::vector<ExpectedPart>{}}}},
    // The memset runs at i = 1 and 3: its last run is on the last iteration, and nothing runs before it there after
    // it: the value starts at the memset. What the run at i = 1 writes is replaced at i = 3 unread: after the memset
    // (the memset of c on 17, the loop's end) only the last iteration holds a.
    {.name = "AWholeWriteWhoseLastRunIsOnTheLastIterationStartsThere",
     .body = "dma a, A\n"               // 11
             "copy b, a\n"              // 12
             "loop i = 0, 4, 1 {\n"     // 13
             "  if i % 2 == 1 {\n"      // 14
             "    memset a, 1\n"        // 15
             "  }\n"
             "  memset c, 2\n"          // 17
             "}\n"
             "dma O, a\n",              // 19
     .expect = {{.value = "a",
                 .segments = {{P(11), P(12)}, {P(15), P(19)}},
                 .only = std::vector<ExpectedPart>{{P(15), E(13), 13, true}}}}},
    // j runs for i = 1..3, the memset's last run at i = 3, j = 2: no iteration of j or i begins after it, though the
    // memset does not run on every iteration of i.
    {.name = "AWholeWriteInARegisterBoundedLoopThatRunsStartsAValue",
     .body = guardedWholeWrite("loop j = 0, i, 1"),
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(15), P(18)}}}}},
    // The memset runs at (i, j) = (2, 1) and (3, 0): after its last run j = 1 begins and runs the if (line 15) with
    // the value live; i = 0 and 1 do not write a, so nothing narrows the loop.
    {.name = "AWholeWriteBeforeAnotherIterationOfAnInnerLoopIsLiveOverTheLoop",
     .body = "dma a, A\n"               // 11
             "copy b, a\n"              // 12
             "loop i = 0, 4, 1 {\n"     // 13
             "  loop j = 0, 2, 1 {\n"   // 14
             "    if i + j == 3 {\n"    // 15
             "      memset a, 1\n"      // 16
             "    }\n"
             "  }\n"
             "}\n"
             "dma O, a\n",              // 20
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(13), P(20)}}, .only = std::vector<ExpectedPart>{}}}},
    // a's first value is last read at 12, which updates it in place; the partial memset at 14 is never read (the
    // memset at 17, whose last run is on the last iteration, replaces a before the read at 20): a dead store.
    {.name = "AWriteAfterAnUpdateInPlaceThatNothingReadsIsADeadStore",
     .body = "dma a, A\n"               // 11
             "ts a, a, 1, add\n"        // 12
             "memset b, 1\n"            // 13
             "memset a[:, 0:32], 2\n"   // 14
             "loop i = 0, 2, 1 {\n"     // 15
             "  if i == 1 {\n"          // 16
             "    memset a, 3\n"        // 17
             "  }\n"
             "}\n"
             "tt b, b, a, add\n"        // 20
             "dma O, b\n",              // 21
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(14), P(14)}, {P(17), P(20)}}}}},
    // The loop on 14 writes columns 0:48 of a through i; the loop on 18 reads columns 8:16 and 24:16 through j, all
    // written by the first loop: the partial write on 15 starts a value (from its loop's header to the end of the
    // reading loop), and a is dead between its first value's last read (12) and that loop.
    {.name = "APartialWriteStartsAValueWhenALaterLoopReadsOnlyWhatItWrote",
     .body = "dma a, A\n"                             // 11
             "copy b, a\n"                            // 12
             "memset d, 0\n"                          // 13
             "loop i = 0, 3, 1 {\n"                   // 14
             "  memset a[:, i*16:16], 1\n"            // 15
             "}\n"
             "memset c, 0\n"                          // 17
             "loop j = 0, 2, 1 {\n"                   // 18
             "  copy c[:, j*16:16], a[:, j*16+8:16]\n"  // 19
             "}\n"
             "tt c, c, d, add\n"                      // 21
             "dma O, c\n",                            // 22
     .expect = {{.value = "a",
                 .segments = {{P(11), P(12)}, {P(14), E(18)}},
                 .value_starts = std::vector<Anchor>{P(15)}}}},
    // i == 7 never holds: the dma after the loop reads what the first dma wrote.
    {.name = "AConditionalWholeWriteThatNeverRunsKeepsOneValue",
     .body = guardedWholeWrite("if i == 7"),
     .expect = {{.value = "a", .segments = {{P(11), P(18)}}}}},
    // The memset runs at i = 2, but iterations 0 to 2 read the first value inside the loop.
    {.name = "AConditionalWholeWriteReadAroundKeepsOneValue",
     .body = loadLoopStore("  copy b, a\n"      // 13
                           "  if i == 2 {\n"    // 14
                           "    memset a, 1\n"  // 15
                           "  }\n", 4, "a"),    // `dma O, a` is line 18
     .expect = {{.value = "a", .segments = {{P(11), P(18)}}}}},
    // Each iteration reads what the previous one's memset wrote (the dma's on the first), then rewrites a whole:
    // between the copy to b and the memset, a holds nothing anyone reads.
    {.name = "ACarriedValueIsDeadBetweenItsLastReadAndTheWholeWriteOfAnIteration",
     .body = loadLoopStore(readThenRewrite("memset a, 1"), 4, "b"),
     .expect = {{.value = "a", .segments = {{P(11), P(13)}, {P(15), E(12)}}}}},
    // The same read after the loop too: the anchors span the loop, the gap is left out.
    {.name = "AValueReadAfterTheLoopIsDeadBetweenItsReadAndTheWholeWrite",
     .body = loadLoopStore(readThenRewrite("memset a, 1"), 4, "a"),
     .expect = {{.value = "a", .segments = {{P(11), P(13)}, {P(15), P(18)}}}}},
    // The same with the value's first mention inside the loop (a partial write: the loop carries the rest).
    {.name = "ACarriedValueFirstWrittenInTheLoopHasTheGapToo",
     .body = "loop i = 0, 4, 1 {\n"     // 11
             "  memset a[:, 0:8], 3\n"  // 12
             "  copy b, a\n"            // 13: elements 8 on are the previous iteration's
             "  memset c, 2\n"          // 14
             "  memset a, 1\n"          // 15
             "  copy d, a\n"            // 16
             "}\n"
             "dma O, d\n",              // 18
     .expect = {{.value = "a", .segments = {{P(11), P(13)}, {P(15), E(11)}}}}},
    // A rewrite that reads a (an in-place update) or that only some iterations run leaves no gap.
    {.name = "AnInPlaceRewriteLeavesNoGap",
     .body = loadLoopStore(readThenRewrite("tt a, a, c, add"), 4, "b"),
     .expect = {{.value = "a", .segments = {{P(11), E(12)}}}}},
    {.name = "ARewriteOnSomeIterationsLeavesNoGap",
     .body = loadLoopStore(readThenRewrite("if i >= 2 {\n    memset a, 1\n  }"), 4, "b"),
     .expect = {{.value = "a", .segments = {{P(11), E(12)}}}}},
    // The two memsets together write every element of b before anything reads it: what the loop reads is theirs.
    {.name = "ATensorReplacedPiecewiseStartsAValueAtTheFirstPiece",
     .body = halvesThenLoop("32:32"),
     .expect = {{.value = "b", .segments = {{P(12), P(13)}, {P(15), E(18)}}, .value_starts = std::vector<Anchor>{P(15)}}}},
    // One element short: element 63 keeps the first value's, and the loop reads it.
    {.name = "ATensorReplacedPiecewiseButOneElementKeepsOneValue",
     .body = halvesThenLoop("32:31"),
     .expect = {{.value = "b", .segments = {{P(12), E(18)}}, .value_starts = std::vector<Anchor>{}}}},
    // The loop's four iterations write a quarter each and read nothing of a: after it, a holds only what it wrote. The
    // new value is live from the header (one position stands for every iteration).
    {.name = "ALoopThatWritesEveryElementPiecewiseStartsAValueAtItsHeader",
     .body = quartersAfterARead(4, ""),
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(13), P(16)}}, .value_starts = std::vector<Anchor>{P(14)}}}},
    // Three quarters only: the last quarter is the first value's, read after the loop.
    {.name = "ALoopThatWritesThreeQuartersKeepsOneValue",
     .body = quartersAfterARead(3, ""),
     .expect = {{.value = "a", .segments = {{P(11), P(16)}}, .value_starts = std::vector<Anchor>{}}}},
    // Every element written, and the loop reads back only the quarter its iteration has just written: what it reads is
    // never older than the loop, so the value before it dies at its last read (12).
    {.name = "ALoopThatReadsOnlyWhatItWroteStartsAValueAtItsHeader",
     .body = quartersAfterARead(4, "  copy c[:, i*16:16], a[:, i*16:16]\n"),
     .expect = {{.value = "a", .segments = {{P(11), P(12)}, {P(13), P(17)}}, .value_starts = std::vector<Anchor>{P(14)}}}},
    // Every element written, but the loop also reads a quarter before the iteration that writes it: one value.
    {.name = "ALoopThatReadsWhatItHasNotWrittenYetKeepsOneValue",
     .body = quartersAfterARead(4, "  copy c[:, 0:16], a[:, 48:16]\n"),
     .expect = {{.value = "a", .segments = {{P(11), P(17)}}, .value_starts = std::vector<Anchor>{}}}},
}), caseName);

}  // namespace
}  // namespace allocsim
