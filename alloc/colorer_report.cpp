#include "alloc/colorer_report.h"

namespace allocsim {
namespace {

std::string num(double v) { return formatReportNumber(v, 2); }

}  // namespace

std::string colorerDemandPlainLine(const std::string& memory, const std::string& unit, uint64_t demand,
                                   uint64_t max_live, uint64_t capacity) {
  if (demand == 0) return memory + " demand: none (no " + memory + " tensor is live), so the line above says 100%";
  return memory + " demand: " + std::to_string(demand) + " " + unit + " summed over all " + memory +
         " tensors (at most " + std::to_string(max_live) + " live at once) against a capacity of " +
         std::to_string(capacity) + " " + unit + "; the line above is the production compiler's ratio capacity / demand = " +
         num(100.0 * double(capacity) / double(demand)) + "%, i.e. demand is " +
         num(100.0 * double(demand) / double(capacity ? capacity : 1)) + "% of capacity";
}

std::string colorerScoreLine(const std::string& memory, double score) {
  return memory + " score = " + num(score) + " (lower is better)";
}

std::string colorerBestHeuristicLine(const std::string& memory, const std::string& heuristic) {
  return "best " + memory + " heuristic = " + heuristic;
}

void reportWorklistSizes(AllocReport& r, const WorklistSizes& sizes) {
  r.line("            lo = " + std::to_string(sizes.lo));
  r.line("            hi = " + std::to_string(sizes.hi));
  r.line("            inf = " + std::to_string(sizes.inf));
  r.line("            total = " + std::to_string(sizes.lo + sizes.hi + sizes.inf));
}

void reportColorerSummary(AllocReport& r, const ColorerSummary& s) {
  // Verbose reports have these per heuristic and round already; the final ones are repeated here, so that every
  // verbosity ends on the same score (the one the fields hold).
  if (s.verbose) r.line("final selection (spill round " + std::to_string(s.rounds) + " of " + std::to_string(s.rounds) + "):");
  r.line(colorerScoreLine(s.memory, s.score));
  r.line(colorerBestHeuristicLine(s.memory, s.heuristic));
  r.line("spilling from " + s.memory + " cost about " + num(s.spill_cycles) + " cycles");
  r.line("number of tensors spilled from " + s.memory + " = " + std::to_string(s.spilled));
  r.line(num(s.utilization) + "% " + s.memory + " utilization after allocation");
  r.line(s.memory + " utilization: " + s.utilization_meaning);
  r.set(s.key + ".score", s.score);
  r.set(s.key + ".best_heuristic", s.heuristic);
  r.set(s.key + ".spill_cost_cycles", s.spill_cycles);
  r.set(s.key + ".tensors_spilled", int64_t(s.spilled));
  for (const auto& [key, value] : s.own_fields) r.set(s.key + "." + key, value);
  r.set(s.key + ".utilization_pct", s.utilization);
  r.set(s.key + ".rounds", int64_t(s.rounds));
}

}  // namespace allocsim
