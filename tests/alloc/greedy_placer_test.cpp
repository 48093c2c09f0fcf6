// The greedy reuse-aware placer (alloc/greedy_placer.h): reuse where live ranges allow it and only there, order of
// first def, pinned tensors as obstacles while live, the failure messages, every corpus kernel, and 2,000
// generated programs.
#include "alloc/greedy_placer.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/liveness.h"
#include "alloc/no_reuse.h"
#include "gen/generate.h"
#include "tests/common/placed_program_checks.h"
#include "tests/common/program_text.h"
#include "tests/alloc/placement_lookup.h"

namespace allocsim {
namespace {

// The placement helpers (placement_lookup.h, placed_program_checks.h).
using namespace testing_placed;

// The placer's promise: items whose live ranges interfere never share storage.
Apart interfering(const Program& p) {
  auto live = std::make_shared<Liveness>(computeLiveness(p));
  return {[live](TensorId a, TensorId b) { return interferes(live->tensors[a], live->tensors[b]); },
          [live](RegId a, RegId b) { return interferes(live->registers[a], live->registers[b]); }};
}

// The AllocError message and line of placing `text`, or "" if it fits.
std::pair<std::string, uint32_t> failure(const std::string& text) {
  return testing_placed::placeFailure(placeGreedy, text);
}

// Placing `text` fails with exactly `message`, located at `line`.
void expectFailure(const std::string& text, const std::string& message, uint32_t line) {
  EXPECT_EQ(failure(text), std::make_pair(message, line));
}

Program placedChecked(const std::string& text) {
  Program p = parseProgram(text);
  Program placed = placeGreedy(p);
  testing_placed::expectPlacementRules(p, placed, interfering(p), "program");
  testing_placed::expectRunsLikeTheOriginal(p, placed, "program");
  return placed;
}

TEST(Greedy, ReusesBanksAndLanesAndTheGapsBetweenATensorsValues) {
  Program p = placedChecked(
      tinyTileDecls("a b c d") +
      "psum p1 [8, 64] f32\n"
      "psum p2 [8, 64] f32\n"
      "sbuf id [8, 8] f32\n"
      "reg i\n"
      "reg j\n"
      "dma a, A\n"
      "copy b, a\n"
      "copy c, b\n"
      "copy d, c\n"
      "memset id, 1.0\n"
      "matmul p1, id, d, start, stop\n"
      "copy a, p1\n"  // a is written again: a second value, a segment of its own
      "matmul p2, id, a, start, stop\n"
      "loop i = 0, 1, 1 {\n"
      "  copy b, p2\n"
      "}\n"
      "loop j = 0, 1, 1 {\n"
      "  dma O, b\n"
      "}\n");
  // a and b (also rewritten late) are not live between their values: c (live from its write to `copy d, c`) takes
  // a's slot in a's gap, d (to the first matmul) b's slot in b's gap.
  // p2: p1 was last read before p2's first write
  expectPlacements(p, {{"a", sbufAt(0, 0)}, {"b", sbufAt(0, 256)}, {"c", sbufAt(0, 0)}, {"d", sbufAt(0, 256)},
                       {"p1", bankAt(0)}, {"p2", bankAt(0)}});
  // j: two loops one after the other share a lane
  expectLanes(p, {{"i", 0}, {"j", 0}});
}

TEST(Greedy, AChainOfCopiesAlternatesBetweenTwoSlots) {
  Program p = placedChecked(
      tinyTileDecls("a b c d") +
      "dma a, A\n"
      "copy b, a\n"
      "copy c, b\n"
      "copy d, c\n"
      "dma O, d\n");
  expectPlacements(p, {{"a", sbufAt(0, 0)}, {"b", sbufAt(0, 256)}, {"c", sbufAt(0, 0)}, {"d", sbufAt(0, 256)}});
}

TEST(Greedy, AValueCarriedAroundALoopKeepsItsStorageForTheWholeLoop) {
  Program p = placedChecked(
      tinyTileDecls("a b c d") +
      "reg i\n"
      "dma a, A\n"
      "memset c, 0.0\n"
      "loop i = 0, 4, 1 {\n"
      "  copy b[:, i*16:16], a[:, 0:16]\n"  // iterations 2..4 read b[:, 0:16], written by iteration 1
      "  copy c[:, i*16:16], b[:, 0:16]\n"
      "  memset d, 2.0\n"                   // body-local, after b's last read in the body: still not b's slot
      "  tt c[:, 0:16], c[:, 0:16], d[:, 0:16], add\n"
      "}\n"
      "dma O, c\n");
  expectPlacements(p, {{"a", sbufAt(0, 0)}, {"c", sbufAt(0, 256)}, {"b", sbufAt(0, 512)}, {"d", sbufAt(0, 768)}});
}

TEST(Greedy, PinnedTensorsAreObstaclesOnlyWhileLive) {
  Program p = placedChecked(
      "arch tiny\n"
      "dram A [8, 64] f32 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf pin [8, 64] f32 pinned @p0+0\n"
      "sbuf a [8, 64] f32\n"
      "sbuf b [8, 64] f32\n"
      "dma pin, A\n"
      "copy a, pin\n"  // pin is live here: a goes beside it
      "copy b, a\n"    // pin is dead: b may take its bytes
      "dma O, b\n");
  expectPlacements(p, {{"pin", sbufAt(0, 0)}, {"a", sbufAt(0, 256)}, {"b", sbufAt(0, 0)}});
}

TEST(Greedy, TensorsArePlacedInOrderOfFirstDef) {
  // Declared in the reverse order of use: the first defined gets the lowest offset.
  Program p = placedChecked(
      tinyTileDecls("late early") +
      "sbuf never [8, 8] f32\n"  // never mentioned: placed last, and interferes with nothing
      "dma early, A\n"
      "copy late, early\n"
      "dma O, late\n");
  expectPlacements(p, {{"early", sbufAt(0, 0)}, {"late", sbufAt(0, 256)}, {"never", sbufAt(0, 0)}});
}

TEST(Greedy, SbufShortageNamesTheTensorItsLiveRangeAndThePeakDemand) {
  expectFailure(
      "arch tiny\n"
      "dram A [8, 1000] f32 input\n"
      "dram O [8, 1000] f32 output\n"
      "sbuf a [8, 1000] f32\n"
      "sbuf b [8, 1000] f32\n"
      "dma a, A\n"
      "copy b, a\n"
      "dma O, b\n",
      "sbuf tensor 'b' [8, 1000] f32 does not fit in SBUF (greedy placement, no spilling): no free 8-partition "
      "x 4000-byte rectangle at positions 2..3 of the linear order; tensors live there need up to 64000 bytes "
      "(partitions x bytes per partition), SBUF has 32768 (8 partitions x 4096 bytes)",
      5);
}

TEST(Greedy, PsumAndRegisterShortages) {
  expectFailure(
      "arch tiny\n"
      "sbuf id [8, 8] f32\n"
      "sbuf x [8, 64] f32\n"
      "psum big [8, 192] f32\n"  // 3 banks
      "psum acc [8, 128] f32\n"  // 2 banks
      "memset id, 1.0\n"
      "memset x, 1.0\n"
      "matmul big[:, 0:64], id, x, start, stop\n"
      "matmul acc[:, 0:64], id, x, start, stop\n"
      "copy x, big[:, 0:64]\n"
      "copy x, acc[:, 0:64]\n",
      "psum tensor 'acc' [8, 128] f32 (2 banks) does not fit in PSUM (greedy placement, no spilling) "
      "at positions 4..6 of the linear order: tensors live there need up to 5 banks, PSUM has 4",
      5);
  expectFailure(
      "arch tiny\n"
      "reg a\n"
      "reg b 64\n"
      "reg c 64\n"
      "li a, 1\n"
      "li b, 2\n"
      "li c, 3\n"
      "add a, a, c\n"
      "add b, b, b\n",
      "register 'c' (64-bit, 2 lanes) does not fit in the SP registers (greedy placement, no "
      "spilling) at positions 3..4 of the linear order: registers live there need up to 5 lanes, the "
      "machine has 4",
      4);
}

// Every gen2 kernel places, with reuse. Every tiny kernel overfills the tiny machine with data live at the same
// time (corpus/kernels/README.md; the peak in each message is the README's peak live bytes x 8 partitions, or
// its 6 PSUM banks), so without spilling greedy cannot place it either; the first tensor that finds no room is
// named.
TEST(Greedy, CorpusKernels) {
  const std::map<std::string, std::string> tiny_failures = {
      // o is written a q block at a time inside the q loop (from its header, position 2) and stored at the end (9)
      {"causal_blocks_tiny.nki.txt",
       "17: sbuf tensor 'o' [8, 1024] f32 does not fit in SBUF (greedy placement, no spilling): no free 8-partition "
       "x 4096-byte rectangle at positions 2..9 of the linear order; tensors live there need up to 37120 bytes"},
      {"attention_block_tiny.nki.txt",
       "28: sbuf tensor 'o_all' [8, 768] f32 does not fit in SBUF (greedy placement, no spilling): no free "
       "8-partition x 3072-byte rectangle at positions 10..28 of the linear order; tensors live there need up to "
       "46240 bytes"},
      {"layernorm_tiny.nki.txt",
       "23: sbuf tensor 'xc' [8, 320] f32 does not fit in SBUF (greedy placement, no spilling): no free 8-partition "
       "x 1280-byte rectangle at positions 9..22 of the linear order; tensors live there need up to 40992 bytes"},
      {"looped_add_tiny.nki.txt",
       "15: sbuf tensor 'c0' [8, 256] f32 does not fit in SBUF (greedy placement, no spilling): no free 8-partition "
       "x 1024-byte rectangle at positions 6..7 of the linear order; tensors live there need up to 40960 bytes"},
      {"matmul_blocked_tiny.nki.txt",
       "22: psum tensor 'acc4' [8, 64] f32 (1 bank) does not fit in PSUM (greedy placement, no spilling) at "
       "positions 22..34 of the linear order: tensors live there need up to 6 banks, PSUM has 4"},
      {"matmul_hoisted_tiny.nki.txt",
       // res_row is filled a column chunk per n iteration and stored after the n loop in the same m iteration:
       // live per m iteration (not over the whole m loop), so it fits; the moving panel does not.
       "16: sbuf tensor 'rhs_tiles' [8, 1792] bf16 does not fit in SBUF (greedy placement, no spilling): no free "
       "8-partition x 3584-byte rectangle at positions 6..11 of the linear order; tensors live there need up to "
       "36352 bytes"},
      {"matmul_tiled_tiny.nki.txt",
       "13: sbuf tensor 'lhsT_tile' [8, 8] bf16 does not fit in SBUF (greedy placement, no spilling): no free "
       "8-partition x 16-byte rectangle at positions 4..6 of the linear order; tensors live there need up to 33920 "
       "bytes"},
      {"pooling_tiny.nki.txt",
       "14: sbuf tensor 'ha' [8, 256] f32 does not fit in SBUF (greedy placement, no spilling): no free 8-partition "
       "x 1024-byte rectangle at positions 4..5 of the linear order; tensors live there need up to 40960 bytes"},
      {"transpose_identity_tiny.nki.txt",
       "17: sbuf tensor 'out_all' [8, 768] f32 does not fit in SBUF (greedy placement, no spilling): no free "
       "8-partition x 3072-byte rectangle at positions 9..22 of the linear order; tensors live there need up to "
       "49408 bytes"},
  };
  testing_placed::expectCorpusOutcomes(placeGreedy, interfering, tiny_failures);
}

// 2,000 generated tiny programs at pressure <= 80. The generator bounds SBUF/PSUM pressure by its own whole-tensor
// area measure, not registers (tiny has 4 lanes; most programs keep more registers live), and area is not
// feasibility in 2-D (a 1-partition tensor of 3840 bytes fills a partition that every full-height tensor also
// needs). So many do not fit without spilling: each either places correctly or is an AllocError — never anything
// else, and never a wrong placement.
TEST(Greedy, GeneratedProgramsPlaceCorrectlyOrFailCleanly) {
  std::map<std::string, size_t> outcomes;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    const Program p = testing_placed::generatedForPlacers(*archPreset("tiny"), seed);
    std::string what = "seed " + std::to_string(seed);
    try {
      Program placed = placeGreedy(p);
      ++outcomes["placed"];
      testing_placed::expectPlacementRules(p, placed, interfering(p), what);
      if (seed % 4 == 0) testing_placed::expectRunsLikeTheOriginal(p, placed, what);
    } catch (const AllocError& e) {
      std::string m = e.what();
      ++outcomes[m.substr(0, m.find(' '))];  // "sbuf", "psum" or "register"
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (const auto& [k, n] : outcomes) std::cout << "  " << k << ": " << n << "\n";
  EXPECT_EQ(outcomes.size() - outcomes.count("placed") - outcomes.count("sbuf") - outcomes.count("psum") -
                outcomes.count("register"),
            0u);
  EXPECT_GE(outcomes["placed"], 400u);
}

// With the registers the generator wants (sp-registers=64, all else tiny) the only failures left are SBUF/PSUM.
TEST(Greedy, GeneratedProgramsWithRegistersToSpareFailOnlyOnMemory) {
  Arch arch = *archPreset("tiny");
  arch.sp_registers = 64;
  size_t placed_count = 0;
  for (uint64_t seed = 0; seed < 500; ++seed) {
    const Program p = testing_placed::generatedForPlacers(arch, seed);
    try {
      Program placed = placeGreedy(p);
      ++placed_count;
      testing_placed::expectPlacementRules(p, placed, interfering(p), "seed " + std::to_string(seed));
    } catch (const AllocError& e) {
      EXPECT_NE(std::string(e.what()).rfind("register", 0), 0u) << "seed " << seed << ": " << e.what();
    }
  }
  EXPECT_GE(placed_count, 300u);
}

}  // namespace
}  // namespace allocsim
