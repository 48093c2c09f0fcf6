// Progress of long runs: the executors report every kProgressSteps steps with what they do, the
// allocators each spill round, scan or block of search nodes, and the command line's progress line shows it only
// after a second, at most five times a second, and erases itself.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "alloc/driver.h"
#include "alloc/exact/exact_search.h"
#include "alloc/exact/minimalloc_problem.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "ir/interp.h"
#include "ir/minimalloc_csv.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/cli_run.h"
#include "tests/common/placed_program_checks.h"
#include "tools/progress_line.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// 150,000 loop iterations of one addi: 300,001 steps (each iteration is a step, as its body instruction is).
const char kLongProgram[] =
    "arch tiny\n"
    "reg i\nreg x\n"
    "dram out [1, 1] u32 output\n"
    "sbuf t [1, 1] u32 @p0+0\n"
    "li x, 0\n"
    "loop i = 0, 150000, 1 {\n"
    "  addi x, x, 3\n"
    "}\n"
    "memset t, 7\n"
    "dma out, t\n";

struct Seen {
  std::vector<std::pair<std::string, uint64_t>> calls;
  std::vector<std::string> units;
  ProgressFn fn = [this](const char* phase, uint64_t done, const char* unit) {
    calls.emplace_back(phase, done);
    units.emplace_back(unit);
  };
  bool has(const std::string& phase, uint64_t done) const {
    for (const auto& c : calls)
      if (c.first == phase && c.second == done) return true;
    return false;
  }
};

// a (3 KiB per partition) is live from its load to its last add, b (2 KiB) in between: on the tiny machine's 4 KiB
// partitions they do not fit together, so the colorers spill a around b (a second round at least).
const char kPressure[] =
    "arch tiny\n"
    "dram X [8, 768] f32 input\n"
    "dram Y [8, 512] f32 output\n"
    "dram Z [8, 768] f32 output\n"
    "sbuf a [8, 768] f32\n"
    "sbuf b [8, 512] f32\n"
    "psum acc [8, 8] f32\n"
    "dma a, X\n"
    "dma b, X[:, 0:512]\n"
    "memset acc, 0\n"
    "copy b[:, 0:8], acc\n"
    "tt b, b, b, add\n"
    "dma Y, b\n"
    "tt a, a, a, add\n"
    "dma Z, a\n";

TEST(Progress, TheInterpreterReportsEveryBlockOfSteps) {
  Program p = parseProgram(kLongProgram);
  Seen seen;
  InterpOptions o;
  o.progress = &seen.fn;
  InterpResult r = interpret(p, o);
  ASSERT_EQ(r.steps, 1u + 2u * 150000u + 2u);
  ASSERT_EQ(seen.calls.size(), r.steps / kProgressSteps);  // 4: at 65,536, 131,072, 196,608 and 262,144 steps
  for (size_t i = 0; i < seen.calls.size(); ++i) {
    EXPECT_EQ(seen.calls[i].first, "interpreting");
    EXPECT_EQ(seen.calls[i].second, (i + 1) * kProgressSteps);
  }
}

TEST(Progress, VerifyNamesEachOracleAndTheSimulatorReportsToo) {
  Program p = parseProgram(kLongProgram);
  for (Register& r : p.registers) r.phys = uint32_t(&r - p.registers.data());
  Seen seen;
  VerifyOptions vo;
  vo.progress = &seen.fn;
  vo.poison_seed = 1;
  VerifyReport report = verifyAllocated(p, vo);
  EXPECT_TRUE(report.ok());
  std::vector<std::string> phases;
  for (const auto& [phase, done] : seen.calls)
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
  EXPECT_EQ(phases, (std::vector<std::string>{"equivalence oracle: the reference",
                                                "equivalence oracle: the allocated program", "symbolic oracle",
                                                "placement oracle"}));
  Seen sim_seen;
  sim::SimOptions so;
  so.progress = &sim_seen.fn;
  sim::SimResult s = sim::simulate(p, so);
  EXPECT_EQ(sim_seen.calls.size(), s.exec.steps / kProgressSteps);
  for (const auto& [phase, done] : sim_seen.calls) EXPECT_EQ(phase, "simulating");
}

