#include "tools/fuzz_allocator_report.h"

#include <cstdio>

#include "harness/failure_files.h"
#include "ir/print.h"
#include "tools/verify_report.h"

namespace allocsim::cli {
namespace {

std::string fixed(double v, int digits = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

double rate(const CampaignProgress& p) { return p.seconds > 0 ? double(p.cases) / p.seconds : 0; }

std::string indentedProgram(const Program& p) {
  std::string text = printProgram(p), out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out += nl == at ? "\n" : "      " + text.substr(at, nl - at) + "\n";
    at = nl + 1;
  }
  return out;
}

std::string sourceText(const CaseInput& in) {
  return in.generated ? "generated seed " + std::to_string(in.seed) + " (size " + std::to_string(in.size) +
                            ", pressure " + std::to_string(in.pressure) + ")"
                      : in.source;
}

}  // namespace

std::string fuzzProgressLine(const CampaignProgress& p) {
  return "fuzz-allocator: " + std::to_string(p.cases) + " cases, " + std::to_string(p.failed) + " failed, " +
         std::to_string(p.refused) + " refused, " + fixed(rate(p)) + " cases/s";
}

std::string fuzzReportText(const CampaignResult& r, const FuzzReportContext& c) {
  const CampaignProgress& t = r.totals;
  std::string s = "fuzz-allocator: " + std::to_string(t.cases) + " cases in " + fixed(t.seconds) + " s (" +
                  fixed(rate(t)) + " cases/s): " + std::to_string(t.passed) + " passed, " +
                  std::to_string(t.refused) + " refused, " + std::to_string(t.failed) + " failed\n";
  if (r.simulated > 0)
    s += "fuzz-allocator: " + std::to_string(r.simulated) + " outputs simulated, agreeing with the interpreter: " +
         std::to_string(r.simulated_cycles) + " cycles in total, " +
         std::to_string(r.simulated_cycles / r.simulated) + " per output\n";
  if (t.refused > 0)
    s += "fuzz-allocator: " + std::to_string(r.refused_placeable) + " of the " + std::to_string(t.refused) +
         " refused cases fit without a spill (allocsim's greedy placer places them)\n";
  if (t.cases > 0 && t.refused == t.cases)
    s += "fuzz-allocator: note: the allocator refused every case (exit code 3): nothing was checked\n";
  if (t.failed == 0) return s;
  s += "fuzz-allocator: FAILED: failures by kind:";
  for (const auto& [kind, n] : r.failures_by_kind) s += " " + kind + " " + std::to_string(n);
  s += "; first after " + fixed(r.first_failure_seconds.value_or(0), 2) + " s\n";
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const FailureRecord& f = r.failures[i];
    if (!f.first_of_kind) continue;
    s += "  " + f.outcome.kind.name() + " on " + sourceText(f.input) + ": " + f.outcome.message + "\n";
    const CaseOutcome& shown = f.shrunk || f.fails_on_every_input ? f.minimal_outcome : f.outcome;
    if (!shown.placements.empty()) {
      s += "    the allocator placed the tensors involved" +
           std::string(f.shrunk || f.fails_on_every_input ? " (in the reproducer's output)" : "") + ":\n";
      for (size_t at = 0; at < shown.placements.size();) {
        size_t nl = shown.placements.find('\n', at);
        if (nl == std::string::npos) nl = shown.placements.size();
        s += "      " + shown.placements.substr(at, nl - at) + "\n";
        at = nl + 1;
      }
    }
    if (f.flaky) {
      s += "    FLAKY: re-running the same input gave";
      for (const CaseOutcome& o : f.reruns) s += std::string(" ") + caseStatusName(o.status) + (o.kind.none() ? "" : " " + o.kind.name()) + ";";
      s += " not shrunk\n";
    } else if (f.fails_on_every_input) {
      s += "    fails on every input: even the smallest program (one SBUF element set to 0) fails this way: " +
           f.minimal_outcome.message + "\n";
    } else if (f.shrunk) {
      s += "    shrunk from " + std::to_string(f.instructions_before) + " to " + std::to_string(f.instructions_after) +
           " instructions in " + fixed(f.shrink.seconds, 2) + " s (" + std::to_string(f.shrink.attempts) +
           " candidates" + (f.candidate_timeout > 0 ? ", each given " + fixed(f.candidate_timeout, 1) + " s" : "") +
           ")" + (f.shrink.budget_exhausted ? ", shrink budget used up" : "") + ": " + f.minimal_outcome.message +
           "\n";
      s += indentedProgram(f.minimal);
    }
    if (i < c.files.size() && !c.files[i].empty()) {
      const std::string base = c.files[i].substr(0, c.files[i].size() - std::string(".nki.txt").size());
      s += "    written to " + c.files[i] + " (details: " + base + ".txt)\n";
      s += "    rerun: " + rerunCommand(c.command, base) + "\n";
      if (!f.minimal_outcome.output.empty()) s += "    check: " + checkCommand(f, base) + "\n";
    }
  }
  return s;
}

