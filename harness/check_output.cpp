#include "harness/check_output.h"

#include <algorithm>

#include "harness/simulated_run.h"
#include "ir/parse.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

void fail(CaseOutcome& out, const FailureKind& kind, std::string message, std::string detail = "") {
  out.status = CaseStatus::Fail;
  out.kind = kind;
  out.kinds = {kind};
  out.message = std::move(message);
  out.detail = std::move(detail);
}

// Which finding names the bug: storage given twice (the placement oracle: an overlap, out of bounds) causes the
// wrong values the other two see; a read finding the wrong value (symbolic) explains a wrong output
// (equivalence). Findings are told root first.
int rootRank(Oracle o) {
  switch (o) {
    case Oracle::Placement: return 0;
    case Oracle::Symbolic: return 1;
    case Oracle::Equivalence: return 2;
  }
  return 3;
}

// The tensors a finding is about: its region's, else those its instruction names.
std::vector<TensorId> involvedTensors(const Program& p, const Finding& f) {
  std::vector<TensorId> out;
  auto add = [&](uint32_t t) {
    if (t < p.tensors.size() && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  if (f.region.kind != FindingRegion::Kind::Registers)
    for (uint32_t t : f.region.items) add(t);
  if (out.empty() && f.inst_id != kNone)
    forEachInstruction(p.body, [&](const Instruction& i) {
      if (i.id != f.inst_id) return;
      for (const AccessPattern* ap : {&i.dst, &i.a, &i.b, &i.rare->reduce_dst}) add(ap->tensor);
    });
  return out;
}

// Line `line` (1-based) of `text`, or "".
std::string lineOf(const std::string& text, uint32_t line) {
  size_t at = 0;
  for (uint32_t k = 1; k < line && at != std::string::npos; ++k) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos || at >= text.size()) return "";
  const size_t end = text.find('\n', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

void checkAllocatedText(const Program& input, const std::string& text, const CheckSeeds& seeds, CaseOutcome& out) {
  Program allocated;
  try {
    allocated = parseProgram(text);
  } catch (const InputError& e) {
    std::string first = e.diagnostics().empty() ? "" : e.diagnostics()[0].message;
    return fail(out, FailureKind::of(FailureKind::Class::Unparsable), "the output is not a program: " + first, e.format("output"));
  }
  checkAllocatedProgram(input, allocated, seeds, out);
  // The allocator's own declarations of the tensors the root finding is about: its placements, as it wrote them.
  if (out.failed())
    for (TensorId t : out.involved) {
      const std::string decl = lineOf(text, allocated.tensors[t].loc.line);
      out.placements += (decl.empty() ? allocated.tensors[t].name : decl) + "\n";
    }
}

void checkAllocatedProgram(const Program& input, const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out) {
  CorrectnessOptions check;
  check.input = &input;
  check.verify.input_seed = seeds.input_seed;
  check.verify.poison_seed = seeds.poison_seed;
  Verdict v = checkAllocation(allocated, check);
  switch (v.defect) {
    case Defect::IllFormed:
      return fail(out, FailureKind::ofDefect(v.defect), "the output is not well-formed: " + v.diagnostics[0].message,
                  InputError(v.diagnostics).format("output"));
    case Defect::NotTheInput:
      if (!v.diagnostics.empty())
        return fail(out, FailureKind::ofDefect(v.defect), "the output's provenance is inconsistent: " + v.diagnostics[0].message,
                    InputError(v.diagnostics).format("output"));
      return fail(out, FailureKind::ofDefect(v.defect), "the output does not implement the input: " + v.mismatch);
    case Defect::CannotRun:
      return fail(out, FailureKind::ofDefect(v.defect), "the oracles cannot run the output: " + v.diagnostics[0].message,
                  InputError(v.diagnostics).format("output"));
    case Defect::None:
    case Defect::Findings: break;
  }
  VerifyReport& report = v.report;
  if (report.ok()) {
    out.status = CaseStatus::Pass;
    if (seeds.simulate) checkSimulatedRun(allocated, seeds, out);
    return;
  }
  out.status = CaseStatus::Fail;
  out.kinds.clear();
  out.detail.clear();
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const Finding& a, const Finding& b) { return rootRank(a.oracle) < rootRank(b.oracle); });
  out.involved = involvedTensors(allocated, report.findings.front());
  for (const Finding& f : report.findings) {
    const FailureKind kind = FailureKind::ofFinding(f.oracle, f.kind);
    if (std::find(out.kinds.begin(), out.kinds.end(), kind) == out.kinds.end()) out.kinds.push_back(kind);
    out.detail += f.format("output");
  }
  out.kind = out.kinds.front();
  const Finding& first = report.findings.front();
  out.message = "[" + std::string(oracleName(first.oracle)) + "] " + first.message;
}

}  // namespace allocsim
