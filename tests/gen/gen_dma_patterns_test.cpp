// The generator's DMA-pattern knob (GenOptions::dma_patterns, gen/gen_dma_patterns.cpp) and the six pattern
// counts of `gen --stats` (gen/stats.h): counted by hand on small programs, and present in generated programs
// only when the knob asks for them.
#include <gtest/gtest.h>

#include "gen/choices.h"
#include "gen/generate.h"
#include "gen/stats.h"
#include "ir/check.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

uint64_t feature(const Program& p, const std::string& name) {
  for (const ShapeFeature& f : measureShape(p))
    if (f.name == name) return f.count;
  ADD_FAILURE() << "no feature " << name;
  return 0;
}

const char* kAbut = "DMA pattern: abutting reads of one tensor";
const char* kApart = "DMA pattern: reads of one tensor one element apart";
const char* kRepeat = "DMA pattern: the same view read twice in a row";
const char* kSub = "DMA pattern: on-chip sub-range reads";
const char* kDead = "DMA pattern: dead stores (overwritten whole before a read)";
const char* kOver = "DMA pattern: over-broad tensors (written whole, only ever read over a sub-range)";

TEST(GenDmaPatterns, StatsCountEachPatternByHand) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 16] f32 input\n"
      "dram Y [8, 8] f32 output\n"
      "sbuf x [8, 16] f32\n"
      "sbuf y [8, 8] f32\n"
      "dma x, X\n"
      "memset y, 0\n"                          // dead: overwritten whole by the next, which does not read y
      "tt y, x[:, 0:8], x[:, 8:8], max\n"      // abutting reads; two sub-range reads
      "copy y, x[:, 8:8]\n"                    // a sub-range read; x[:, 8:8] read twice in a row
      "dma Y, y\n");
  EXPECT_EQ(feature(p, kAbut), 1u);
  EXPECT_EQ(feature(p, kApart), 0u);
  EXPECT_EQ(feature(p, kSub), 3u);
  EXPECT_EQ(feature(p, kRepeat), 1u);
  EXPECT_EQ(feature(p, kDead), 2u);  // memset then tt; tt then copy (copy does not read y)
  EXPECT_EQ(feature(p, kOver), 0u);  // x's reads cover it; y is read whole
}

TEST(GenDmaPatterns, ReadsOneElementApartAreCountedApartFromAbuttingOnes) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 16] f32 input\n"
      "dram Y [8, 7] f32 output\n"
      "sbuf x [8, 16] f32\n"
      "sbuf y [8, 7] f32\n"
      "dma x, X\n"
      "tt y, x[:, 0:7], x[:, 8:7], max\n"   // one element apart: x[:, 7] lies between them
      "tt y, x[:, 9:7], x[:, 1:7], add\n"   // the same, the later view first
      "tt y, x[:, 0:7], x[:, 7:7], add\n"   // abutting
      "tt y, x[:, 0:7], x[:, 9:7], add\n"   // two elements apart
      "dma Y, y\n");
  ASSERT_TRUE(checkProgram(p).empty());
  EXPECT_EQ(feature(p, kApart), 2u);
  EXPECT_EQ(feature(p, kAbut), 1u);
}

TEST(GenDmaPatterns, OverBroadCountsTensorsWrittenWholeAndOnlyReadOverASubRange) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram X [8, 16] f32 input\n"
      "dram Y [8, 8] f32 output\n"
      "sbuf w [8, 16] f32\n"   // over-broad: read over rows 2..7, elements 4..15 only
      "sbuf v [8, 16] f32\n"   // read over a sub-range, but never written whole
      "sbuf u [8, 16] f32\n"   // written whole, one read register-indexed: its used range is all of it
      "sbuf y [8, 8] f32\n"
      "reg r0\n"
      "dma w, X\n"
      "copy y[2:4, :], w[2:4, 8:8]\n"
      "copy y[3:5, :], w[3:5, 4:8]\n"
      "dma v[:, 0:8], X[:, 0:8]\n"
      "copy y, v[:, 0:8]\n"
      "dma u, X\n"
      "li r0, 8\n"
      "copy y, u[:, r0:8]\n"
      "dma Y, y\n");
  ASSERT_TRUE(checkProgram(p).empty());
  EXPECT_EQ(feature(p, kOver), 1u);
}

TEST(GenDmaPatterns, TheKnobMakesEveryPatternAndZeroKeepsThePrograms) {
  ShapeTally with;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.size = 12;
    o.dma_patterns = 50;
    SeededChoices c(seed);
    Program p = generateProgram(c, o);
    ASSERT_TRUE(checkProgram(p).empty()) << seed;
    with.add(p);
  }
  for (const char* name : {kAbut, kApart, kRepeat, kSub, kDead, kOver}) EXPECT_GE(with.containing(name), 20u) << name;
  ShapeTally without;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.size = 12;
    SeededChoices c(seed);
    without.add(generateProgram(c, o));
  }
  EXPECT_LT(without.containing(kAbut), with.containing(kAbut));
  EXPECT_LT(without.containing(kApart), with.containing(kApart));
  EXPECT_LT(without.containing(kDead), with.containing(kDead));
  EXPECT_LT(without.containing(kOver), with.containing(kOver));
}

}  // namespace
}  // namespace allocsim
