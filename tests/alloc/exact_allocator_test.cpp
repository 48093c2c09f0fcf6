// The exact allocator (`--allocator exact`, alloc/exact/exact_allocator.h) end to end: imported minimalloc problems
// checked by minimalloc's own rules, SBUF partition bands, PSUM banks, pinned and O7 placements, the corpus with all
// three oracles, and the diagnostics of "proved impossible".
#include <gtest/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/exact/exact_search.h"
#include "alloc/in_place.h"
#include "ir/minimalloc_import.h"
#include "ir/parse.h"
#include "tests/common/placed_program_checks.h"
#include "verify/minimalloc_rules.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "tools/placement_check.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

DriverResult exact(const Program& p, int optlevel = 2, bool oracle = true) {
  DriverOptions o;
  o.allocator = "exact";
  o.optlevel = optlevel;
  o.time_limit_s = 20;
  if (oracle) o.exact_check = placementOracleCheck();
  return allocate(p, o);
}

std::string refusal(const Program& p, bool oracle = true) {
  return messageThrown<AllocError>([&] { exact(p, 2, oracle); }, "fits");
}

MinimallocProblem benchmark(const std::string& name) {
  return parseMinimallocCsv(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/bench/minimalloc/" + name));
}

TEST(ExactAllocator, ImportedProblemsMeetMinimallocsRules) {
  for (const auto& [name, capacity] : {std::pair<std::string, uint64_t>{"input.12.csv", 12}, {"B.1048576.csv", 1048576}}) {
    const MinimallocProblem mp = benchmark(name);
    const Program p = importMinimalloc(mp, capacity);
    DriverResult r = exact(p);
    const MinimallocCheck c = checkMinimallocSolution(exportMinimalloc(r.program, mp), capacity);
    for (const std::string& v : c.violations) ADD_FAILURE() << name << ": " << v;
    EXPECT_LE(c.height, capacity) << name;
    EXPECT_GE(c.height, maxLiveBytes(mp)) << name;
  }
  // One byte less than the max live bytes: proved impossible by the bound.
  const std::string msg = refusal(importMinimalloc(benchmark("input.12.csv"), 11));
  EXPECT_NE(msg.find("exact: no placement of 5 live SBUF tensors fits in 11 bytes (proved by lower bound: lower bound 12 bytes"),
            std::string::npos)
      << msg;
}

TEST(ExactAllocator, PartitionBandsAreSearchedAndGeometryCanProveNoFit) {
  // tiny: 8 partitions x 4096 bytes, start quantum 4. a and b take 4 partitions x 4096 bytes each: they fit only
  // side by side, in bands 0-3 and 4-7.
  const Program p = parseProgram(
      "arch tiny\n"
      "sbuf a [4, 1024] u32\n"
      "sbuf b [4, 1024] u32\n"
      "memset a, 1\n"
      "memset b, 2\n"
      "tt a, a, b, add\n");
  DriverResult r = exact(p);
  const Placement &pa = *r.program.tensors[0].placement, &pb = *r.program.tensors[1].placement;
  EXPECT_NE(pa.partition, pb.partition);
  EXPECT_EQ(pa.offset + pb.offset, 0u);
  expectCorrectAllocation(p, r.program, "bands", 11);
  // Two 5-partition tensors may only start at partition 0 (4 + 5 > 8): they must stack, 2 x 2400 > 4096 bytes. Each
  // holds both 4-partition blocks, which the lower bound counts: 2 x 2 x 2400 / 2 blocks = 4800 bytes.
  std::string msg = refusal(parseProgram(
      "arch tiny\n"
      "sbuf a [5, 600] u32\n"
      "sbuf b [5, 600] u32\n"
      "memset a, 1\n"
      "memset b, 2\n"
      "tt a, a, b, add\n"));
  EXPECT_NE(msg.find("exact: no placement of 2 live SBUF tensors (8 partitions x bytes) fits in 4096 bytes (proved by "
                     "lower bound: lower bound 4800 bytes"),
            std::string::npos)
      << msg;
  // Three 3-partition tensors hold a block each, 3 x 2400 / 2 blocks = 3600 bytes pass the bound; but two of them
  // share a block and stack, 4800 > 4096 bytes. The search proves it.
  msg = refusal(parseProgram(
      "arch tiny\n"
      "sbuf a [3, 600] u32\n"
      "sbuf b [3, 600] u32\n"
      "sbuf c [3, 600] u32\n"
      "memset a, 1\n"
      "memset b, 2\n"
      "memset c, 3\n"
      "tt a, a, b, add\n"
      "tt a, a, c, add\n"));
  EXPECT_NE(msg.find("exact: no placement of 3 live SBUF tensors (8 partitions x bytes) fits in 4096 bytes (proved by search"),
            std::string::npos)
      << msg;
}

TEST(ExactAllocator, PsumBanksAndPinnedPlacements) {
  // tiny PSUM: 4 banks of 256 bytes. acc2 takes 2 banks, acc1 one; x is pinned to partition 4, byte 8.
  const Program p = parseProgram(
      "arch tiny\n"
      "sbuf s [8, 8] f32\n"
      "sbuf x [4, 4] f32 pinned @p4+8\n"
      "psum acc2 [8, 100] f32\n"
      "psum acc1 [8, 8] f32\n"
      "sbuf out [8, 8] f32\n"
      "memset s, 1\n"
      "memset x, 2\n"
      "matmul acc1, s, s, start, stop\n"
      "memset acc2, 0\n"
      "copy out, acc1\n"
      "copy out[0:4, 0:4], x\n"
      "copy out[:, 0:8], acc2[:, 0:8]\n");
  DriverResult r = exact(p);
  const Program& q = r.program;
  EXPECT_EQ(*q.tensors[1].placement, (Placement{4, 8, 0}));
  const uint32_t b2 = q.tensors[2].placement->bank, b1 = q.tensors[3].placement->bank;
  EXPECT_LE(b2 + 2, 4u);
  EXPECT_TRUE(b1 + 1 <= b2 || b2 + 2 <= b1);  // acc1 and acc2 are live together
  expectCorrectAllocation(p, q, "psum+pinned", 11);
}

// t1's two values: the partial write at the top of the loop body and its read, then the whole write below them,
// read after the loop. The whole write replaces everything on every iteration, so the second value is live from it
// to the read after the loop and never meets the first: split, t0 + one of t1's values + t2 need 2 * 1536 + 172 =
// 3244 of tiny's 4096 bytes, as t1 whole does, and the search places the values.
TEST(ExactAllocator, ValuesOfATensorPartlyRewrittenInALoopArePlacedSplit) {
  const Program p = parseProgram(
      "arch tiny\n"
      "sbuf t0 [8, 384] u32 pinned @p0+0\n"
      "sbuf t1 [8, 384] u32\n"
      "sbuf t2 [8, 43] u32\n"
      "dram o0 [8, 384] u32 output\n"
      "dram o1 [8, 43] u32 output\n"
      "dram o2 [8, 384] u32 output\n"
      "reg r\n"
      "memset t0, 53\n"
      "loop r = 0, 2, 1 {\n"
      "  memset t1[:, 0:43], 1\n"
      "  copy t2, t1[:, 0:43]\n"
      "  copy t1, t0\n"
      "}\n"
      "dma o0, t0\n"
      "dma o1, t2\n"
      "dma o2, t1\n");
  const DriverResult r = exact(p);
  EXPECT_EQ(r.program.tensors.size(), p.tensors.size() + 1);  // t1's second value is a tensor of its own
  expectCorrectAllocation(p, r.program, "split values", 12);
}

TEST(ExactAllocator, OptlevelSevenCompletesTheGivenPlacements) {
  Program p = parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/matmul_tiled.nki.txt"));
  TensorId given = kNone;
  for (TensorId t = 0; t < p.tensors.size() && given == kNone; ++t)
    if (p.tensors[t].space == Space::Sbuf && !p.tensors[t].placement) given = t;
  ASSERT_NE(given, kNone);
  p.tensors[given].placement = Placement{0, 4096, 0};  // unpinned: O7 keeps it (O2 may move it)
  const DriverResult r7 = exact(p, 7);
  EXPECT_EQ(*r7.program.tensors[given].placement, (Placement{0, 4096, 0}));
  EXPECT_NO_THROW(checkInPlace(r7.program));
  EXPECT_NO_THROW(checkInPlace(exact(p, 2).program));
}

// Every corpus kernel: gen2 kernels fit without reuse (O0 places them), so exact must place them too (checked by the
// in-place verifier; the driver tests run the three oracles on them at every optlevel); the tiny ones overfill the
// machine without reuse, and exact either places them without a spill, passing all three oracles, or proves it
// cannot.
TEST(ExactAllocator, CorpusKernelsPassAllThreeOraclesOrAreProvedImpossible) {
  size_t placed = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    const Program p = parseProgram(text);
    try {
      DriverResult r = exact(p);
      for (const Tensor& t : r.program.tensors) EXPECT_EQ(t.origin, Origin::Source) << file;  // never spills
      if (testing_placed::isTinyKernel(file)) expectCorrectAllocation(p, r.program, file, 11);
      else EXPECT_NO_THROW(checkInPlace(r.program)) << file;
      ++placed;
    } catch (const AllocError& e) {
      EXPECT_TRUE(testing_placed::isTinyKernel(file)) << file << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("proved"), std::string::npos) << file << ": " << e.what();
    }
  }
  EXPECT_GE(placed, 8u);
}

