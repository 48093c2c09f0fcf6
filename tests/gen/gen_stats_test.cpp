#include "gen/stats.h"

#include <gtest/gtest.h>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/parse.h"

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

// A tensor written whole again after a read, by an instruction that does not read it, holds a second value; an
// in-place update does not count, nor a partial write.
TEST(GenStats, RecycledTensorsAreTheOnesWrittenWholeAgainAfterARead) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 64] f32 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf a [8, 64] f32\n"
      "sbuf b [8, 64] f32\n"
      "sbuf c [8, 64] f32\n"
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
