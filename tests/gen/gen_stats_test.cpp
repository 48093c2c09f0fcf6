#include "gen/stats.h"

#include <gtest/gtest.h>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "tests/common/program_text.h"

namespace allocsim {
namespace {

uint64_t feature(const Program& p, const std::string& name) {
  for (const ShapeFeature& f : measureShape(p))
    if (f.name == name) return f.count;
  ADD_FAILURE() << "no feature '" << name << "'";
  return 0;
}

// A K-loop matmul with register-indexed, partition-indexed and strided views, a 64-bit register and a
// partial-partition tensor: every counted shape at least once, with counts worked out by hand.
const char kShapes[] = R"(arch tiny
dram A [8, 64] f32 input
dram W [16, 8] bf16 input
dram C [8, 64] f32 output
sbuf a [8, 64] f32
sbuf w [4, 8] bf16
psum acc [8, 64] f32
sbuf c [8, 64] f32
reg k
reg big 64

li big, 5
dma a, A
loop k = 0, 4, 1 {
  dma w[:, 0:4], W[k*4:4, 0:4]
  dma w[:, 4:4], W[k*4:4, 4:4]
  matmul acc, w[:, 0:8], a[0:4, :], start@first, stop@last
}
copy c[:, 0:2, 32:2], acc[:, 0:2, 32:2]
copy c[:, 2:30, 32:2], acc[:, 2:30, 32:2]
dma C, c
)";

TEST(GenStats, CountsEveryShapeOfAHandWrittenProgram) {
  Program p = parseProgram(kShapes);
  EXPECT_EQ(feature(p, "loop depth 1"), 1u);
  EXPECT_EQ(feature(p, "loop depth 0"), 0u);
  EXPECT_EQ(feature(p, "loops"), 1u);
  EXPECT_EQ(feature(p, "64-bit registers"), 1u);
  EXPECT_EQ(feature(p, "accumulation groups (matmul start)"), 1u);
  EXPECT_EQ(feature(p, "K-loop groups (start@first / stop@last)"), 1u);
  EXPECT_EQ(feature(p, "accumulating matmuls (without start)"), 1u);
  EXPECT_EQ(feature(p, "register-indexed views"), 2u);
  EXPECT_EQ(feature(p, "partition-indexed DRAM views"), 2u);
  EXPECT_EQ(feature(p, "second-dimension views"), 4u);
  EXPECT_EQ(feature(p, "partial-partition tensors"), 1u);
  EXPECT_EQ(feature(p, "op dma"), 4u);
  EXPECT_EQ(feature(p, "op matmul"), 1u);
  EXPECT_EQ(feature(p, "op copy"), 2u);
  EXPECT_EQ(feature(p, "op li"), 1u);
  EXPECT_EQ(feature(p, "op tt"), 0u);
  EXPECT_EQ(feature(p, "dtype f32 tensors"), 5u);
  EXPECT_EQ(feature(p, "dtype bf16 tensors"), 2u);
}

TEST(GenStats, PeakDemandFollowsLiveRangesAndLoops) {
  Program p = parseProgram(kShapes);
  PeakDemand d = peakDemand(p);
  // In the loop: a (8 x 256 B, live from before the loop) and w (4 x 16 B); after it only c in SBUF.
  EXPECT_EQ(d.sbuf_bytes, 8u * 256 + 4u * 16);
  EXPECT_EQ(d.psum_banks, 1u);  // 256 bytes per partition = one tiny bank
  // big is live only at its definition; k is live over its loop.
  EXPECT_EQ(d.register_lanes, 2u);
  EXPECT_EQ(feature(p, "SBUF peak live bytes > capacity"), 0u);
  EXPECT_EQ(feature(p, "register peak live lanes > sp-registers"), 0u);
}

TEST(GenStats, ValueCarriedAroundALoopStaysLiveForTheWholeLoop) {
  // x is read before the loop and at its start; y is written at the end of the loop body. Without the
  // loop extension they would never be live together.
  Program p = parseProgram(R"(arch tiny
dram X [8, 512] u32 input
dram Y [8, 512] u32 output
sbuf x [8, 512] u32
sbuf y [8, 512] u32
sbuf t [8, 512] u32
reg i

dma x, X
loop i = 0, 2, 1 {
  copy t, x
  copy y, t
}
dma Y, y
)");
  EXPECT_EQ(peakDemand(p).sbuf_bytes, 3u * 8 * 2048);
  EXPECT_EQ(feature(p, "SBUF peak live bytes > capacity"), 1u);
}

TEST(GenStats, TallyCountsProgramsContainingEachFeature) {
  ShapeTally tally;
  tally.add(parseProgram(kShapes));
  tally.add(parseProgram("arch tiny\ndram A [8, 4] u32 output\nsbuf a [8, 4] u32\n\nmemset a, 0\ndma A, a\n"));
  EXPECT_EQ(tally.programs(), 2u);
  EXPECT_EQ(tally.containing("op dma"), 2u);
  EXPECT_EQ(tally.containing("op memset"), 1u);
  EXPECT_EQ(tally.containing("loop depth 0"), 1u);
  EXPECT_EQ(tally.containing("no such feature"), 0u);
  std::string table = tally.table();
  // op copy: 2 in the first program, none in the second.
  EXPECT_NE(table.find("\nop copy "), std::string::npos) << table;
  EXPECT_NE(table.find("     50.0%      1.00\n"), std::string::npos) << table;
  EXPECT_NE(table.find("programs: 2\n"), std::string::npos);
}

TEST(GenStats, JsonCarriesTheSameFiguresAsTheTable) {
  ShapeTally tally;
  tally.add(parseProgram(kShapes));
  tally.add(parseProgram("arch tiny\ndram A [8, 4] u32 output\nsbuf a [8, 4] u32\n\nmemset a, 0\ndma A, a\n"));
  std::string json = tally.json();
  EXPECT_EQ(json.rfind("{\"programs\": 2, \"features\": [", 0), 0u) << json;
  // op copy: 2 in one program of two -> 50%, total 2, mean 1; op memset: one program, one each.
  EXPECT_NE(json.find("{\"name\": \"op copy\", \"flag\": false, \"programs\": 1, \"percent\": 50.0000, "
                      "\"total\": 2, \"mean\": 1.000000}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\": \"loop depth 0\", \"flag\": true, \"programs\": 1, \"percent\": 50.0000}"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.substr(json.size() - 3), "]}\n");
}

TEST(GenStats, GeneratorReachesEveryShapeOverAFewHundredSeeds) {
  ShapeTally tally;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    SeededChoices c(seed);
    tally.add(generateProgram(c, GenOptions{*archPreset("tiny"), 30, 150}));
  }
  for (const char* name : {"loop depth 1", "loop depth 2", "64-bit registers", "accumulation groups (matmul start)",
                           "K-loop groups (start@first / stop@last)", "register-indexed views",
                           "partition-indexed DRAM views", "partial-partition tensors", "second-dimension views",
                           "SBUF peak live bytes > capacity", "op reg_load", "op reg_store", "op reduce",
                           "dtype bf16 tensors", "tile arrays", "tile views q{t}", "register-indexed tile views",
                           "multi-register index views", "act exp", "act silu", "act gelu", "act sqrt", "act rsqrt",
                           "act reciprocal", "act log", "act sin", "act cos", "act erf", "act softplus",
                           "act gelu_apprx_tanh", "act sign", "act arctan", "act mish", "div (tt, ts)", "converting dma (f32 <-> bf16)",
                           "scale or bias on act", "op affine_select", "affine_select with a register offset c",
                           "op iota", "op transpose", "op broadcast", "op tt_scan", "op bn_stats", "op bn_aggr"})
    EXPECT_GT(tally.containing(name), 0u) << name << "\n" << tally.table();
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// Each loop-edge and boundary shape once, counted by hand:
// - x is carried around the back edge (read by the first view, written by the mov); y and the loop register are not;
// - a is read at the top of the first loop's body and rewritten below it: a carried tensor;
// - w is first written in the second loop and read after it;
// - v is written over 0:8, then whole, in the second loop's body;
// - d's first write reads b at b's last use (exact boundary); e's first write reads c, which the next instruction
//   reads again (one short);
// - two PSUM tensors of 3 (the last partly used) and 4 banks (declared only: the bank counts are the tensors' own).
const char kEdges[] = R"(arch tiny
dram A [8, 64] f32 input
dram O [8, 16] f32 output
dram P [8, 16] f32 output
dram Q [8, 16] f32 output
sbuf a [8, 64] f32
sbuf t [8, 16] f32
sbuf w [8, 16] f32
sbuf v [8, 16] f32
sbuf b [8, 16] f32
sbuf c [8, 16] f32
sbuf d [8, 16] f32
sbuf e [8, 16] f32
psum p3 [8, 180] f32
psum p4 [8, 256] f32
reg i
reg x
reg y

dma a, A
li x, 0
loop i = 0, 4, 1 {
  copy t, a[:, x:16]
  act a[:, 0:16], t, neg
  addi y, x, 16
  mov x, y
}
loop i = 0, 2, 1 {
  memset v[:, 0:8], 1.0
  copy w, a[:, i*16:16]
  copy v, w
}
tt w, w, v, add
dma O, w
copy b, t
copy d, b
copy c, d
copy e, c
tt e, e, c, max
dma P, e
dma Q, t
)";

TEST(GenStats, CountsLoopEdgeAndBoundaryShapes) {
  Program p = parseProgram(kEdges);
  EXPECT_EQ(feature(p, "registers carried around a back edge"), 1u);
  EXPECT_EQ(feature(p, "tensors carried around a back edge (read before written in the body)"), 1u);
  EXPECT_EQ(feature(p, "tensors first written in a loop and read after it"), 3u);  // t, w, v
  EXPECT_EQ(feature(p, "partial then whole write of a tensor in a loop body"), 1u);
  EXPECT_EQ(feature(p, "in place at the exact boundary (first write reads a source at its last use)"), 2u);  // d, c
  EXPECT_EQ(feature(p, "in place one short (the source is read once more after the first write)"), 1u);     // e
  EXPECT_EQ(feature(p, "PSUM tensors of 1 bank"), 0u);
  EXPECT_EQ(feature(p, "PSUM tensors of 3 banks"), 1u);  // 720 bytes a partition, 256-byte banks
  EXPECT_EQ(feature(p, "PSUM tensors of 4 banks"), 1u);
  EXPECT_EQ(feature(p, "PSUM tensors of every bank"), 1u);  // tiny has 4
  EXPECT_EQ(feature(p, "multi-bank PSUM tensors with a partly used last bank"), 1u);  // p3: 720 bytes in 3 banks
}

// The default mix (tiny, default size and pressure) reaches each narrow shape in at least a tenth of its programs.
TEST(GenStats, DefaultMixReachesTheNarrowShapesInATenthOfPrograms) {
  ShapeTally tally;
  const uint64_t programs = 500;
  for (uint64_t seed = 0; seed < programs; ++seed) {
    SeededChoices c(seed);
    GenOptions opts;
    opts.arch = *archPreset("tiny");
    tally.add(generateProgram(c, opts));
  }
  for (const char* name : {"registers carried around a back edge",
                           "tensors carried around a back edge (read before written in the body)",
                           "tensors first written in a loop and read after it",
                           "partial then whole write of a tensor in a loop body", "PSUM tensors of 1 bank",
                           "PSUM tensors of 2 banks", "PSUM tensors of 3 banks", "PSUM tensors of 4 banks",
                           "multi-bank PSUM tensors with a partly used last bank",
                           "in place at the exact boundary (first write reads a source at its last use)",
                           "in place one short (the source is read once more after the first write)"})
    EXPECT_GE(tally.containing(name) * 10, programs) << name << "\n" << tally.table();
}

// A tensor written whole again after a read, by an instruction that does not read it, holds a second value; an
// in-place update does not count, nor a partial write.
TEST(GenStats, RecycledTensorsAreTheOnesWrittenWholeAgainAfterARead) {
  const Program p = parseProgram(
      tinyTileDecls("a b c") +
      "dma a, A\n"
      "copy b, a\n"
      "tt a, a, b, add\n"       // in place: not a new value
      "memset c[:, 0:8], 1.0\n"
      "copy c[:, 8:56], a[:, 8:56]\n"
      "copy b[:, 0:8], c[:, 0:8]\n"  // partial: not a new value
      "memset b, 2.0\n"         // b written whole after its read by `tt`: recycled
      "tt c, b, a, add\n"       // c written whole after its read: recycled
      "dma O, c\n");
  EXPECT_EQ(feature(p, "recycled on-chip tensors (written whole again after a read)"), 2u);
}

// GenOptions::reuse recycles dead tensors: programs stay well-formed and run, and the feature shows up.
TEST(GenStats, ReuseMakesRecycledTensors) {
  uint32_t with = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    SeededChoices choices(seed);
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.reuse = 60;
    const Program p = generateProgram(choices, o);
    EXPECT_TRUE(checkProgram(p).empty()) << seed;
    with += feature(p, "recycled on-chip tensors (written whole again after a read)") > 0;
  }
  EXPECT_GE(with, 8u);
}

}  // namespace
}  // namespace allocsim