// A node budget (`--node-budget`, what the exact_driver fuzz target uses) ends the search the same way on every run,
// where a time limit depends on the machine; and it belongs to the exact allocator only.
TEST(ExactAllocator, ANodeBudgetGivesUpTheSameWayEveryRun) {
  const Program p = importMinimalloc(benchmark("A.1048576.csv"), 1048576);
  DriverOptions o;
  o.allocator = "exact";
  o.node_budget = 1;
  o.time_limit_s = 1e9;
  auto refusal = [&] {
    try {
      allocate(p, o);
    } catch (const AllocError& e) {
      return std::string(e.what());
    }
    return std::string("fits");
  };
  const std::string first = refusal();
  EXPECT_NE(first.find("found in the node budget of 1 ("), std::string::npos) << first;
  EXPECT_NE(first.find("not proved impossible"), std::string::npos) << first;
  EXPECT_EQ(refusal(), first);
  o.allocator = "";
  EXPECT_THROW(allocate(p, o), OptionError);
}

// Three 3-partition SBUF tensors of 2400 bytes on the tiny machine (8 partitions, bands start at partition 0 or 4,
// 4096 bytes): two tensors live together in one band cannot stack (4800 > 4096), so three live together do not fit.
// `a` is read on every iteration, so it is live with `b` and with `c`; `b` is written and read on the first
// iteration only, `c` on the second only, so they are never live together. The live ranges of `b` and `c` overlap
// (the `if` blocks interleave), and no placement keeps all three pairs apart; the search over them said "proved". The
// answer by hand: `a` in one band, `b` and `c` both in the other.
constexpr const char* kInterleavedIfs =
    "arch tiny\n"
    "reg i\n"
    "dram O [3, 600] u32 output\n"
    "sbuf a [3, 600] u32\n"
    "sbuf b [3, 600] u32\n"
    "sbuf c [3, 600] u32\n"
    "memset a, 1\n"
    "loop i = 0, 2, 1 {\n"
    "  if i == 0 {\n"
    "    memset b, 2\n"
    "  }\n"
    "  if i == 1 {\n"
    "    memset c, 3\n"
    "  }\n"
    "  if i == 0 {\n"
    "    tt a, a, b, add\n"
    "  }\n"
    "  if i == 1 {\n"
    "    tt a, a, c, add\n"
    "  }\n"
    "}\n"
    "dma O, a\n";

