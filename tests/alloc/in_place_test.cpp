// The in-place write checker (alloc/in_place.h, as in the production allocator's optlevel 7): accepts what the allocators
// produce, rejects any placement that cannot be re-placed — with the production allocator's text, the conflicting
// pair and their placements, at the declaration.
#include <gtest/gtest.h>

#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "alloc/in_place.h"
#include "alloc/no_reuse.h"
#include "gen/generate.h"
#include "ir/parse.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/program_text.h"

namespace allocsim {
namespace {

// a is live at positions 1..2, b at 2..3 (dma a; copy b, a; dma C, b): they interfere at the copy.
const char kPair[] =
    "arch tiny\n"
    "dram A [8, 64] f32 input\n"
    "dram C [8, 64] f32 output\n"
    "sbuf a [8, 64] f32 @p0+0\n"
    "sbuf b [8, 64] f32 @p0+256\n"
    "dma a, A\n"
    "copy b, a\n"
    "dma C, b\n";

std::string rejection(const Program& p) {
  try {
    checkInPlace(p);
  } catch (const AllocError& e) {
    return e.format("prog");
  }
  return "accepted";
}

std::string rejection(const std::string& text) { return rejection(parseProgram(text)); }

TEST(InPlace, AcceptsDisjointPlacements) { EXPECT_EQ(rejection(kPair), "accepted"); }

TEST(InPlace, OverlapOfInterferingTensorsNamesThePairAndTheirPlacements) {
  EXPECT_EQ(rejection(replaced(kPair, "@p0+256", "@p0+128")),
            "prog:5:6: smt allocation fails in-place write checker: sbuf tensor 'b' [8, 64] f32 @p0+128 (partitions "
            "[0, 8), bytes [128, 384)) overlaps sbuf tensor 'a' [8, 64] f32 @p0+0 (partitions [0, 8), bytes [0, 256)) "
            "while both are live (linear positions 2..3 and 1..2)");
}

TEST(InPlace, TensorsThatAreNotLiveTogetherMayShare) {
  // b is written after a's last read: a is live 1..2, b 3..4.
  const std::string text =
      "arch tiny\n"
      "dram A [8, 64] f32 input\n"
      "dram C [8, 64] f32 output\n"
      "sbuf a [8, 64] f32 @p0+0\n"
      "sbuf b [8, 64] f32 @p0+0\n"
      "dma a, A\n"
      "dma C, a\n"
      "memset b, 0\n"
      "dma C, b\n";
  EXPECT_EQ(rejection(text), "accepted");
  // ...and a tensor no executed instruction mentions occupies nothing.
  EXPECT_EQ(rejection(replaced(kPair, "dram C [8, 64] f32 output\n", "dram C [8, 64] f32 output\nsbuf z [8, 64] f32 @p0+0\n")),
            "accepted");
}

TEST(InPlace, BoundsAlignmentAndPartitionStartAreChecked) {
  EXPECT_EQ(rejection(replaced(kPair, "@p0+256", "@p0+4000")),
            "prog:5:6: smt allocation fails in-place write checker: sbuf tensor 'b' [8, 64] f32 @p0+4000 (partitions "
            "[0, 8), bytes [4000, 4256)) exceeds SBUF (8 partitions, 4096 bytes)");
  EXPECT_EQ(rejection(replaced(kPair, "@p0+256", "@p0+258")),
            "prog:5:6: smt allocation fails in-place write checker: sbuf tensor 'b' [8, 64] f32 @p0+258 (partitions "
            "[0, 8), bytes [258, 514)): byte offset 258 is not a multiple of sbuf-align 4");
  const std::string four = replaced(replaced(kPair, "sbuf b [8, 64]", "sbuf b [4, 64]"), "copy b, a", "copy b, a[0:4, :]");
  EXPECT_EQ(rejection(replaced(four, "@p0+256", "@p2+256")),
            "prog:5:6: smt allocation fails in-place write checker: sbuf tensor 'b' [4, 64] f32 @p2+256 (partitions "
            "[2, 6), bytes [256, 512)): base partition 2 is not a multiple of sbuf-partition-quantum 4");
}

TEST(InPlace, EverySbufAndPsumTensorAndRegisterMustBePlaced) {
  EXPECT_EQ(rejection(replaced(kPair, " @p0+256", "")),
            "prog:5:6: smt allocation fails in-place write checker: sbuf tensor 'b' [8, 64] f32 has no placement");
  InPlaceOptions partial;
  partial.require_placed = false;
  EXPECT_NO_THROW(checkInPlace(parseProgram(replaced(kPair, " @p0+256", "")), partial));
}

// Two PSUM accumulators live together on one bank; two registers live together on one lane.
TEST(InPlace, PsumBanksAndRegisterLanesConflictLikeBytes) {
  const std::string psum =
      "arch tiny\n"
      "dram A [8, 8] f32 input\n"
      "dram C [8, 64] f32 output\n"
      "sbuf a [8, 8] f32 @p0+0\n"
      "sbuf b [8, 64] f32 @p0+32\n"
      "psum x [8, 64] f32 @bank1\n"
      "psum y [8, 64] f32 @bank2\n"
      "dma a, A\n"
      "memset b, 1\n"
      "matmul x, a, b, start, stop\n"
      "matmul y, a, b, start, stop\n"
      "tt b, x, y, add\n"
      "dma C, b\n";
  EXPECT_EQ(rejection(psum), "accepted");
  EXPECT_EQ(rejection(replaced(psum, "@bank2", "@bank1")),
            "prog:7:6: smt allocation fails in-place write checker: psum tensor 'y' [8, 64] f32 @bank1 (banks [1, 2)) "
            "overlaps psum tensor 'x' [8, 64] f32 @bank1 (banks [1, 2)) while both are live (linear positions 4..5 "
            "and 3..5)");
  EXPECT_EQ(rejection(replaced(psum, "@bank2", "@bank4")),
            "prog:7:6: smt allocation fails in-place write checker: psum tensor 'y' [8, 64] f32 @bank4 (banks [4, 5)) "
            "exceeds PSUM (4 banks)");

  const std::string regs =
      "arch tiny\n"
      "dram C [8, 1] u32 output\n"
      "sbuf c [8, 1] u32 @p0+0\n"
      "reg i @r0\n"
      "reg j 64 @r1\n"
      "li i, 3\n"
      "li j, 4\n"
      "add i, i, j\n"
      "memset c, 0\n"
      "ts c, c, i, add\n"
      "dma C, c\n";
  EXPECT_EQ(rejection(regs), "accepted");
  EXPECT_EQ(rejection(replaced(regs, "@r1", "@r3")),
            "prog:5:5: smt allocation fails in-place write checker: register 'j' (64-bit, 2 lanes) @r3 (lanes [3, 5)) "
            "exceeds the 4 SP registers");
  EXPECT_EQ(rejection(replaced(regs, "j 64 @r1", "j 64 @r2")), "accepted");
  EXPECT_EQ(rejection(replaced(regs, "i @r0", "i @r2")),
            "prog:5:5: smt allocation fails in-place write checker: register 'j' (64-bit, 2 lanes) @r1 (lanes [1, 3)) "
            "overlaps register 'i' (32-bit, 1 lane) @r2 (lanes [2, 3)) while both are live (linear positions 2..3 "
            "and 1..5)");
}

TEST(InPlace, AcceptsWhatThePlacersAndTheDriverProduce) {
  size_t checked = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    Program p = parseProgram(text);
    if (!testing_placed::isTinyKernel(file)) {
      EXPECT_NO_THROW(checkInPlace(placeNoReuse(p))) << file;
      EXPECT_NO_THROW(checkInPlace(placeGreedy(p))) << file;
      checked += 2;
    }
    for (int level : {0, 1, 2, 3, 6}) {
      DriverOptions o;
      o.optlevel = level;
      try {
        Program allocated = allocate(p, o).program;
        EXPECT_NO_THROW(checkInPlace(allocated)) << file << " -O" << level;
        ++checked;
      } catch (const AllocError&) {
        // tests/alloc/driver_test.cpp says which kernels cannot be allocated at which level
      }
    }
  }
  // gen2 kernels: two placers and five levels; tiny kernels: four levels (they do not fit at O0)
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(false) * 7 + testing_placed::corpusKernelCount(true) * 4);
  size_t generated = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = testing_placed::generatedForPlacers(*archPreset("tiny"), seed);
    Program placed;
    try {
      placed = placeGreedy(p);
    } catch (const AllocError&) {
      continue;  // does not fit without spilling
    }
    EXPECT_NO_THROW(checkInPlace(placed)) << "seed " << seed;
    ++generated;
  }
  EXPECT_GE(generated, 60u);
}

TEST(InPlace, RejectsAGreedyPlacementWithOneTensorMovedOntoALiveNeighbour) {
  Program p = placeGreedy(parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) +
                                                                "/corpus/kernels/matmul_tiled.nki.txt")));
  TensorId lhs = p.findTensor("lhsT_tile"), rhs = p.findTensor("rhs_tile");
  ASSERT_NE(lhs, kNone);
  ASSERT_NE(rhs, kNone);
  p.tensors[rhs].placement = p.tensors[lhs].placement;
  const std::string got = rejection(p);
  EXPECT_NE(got.find("smt allocation fails in-place write checker: sbuf tensor 'rhs_tile' [128, 512] bf16 @p0+0"),
            std::string::npos)
      << got;
  EXPECT_NE(got.find("overlaps sbuf tensor 'lhsT_tile' [128, 128] bf16 @p0+0"), std::string::npos) << got;
}

}  // namespace
}  // namespace allocsim
