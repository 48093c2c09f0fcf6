// tools/report_format.h: the colorers' counters printed as the production allocator's report lines and fields, in
// the order the rounds happened.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "alloc/driver.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "ir/parse.h"
#include "tests/common/program_text.h"
#include "tools/report.h"
#include "tools/report_format.h"

namespace allocsim {
namespace {

using cli::formatPsum;
using cli::formatSbuf;
using cli::formatStep;

TEST(ReportFormat, SbufLinesWhenEverythingFits) {
  const Program p = parseProgram(kTinyLoadAddStore);
  const AllocReport r = formatSbuf(allocateSbuf(p).stats);
  // No loop: nothing is kept apart (rotation_bytes 0).
  EXPECT_EQ(r.lines, std::vector<std::string>({
                         "800% SB demand before allocation",
                         // a and b: 8 partitions x 256 bytes each, both live at the tt; tiny: 8 x 4096 bytes
                         "SB demand: 4096 bytes summed over all SB tensors (at most 4096 live at once) against "
                         "a capacity of 32768 bytes; the line above is the production compiler's ratio capacity / demand = "
                         "800%, i.e. demand is 12.5% of capacity",
                         "SB score = 0.12 (lower is better)",
                         "best SB heuristic = largest-first/lowest-offset",
                         "spilling from SB cost about 0 cycles",
                         "number of tensors spilled from SB = 0",
                         "12.5% SB utilization after allocation",
                         "SB utilization: 4096 of 32768 bytes: each partition's high-water mark (largest offset + "
                         "size), summed over the partitions",
                     }));
  EXPECT_EQ(reportToJson(r),
            "{\"sbuf.demand_before_allocation_pct\": 800, \"sbuf.capacity_bytes\": 32768, \"sbuf.demand_bytes\": 4096, "
            "\"sbuf.max_live_bytes\": 4096, \"sbuf.score\": 0.124996, \"sbuf.best_heuristic\": "
            "\"largest-first/lowest-offset\", \"sbuf.spill_cost_cycles\": 0, \"sbuf.tensors_spilled\": 0, "
            "\"sbuf.spill_stores\": 0, \"sbuf.spill_reloads\": 0, \"sbuf.spill_bytes\": 0, \"sbuf.footprint_bytes\": "
            "4096, \"sbuf.rotation_bytes\": 0, \"sbuf.headroom_bytes\": 0, \"sbuf.utilization_pct\": 12.5, "
            "\"sbuf.rounds\": 1}");
}

// Each copy live-range splitting inserted is named, with the tensor it splits and where, traced or not (what
// `alloc -v` prints); the load headroom's bytes are counted apart from the footprint's.
TEST(ReportFormat, SbufLinesNameTheSplitCopiesAndTheHeadroom) {
  SbufStats s;
  s.capacity_bytes = 32768;
  s.footprint_bytes = 4096;
  s.rotation_bytes = 1024;
  s.headroom_bytes = 2048;
  s.split_copies = 1;
  s.split_log = {{"c", "c_Split1", 11}};
  for (const bool traced : {false, true}) {
    s.trace.on = traced;
    const AllocReport r = formatSbuf(s);
    EXPECT_EQ(std::count(r.lines.begin(), r.lines.end(),
                         "live-range split: copy 'c_Split1' of 'c' inserted after line 11; the later mentions of 'c' "
                         "use the copy"),
              1)
        << traced;
    EXPECT_EQ(r.lines.back(),
              "SB utilization: 7168 of 32768 bytes: each partition's high-water mark (largest offset + size), summed "
              "over the partitions; 1024 of them below the peak, from keeping a loop's freshly freed bytes apart; "
              "2048 of them above it, from the loads moved into the load headroom");
  }
}

// A traced PSUM colorer of two rounds: the banner, each round's heuristics with their failures and scores, the
// spills, the demand right after the first round's banner (where it is measured), and the final selection repeated.
TEST(ReportFormat, PsumTraceInTheOrderOfTheRounds) {
  using namespace colorer_event;
  PsumStats s;
  s.demand_pct = 50;
  s.banks = 2;
  s.bank_demand = 4;
  s.max_concurrent_banks = 3;
  s.trace.on = true;
  s.trace.events = {RoundStart{1},
                    Tried{{"tensor-order", false}, WorklistSizes{1, 2, 0}, {{"acc", 1, 0}}, 1.5},
                    RoundBest{{"tensor-order", false}},
                    Spilled{{"acc"}, {}},
                    Inserted{1, 2},
                    RoundStart{2},
                    Tried{{"tensor-order", true}, std::nullopt, {}, 1},
                    RoundBest{{"tensor-order", true}}};
  s.outcome = {1, {"tensor-order", true}, 12.5, 1, 100, 2};
  s.spill_saves = 1;
  s.spill_reloads = 2;
  s.banks_used = 2;
  const AllocReport r = formatPsum(s);
  EXPECT_EQ(r.lines, std::vector<std::string>({
                         " allocating PSUM",
                         "spill round 1",
                         "50% PSUM demand before spilling",
                         "PSUM demand: 4 banks summed over all PSUM tensors (at most 3 live at once) against a capacity "
                         "of 2 banks; the line above is the production compiler's ratio capacity / demand = 50%, i.e. "
                         "demand is 200% of capacity",
                         "best-of-n loop, heuristic = tensor-order",
                         "            lo = 1",
                         "            hi = 2",
                         "            inf = 0",
                         "            total = 3",
                         "acc cannot allocate 1 banks",
                         "PSUM score = 1.5 (lower is better)",
                         "best PSUM heuristic = tensor-order",
                         "spill acc",
                         "insert spill 1, insert reload 2",
                         "spill round 2",
                         "best-of-n loop, heuristic = tensor-order (plain order)",
                         "PSUM score = 1 (lower is better)",
                         "best PSUM heuristic = tensor-order (plain order)",
                         "final selection (spill round 2 of 2):",
                         "PSUM score = 1 (lower is better)",
                         "best PSUM heuristic = tensor-order (plain order)",
                         "spilling from PSUM cost about 12.5 cycles",
                         "number of tensors spilled from PSUM = 1",
                         "100% PSUM utilization after allocation",
                         "PSUM utilization: 2 of 2 banks hold a tensor that is live at some point",
                     }));
  // Untraced: the demand first, no banner, no per-round lines, no repeated final selection.
  s.trace = {};
  const AllocReport quiet = formatPsum(s);
  ASSERT_EQ(quiet.lines.size(), 8u);
  EXPECT_EQ(quiet.lines[0], "50% PSUM demand before spilling");
  EXPECT_EQ(quiet.lines[2], "PSUM score = 1 (lower is better)");
  EXPECT_EQ(quiet.fields, r.fields);
}

// The REG colorer's rounds: every round's number and score, and with the trace the registers it spilled.
TEST(ReportFormat, RegRoundsThenTheSummary) {
  RegStats s;
  s.rounds = 2;
  s.spilled = 2;
  s.spill_cycles = 2564;
  s.utilization_pct = 100;
  s.traced = true;
  s.round_log = {{12.3456, 3, {"a", "b"}}, {0.5, 0, {}}};
  EXPECT_EQ(formatStep(s).lines, std::vector<std::string>({
                                     "REG GCA interation nums = 1",
                                     "REG score = 12.346 (lower is better)",
                                     "REG round 1: 3 uncolored, spilling a, b",
                                     "REG GCA interation nums = 2",
                                     "REG score = 0.5 (lower is better)",
                                     "Number of registers spilled = 2",
                                     "Spilling from REG cost about 2564 cycles",
                                     "100% REG utilization after allocation",
                                 }));
  s.traced = false;
  EXPECT_EQ(formatStep(s).lines.size(), 7u);
  EXPECT_EQ(formatStep(s).fields.front().value, "reg");
}

TEST(AllocReport, FieldsReplaceInPlaceAndPrintAsJson) {
  AllocReport r;
  r.set("a", int64_t(3));
  r.set("b", 37.5);
  r.set("c", std::string("say \"hi\""));
  r.set("a", int64_t(4));
  r.set("d", std::numeric_limits<double>::infinity());
  EXPECT_EQ(reportToJson(r), "{\"a\": 4, \"b\": 37.5, \"c\": \"say \\\"hi\\\"\", \"d\": \"inf\"}");
  EXPECT_EQ(formatReportNumber(100.0), "100");
  EXPECT_EQ(formatReportNumber(2.0 / 3.0), "0.67");
  EXPECT_EQ(formatReportNumber(-0.0), "0");
}

TEST(ReportFormat, EachStepNamesItselfFirst) {
  NoReuseStats n{3, 1};
  const AllocReport r = formatStep(n);
  EXPECT_EQ(r.lines, std::vector<std::string>({"no-reuse placement (O0): 3 SBUF and 1 PSUM tensors, each in storage "
                                               "of its own"}));
  EXPECT_EQ(reportToJson(r), "{\"allocator\": \"no-reuse\", \"no_reuse.sbuf_tensors\": 3, \"no_reuse.psum_tensors\": 1}");
  EXPECT_EQ(reportToJson(formatStep(ValueSplitStats{1, 2})),
            "{\"allocator\": \"values\", \"values.split_tensors\": 1, \"values.added_tensors\": 2}");
  EXPECT_EQ(formatStep(ValueSplitStats{1, 1}).lines.at(0),
            "1 tensor with several values split into 1 more tensor, one per value");
  EXPECT_EQ(formatStep(InPlaceStats{4, 2, false, 9}).lines,
            std::vector<std::string>({"fixed assignment (O7): 4 tensor and 2 register placements reproduced from the "
                                      "input; no PSUM coloring pass; SBUF pass skipped",
                                      "in-place write checker: 9 placements re-placed, no conflict"}));
  EXPECT_EQ(cli::formatLiveness(LivenessStats{2, 1, 0}).lines.at(0),
            "3 (tensor, loop) back-edge questions decided from the views: 2 per iteration, 1 loop-carried, 0 "
            "undecidable (kept live over the loop: the conservative rule)");
}

}  // namespace
}  // namespace allocsim