TEST(Progress, TheAllocatorsReportTheirSpillRoundsScansAndSearchNodes) {
  const Program p = parseProgram(kPressure);
  Seen colored;
  DriverOptions o2;
  o2.progress = &colored.fn;
  allocate(p, o2);
  // Every heuristic of O2's sweep starts its spill fixpoint with round 1 and names itself; the first one spills
  // (a and b cannot share a 4 KiB partition), so it has a round 2.
  const uint32_t n = effortFor(2).sbuf_heuristics;
  for (uint32_t k = 0; k < n; ++k)
    EXPECT_TRUE(colored.has("SBUF colorer, heuristic " + std::to_string(k + 1) + " of " + std::to_string(n) + " (" +
                                sbufHeuristicName(sbufHeuristic(k)) + ")",
                            1))
        << k;
  EXPECT_TRUE(colored.has("SBUF colorer, heuristic 1 of " + std::to_string(n) + " (" +
                              sbufHeuristicName(sbufHeuristic(0)) + ")",
                          2));
  EXPECT_TRUE(colored.has("PSUM colorer", 1));
  for (const std::string& unit : colored.units) EXPECT_EQ(unit, "spill rounds");

  Seen scanned;
  DriverOptions o8;
  o8.optlevel = 8;
  o8.progress = &scanned.fn;
  allocate(p, o8);
  EXPECT_TRUE(scanned.has("linear scan, PSUM", 1));
  EXPECT_TRUE(scanned.has("linear scan, SBUF", 1));
  EXPECT_TRUE(scanned.has("linear scan, SBUF", 2));  // rescanned after a spill
  for (const std::string& unit : scanned.units) EXPECT_EQ(unit, "scans");

  // minimalloc's benchmark I at its capacity: first fit does not fit it, so the search runs (its nodes are reported
  // every 256), and stops after the first round of preorders that passes 300 nodes in all.
  const MinimallocProblem bench =
      parseMinimallocCsv(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/bench/minimalloc/I.1048576.csv"));
  const ExactProblem hard = exactProblemOf(bench, 1048576);
  Seen searched;
  ExactSearchOptions eo;
  eo.progress = &searched.fn;
  eo.node_budget = 300;
  solveExact(hard, eo);
  // The setup's calls (buffers, "exact search setup: ..."), then the search's, from its 256th node.
  size_t first_node = 0;
  while (first_node < searched.calls.size() && searched.units[first_node] == "buffers") {
    EXPECT_EQ(searched.calls[first_node].first.rfind("exact search setup: ", 0), 0u) << searched.calls[first_node].first;
    ++first_node;
  }
  ASSERT_LT(first_node, searched.calls.size());
  EXPECT_EQ(searched.calls[first_node].second, 256u);
  EXPECT_EQ(searched.units[first_node], "nodes");
  EXPECT_EQ(searched.calls[first_node].first.rfind("exact search, preorder ", 0), 0u) << searched.calls[first_node].first;
}

TEST(Progress, TheLineWaitsASecondThenAFifthAndErasesItself) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  double now = 0;
  {
    cli::ProgressLine line("verify", true, f, [&] { return now; });
    ASSERT_NE(line.fn(), nullptr);
    now = 0.9;
    line.report("symbolic oracle", 65536, "steps");  // not yet: under a second
    now = 1.0;
    line.report("symbolic oracle", 1234567, "steps");
    now = 1.1;
    line.report("symbolic oracle", 1300000, "steps");  // too soon after the last
    now = 1.25;
    line.report("placement oracle", 65536, "steps");
  }  // erased here
  std::rewind(f);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  EXPECT_EQ(text,
            "\r\033[Kallocsim verify: symbolic oracle: 1,234,567 steps (1.0 s)"
            "\r\033[Kallocsim verify: placement oracle: 65,536 steps (1.2 s)"
            "\r\033[K");
  cli::ProgressLine off("verify", false);
  EXPECT_EQ(off.fn(), nullptr);
}

// Not a terminal here, so no line either way: what is checked is that every verb with a long run takes --quiet.
TEST(Progress, LongRunningVerbsTakeQuiet) {
  EXPECT_EQ(allocsim("verify corpus/allocated/spill_reload.nki.txt --quiet", "2>&1 >/dev/null").exit_code, 0);
  EXPECT_EQ(allocsim("interp corpus/kernels/looped_add_tiny.nki.txt --quiet").exit_code, 0);
  EXPECT_EQ(allocsim("run corpus/kernels/looped_add_tiny.nki.txt --quiet").exit_code, 0);
  CliRun alloc = allocsim("alloc corpus/kernels/looped_add_tiny.nki.txt -O2 --verify --quiet", "2>&1 >/dev/null");
  EXPECT_EQ(alloc.exit_code, 0) << alloc.out;
  const std::string out = testing::TempDir() + "progress_quiet_failures";
  EXPECT_EQ(allocsim("fuzz-allocator --runs 1 --no-kernels --quiet --out " + out + " -- /bin/false", "2>&1 >/dev/null")
                .exit_code,
            1);
}

}  // namespace
}  // namespace allocsim