TEST(ExactAllocator, NoProofFromLiveRangesThatNoRunHasTogether) {
  const Program p = parseProgram(kInterleavedIfs);
  // Over the live ranges nothing fits: what used to be reported as proved.
  EXPECT_EQ(solveExact(exactProblemOfSpace(p, Space::Sbuf)).status, ExactStatus::NoFit);
  // Without the placement oracle to judge the placement over the tensors live together for certain: no proof.
  const std::string msg = refusal(p, false);
  EXPECT_NE(msg.find("not proved impossible"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("(proved by"), std::string::npos) << msg;
  // With it: placed as by hand, and the oracles accept it.
  const DriverResult r = exact(p);
  auto at = [&](const char* name) { return *r.program.tensors[r.program.findTensor(name)].placement; };
  EXPECT_NE(at("a").partition, at("b").partition);
  EXPECT_EQ(at("b").partition, at("c").partition);
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_TRUE(at(name).partition == 0 || at(name).partition == 4) << name;
    EXPECT_LE(at(name).offset + 2400, 4096u) << name;
  }
  expectCorrectAllocation(p, r.program, "interleaved ifs", 21);
}

// The same program with a register loaded from tensor data: the placement oracle's one run no longer stands for
// every input, so the placement over the tensors live together for certain is not accepted, and nothing is proved.
TEST(ExactAllocator, NoPlacementFromOneRunWhenARegisterIsLoadedFromData) {
  std::string text = kInterleavedIfs;
  text.replace(text.find("reg i\n"), 6, "reg i\nreg n\ndram N [1, 1] u32 input\n");
  text.replace(text.find("memset a, 1\n"), 12, "memset a, 1\nreg_load n, N\n");
  const std::string msg = refusal(parseProgram(text));
  EXPECT_NE(msg.find("not proved impossible"), std::string::npos) << msg;
  EXPECT_NE(msg.find("loaded from tensor data"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("(proved by"), std::string::npos) << msg;
}

// The same with both writes on the first iteration: `b` and `c` are live together there, so three bands are needed
// and there are two. No pair is live together for certain at one step (the `if` blocks may not run), but the
// placement oracle finds each pair live together in the run: the search over those pairs proves it.
TEST(ExactAllocator, PairsTheOracleFindsLiveTogetherProve) {
  std::string text = kInterleavedIfs;
  for (size_t at = text.find("i == 1"); at != std::string::npos; at = text.find("i == 1")) text.replace(at, 6, "i == 0");
  const std::string msg = refusal(parseProgram(text));
  EXPECT_NE(msg.find("exact: no placement of 3 live SBUF tensors (8 partitions x bytes) fits in 4096 bytes (proved by "
                     "search"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("the 3 pairs the placement oracle found live together"), std::string::npos) << msg;
}

}  // namespace
}  // namespace allocsim