std::string fuzzReportJson(const CampaignResult& r, const FuzzReportContext& c) {
  const CampaignProgress& t = r.totals;
  const CampaignOptions& o = *c.options;
  std::string s = "{\"command\": " + jsonString(c.command) + ", \"seed\": " + std::to_string(o.seed) +
                  ", \"arch\": " + jsonString(o.gen.arch.name) + ",\n \"cases\": " + std::to_string(t.cases) +
                  ", \"passed\": " + std::to_string(t.passed) + ", \"refused\": " + std::to_string(t.refused) +
                  ", \"refused_placeable\": " + std::to_string(r.refused_placeable) +
                  ", \"failed\": " + std::to_string(t.failed) + ", \"flaky\": " + std::to_string(r.flaky) +
                  ", \"seconds\": " + fixed(t.seconds, 3) + ", \"cases_per_second\": " + fixed(rate(t), 1) +
                  ", \"allocator_seconds\": " + fixed(r.allocator_seconds, 3) + ", \"simulated\": " +
                  std::to_string(r.simulated) + ", \"simulated_cycles\": " + std::to_string(r.simulated_cycles) +
                  ", \"first_failure_seconds\": " +
                  (r.first_failure_seconds ? fixed(*r.first_failure_seconds, 3) : "null") +
                  ",\n \"failures_by_kind\": {";
  bool first = true;
  for (const auto& [kind, n] : r.failures_by_kind) {
    s += std::string(first ? "" : ", ") + jsonString(kind) + ": " + std::to_string(n);
    first = false;
  }
  s += "},\n \"failures\": [";
  first = true;
  for (size_t i = 0; i < r.failures.size(); ++i) {
    const FailureRecord& f = r.failures[i];
    if (!f.first_of_kind) continue;
    s += std::string(first ? "\n  " : ",\n  ") + "{\"kind\": " + jsonString(f.outcome.kind.name()) +
         ", \"message\": " + jsonString(f.outcome.message) + ", \"source\": " + jsonString(f.input.source) +
         ", \"seed\": " + std::to_string(f.input.seed) + ", \"input_seed\": " +
         std::to_string(f.input.seeds.input_seed) + ", \"poison_seed\": " + std::to_string(f.input.seeds.poison_seed) +
         (f.input.generated ? ", \"regenerate\": " + jsonString(regenerateCommand(f.input, f.input.program.arch)) : "") +
         ", \"flaky\": " + (f.flaky ? "true" : "false") + ", \"shrunk\": " + (f.shrunk ? "true" : "false") +
         ", \"fails_on_every_input\": " + (f.fails_on_every_input ? "true" : "false") +
         ", \"placements\": " + jsonString(f.minimal_outcome.placements) +
         ", \"instructions_before\": " + std::to_string(f.instructions_before) +
         ", \"instructions_after\": " + std::to_string(f.instructions_after) +
         ", \"shrink_seconds\": " + fixed(f.shrink.seconds, 3) + ", \"shrink_candidates\": " +
         std::to_string(f.shrink.attempts) + ", \"minimal_message\": " + jsonString(f.minimal_outcome.message) +
         ", \"file\": " + jsonString(i < c.files.size() ? c.files[i] : "") + ", \"program\": " +
         jsonString(printProgram(f.minimal)) + "}";
    first = false;
  }
  s += first ? "]}\n" : "\n ]}\n";
  return s;
}

}  // namespace allocsim::cli
