// The O0 no-reuse placement (alloc/no_reuse.h): exact first-fit positions, the arch's alignment and partition
// quantum, pinned tensors, the failure messages, every corpus kernel, and generated programs.
#include "alloc/no_reuse.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "alloc/alloc_error.h"
#include "gen/generate.h"
#include "tests/common/placed_program_checks.h"
#include "tests/alloc/placement_lookup.h"

namespace allocsim {
namespace {

// The placement helpers (placement_lookup.h, placed_program_checks.h).
using namespace testing_placed;

const Apart kAllApart{[](TensorId, TensorId) { return true; }, [](RegId, RegId) { return true; }};

// The AllocError message and line of placing `text`, or "" if it fits.
std::pair<std::string, uint32_t> failure(const std::string& text) {
  return testing_placed::placeFailure(placeNoReuse, text);
}

// Placing `text` fails with exactly `message`, located at `line`.
void expectFailure(const std::string& text, const std::string& message, uint32_t line) {
  EXPECT_EQ(failure(text), std::make_pair(message, line));
}

TEST(NoReuse, SbufFirstFitIsLowestPartitionBandThenLowestAlignedOffset) {
  Program p = placeNoReuse(parseProgram(
      "arch tiny\n"
      "sbuf a [4, 1000] f32\n"  // 4000 bytes on partitions 0-3
      "sbuf d [4, 100] f32\n"   // 400 bytes: no room beside a in band 0, so band 4
      "sbuf e [8, 10] f32\n"    // 40 bytes on all 8 partitions: after a and d
      "sbuf f [1, 3] bf16\n"    // 6 bytes: band 0, after e
      "sbuf g [2, 1] u16\n"));  // 2 bytes: band 0, after f's 6 bytes rounded up to the 4-byte alignment
  expectPlacements(p, {{"a", sbufAt(0, 0)}, {"d", sbufAt(4, 0)}, {"e", sbufAt(0, 4000)}, {"f", sbufAt(0, 4040)},
                       {"g", sbufAt(0, 4048)}});
}

TEST(NoReuse, AlignmentAndPartitionQuantumAreTheArchs) {
  Program p = placeNoReuse(parseProgram(
      "arch tiny sbuf-align=64 sbuf-partition-quantum=2\n"
      "sbuf a [2, 1020] f32\n"   // 4080 bytes; the next 64-aligned offset, 4096, leaves no room in band 0
      "sbuf b [2, 3] u16\n"
      "sbuf c [1, 3] u16\n"      // after b's 6 bytes, at the next multiple of 64
      "sbuf d [2, 1000] f32\n"   // partitions 2-3 are taken up to byte 70: band 4
      "sbuf e [1, 1000] f32\n"));  // band 6: a multiple of the quantum 2, not of 4
  expectPlacements(p, {{"a", sbufAt(0, 0)}, {"b", sbufAt(2, 0)}, {"c", sbufAt(2, 64)}, {"d", sbufAt(4, 0)},
                       {"e", sbufAt(6, 0)}});
}

TEST(NoReuse, PsumGetsDisjointBankRangesAndRegistersDisjointLanes) {
  Program p = placeNoReuse(parseProgram(
      "arch tiny\n"
      "psum acc1 [8, 64] f32\n"   // 256 bytes: 1 bank
      "psum acc2 [8, 65] f32\n"   // 260 bytes: 2 banks
      "psum acc3 [1, 1] f32\n"
      "reg i\n"
      "reg w 64\n"
      "reg j\n"));
  expectPlacements(p, {{"acc1", bankAt(0)}, {"acc2", bankAt(1)}, {"acc3", bankAt(3)}});
  expectLanes(p, {{"i", 0}, {"w", 1}, {"j", 3}});
}

TEST(NoReuse, PinnedTensorsKeepTheirPlacementAndOthersAvoidThem) {
  Program p = placeNoReuse(parseProgram(
      "arch tiny\n"
      "sbuf a [8, 16] u32\n"
      "sbuf pin [8, 16] u32 pinned @p0+0\n"
      "sbuf b [8, 16] u32 @p0+0\n"  // a placement that is not pinned is replaced
      "psum acc [8, 64] f32\n"
      "psum pacc [8, 64] f32 pinned @bank0\n"
      "dram X [8, 16] u32 input\n"));
  expectPlacements(p, {{"pin", sbufAt(0, 0)}, {"a", sbufAt(0, 64)}, {"b", sbufAt(0, 128)}, {"pacc", bankAt(0)},
                       {"acc", bankAt(1)}});
  EXPECT_FALSE(placementOf(p, "X").has_value());  // DRAM keeps no placement
}

TEST(NoReuse, SbufShortageNamesTheTensorAndTheTotalDemand) {
  expectFailure(
      "arch tiny\n"
      "sbuf a [8, 1000] f32\n"
      "sbuf b [8, 24] f32\n"
      "sbuf c [4, 2] f32\n",
      "sbuf tensor 'c' [4, 2] f32 does not fit in SBUF without reuse: no free 4-partition x 8-byte rectangle; "
      "all sbuf tensors need 32800 bytes (partitions x bytes per partition), SBUF has 32768 (8 partitions x "
      "4096 bytes)",
      4);
}

TEST(NoReuse, PsumShortageAndTheProductionCapacityGuard) {
  expectFailure(
      "arch tiny\n"
      "psum a [8, 128] f32\n"
      "psum b [8, 64] f32\n"
      "psum c [8, 65] f32\n",
      "psum tensor 'c' [8, 65] f32 (2 banks) does not fit in PSUM without reuse: all psum tensors "
      "need 5 banks, PSUM has 4",
      4);
  // The production allocator's guard, verbatim (a well-formed program never gets here: ir/check.h rejects it
  // first).
  expectFailure(
      "arch tiny\npsum big [8, 320] f32\n",
      "big is too big for PSUM, requires 5 banks with PSUM size 4",
      2);
}

TEST(NoReuse, RegisterShortageCountsLanes) {
  expectFailure(
      "arch tiny\n"
      "reg a 64\n"
      "reg b\n"
      "reg c 64\n",
      "register 'c' (64-bit, 2 lanes) does not fit in the SP registers without reuse: all registers "
      "need 5 lanes, the machine has 4",
      4);
}

TEST(NoReuse, OversizedTensorsFailCleanly) {
  // Not well-formed, but a placer must not crash on them.
  EXPECT_EQ(failure("arch tiny\nsbuf tall [16, 4] f32\n").first,
            "sbuf tensor 'tall' [16, 4] f32 does not fit in SBUF without reuse: no free 16-partition x 16-byte "
            "rectangle; all sbuf tensors need 256 bytes (partitions x bytes per partition), SBUF has 32768 (8 "
            "partitions x 4096 bytes)");
  EXPECT_EQ(failure("arch tiny\nsbuf wide [8, 1025] f32\n").first.substr(0, 60),
            "sbuf tensor 'wide' [8, 1025] f32 does not fit in SBUF withou");
}

// Every gen2 kernel fits without any reuse. Every tiny kernel overfills the tiny machine by design
// (corpus/kernels/README.md: allocation needs spills), so without reuse it cannot fit: the demand in the message
// is the sum of all its SBUF (or PSUM) tensors and exceeds the capacity.
TEST(NoReuse, CorpusKernels) {
  const std::map<std::string, std::string> tiny_failures = {
      {"causal_blocks_tiny.nki.txt",
       "17: sbuf tensor 'o' [8, 1024] f32 does not fit in SBUF without reuse: no free 8-partition x 4096-byte "
       "rectangle; all sbuf tensors need 37120 bytes"},
      {"attention_block_tiny.nki.txt",
       "28: sbuf tensor 'o_all' [8, 768] f32 does not fit in SBUF without reuse: no free 8-partition x 3072-byte "
       "rectangle; all sbuf tensors need 49440 bytes"},
      {"layernorm_tiny.nki.txt",
       "23: sbuf tensor 'xc' [8, 320] f32 does not fit in SBUF without reuse: no free 8-partition x 1280-byte "
       "rectangle; all sbuf tensors need 82240 bytes"},
      {"looped_add_tiny.nki.txt",
       "15: sbuf tensor 'c0' [8, 256] f32 does not fit in SBUF without reuse: no free 8-partition x 1024-byte "
       "rectangle; all sbuf tensors need 49152 bytes"},
      {"matmul_blocked_tiny.nki.txt",
       "22: psum tensor 'acc4' [8, 64] f32 (1 bank) does not fit in PSUM without reuse: all psum tensors need 6 "
       "banks, PSUM has 4"},
      {"matmul_hoisted_tiny.nki.txt",
       "18: sbuf tensor 'res_row' [8, 128] f32 does not fit in SBUF without reuse: no free 8-partition x 512-byte "
       "rectangle; all sbuf tensors need 36352 bytes"},
      {"matmul_tiled_tiny.nki.txt",
       "16: sbuf tensor 'res_row' [8, 1024] f32 does not fit in SBUF without reuse: no free 8-partition x "
       "4096-byte rectangle; all sbuf tensors need 33920 bytes"},
      {"pooling_tiny.nki.txt",
       "14: sbuf tensor 'ha' [8, 256] f32 does not fit in SBUF without reuse: no free 8-partition x 1024-byte "
       "rectangle; all sbuf tensors need 57344 bytes"},
      {"transpose_identity_tiny.nki.txt",
       "17: sbuf tensor 'out_all' [8, 768] f32 does not fit in SBUF without reuse: no free 8-partition x "
       "3072-byte rectangle; all sbuf tensors need 49408 bytes"},
  };
  testing_placed::expectCorpusOutcomes(placeNoReuse, [](const Program&) { return kAllApart; }, tiny_failures);
}

// Generated programs: whatever fits without reuse is placed correctly; the rest is an AllocError, never a crash.
TEST(NoReuse, GeneratedProgramsPlaceCorrectlyOrFailCleanly) {
  size_t placed_count = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const Program p = testing_placed::generatedForPlacers(*archPreset("tiny"), seed, 3, 12);
    std::string what = "seed " + std::to_string(seed);
    try {
      Program placed = placeNoReuse(p);
      ++placed_count;
      testing_placed::expectPlacementRules(p, placed, kAllApart, what);
      testing_placed::expectRunsLikeTheOriginal(p, placed, what);
    } catch (const AllocError& e) {
      EXPECT_NE(std::string(e.what()).find(" does not fit in "), std::string::npos) << what << ": " << e.what();
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Small programs at low pressure mostly fit even without reuse; a placer that placed none would be broken.
  EXPECT_GE(placed_count, 30u);
}

}  // namespace
}  // namespace allocsim
