#include "alloc/colorer_report.h"

namespace allocsim {
namespace {

std::string num(double v) { return formatReportNumber(v, 2); }

}  // namespace

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
  if (!s.verbose) {  // verbose reports have these per round already, the last round's being the final
    r.line(colorerScoreLine(s.memory, s.score));
    r.line(colorerBestHeuristicLine(s.memory, s.heuristic));
  }
  r.line("spilling from " + s.memory + " cost about " + num(s.spill_cycles) + " cycles");
  r.line("number of tensors spilled from " + s.memory + " = " + std::to_string(s.spilled));
  r.line(num(s.utilization) + "% " + s.memory + " utilization after allocation");
  r.set(s.key + ".score", s.score);
  r.set(s.key + ".best_heuristic", s.heuristic);
  r.set(s.key + ".spill_cost_cycles", s.spill_cycles);
  r.set(s.key + ".tensors_spilled", int64_t(s.spilled));
  for (const auto& [key, value] : s.own_fields) r.set(s.key + "." + key, value);
  r.set(s.key + ".utilization_pct", s.utilization);
  r.set(s.key + ".rounds", int64_t(s.rounds));
}

}  // namespace allocsim
