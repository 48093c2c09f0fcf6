// The report lines and fields that the PSUM and SBUF colorers write in the same words (the production
// allocator's log lines, naming the memory "PSUM" or "SB"): shared because both run one Chaitin–Briggs skeleton and
// their reports are read line for line.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "alloc/report.h"
#include "alloc/worklist_sizes.h"

namespace allocsim {

// The plain line beside the production allocator's "<ratio>% <memory> demand before ..." line, whose ratio is
// capacity / demand (so 800% means the demand is an eighth of the capacity): what the demand and the capacity are, in
// `unit`.
std::string colorerDemandPlainLine(const std::string& memory, const std::string& unit, uint64_t demand,
                                   uint64_t max_live, uint64_t capacity);

// "<memory> score = <score> (lower is better)"
std::string colorerScoreLine(const std::string& memory, double score);

// "best <memory> heuristic = <heuristic>"
std::string colorerBestHeuristicLine(const std::string& memory, const std::string& heuristic);

// Simplify's worklist sizes and their total, one indented line each (verbosity 2).
void reportWorklistSizes(AllocReport& r, const WorklistSizes& sizes);

struct ColorerSummary {
  std::string memory;  // "PSUM" or "SB", as in the lines
  std::string key;     // the fields' prefix: "psum" or "sbuf"
  double score = 0;    // of the final round's best selection
  std::string heuristic;  // which won it
  double spill_cycles = 0;
  uint32_t spilled = 0;     // tensors spilled over all rounds
  double utilization = 0;   // percent
  uint32_t rounds = 0;
  bool verbose = false;     // the score and heuristic lines are already there, per round
  // The colorer's own integer fields (key without the prefix, value), in order.
  std::vector<std::pair<std::string, int64_t>> own_fields;
  std::string utilization_meaning;  // what the utilization divides, printed as a plain line beside it
};

// The closing lines, then the fields <key>.score, .best_heuristic, .spill_cost_cycles,
// .tensors_spilled, the own fields, .utilization_pct and .rounds.
void reportColorerSummary(AllocReport& r, const ColorerSummary& s);

}  // namespace allocsim
