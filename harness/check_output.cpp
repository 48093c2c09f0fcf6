#include "harness/check_output.h"

#include <algorithm>

#include "harness/simulated_run.h"
#include "ir/parse.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

void fail(CaseOutcome& out, const std::string& kind, std::string message, std::string detail = "") {
  out.status = CaseStatus::Fail;
  out.kind = kind;
  out.kinds = {kind};
  out.message = std::move(message);
  out.detail = std::move(detail);
}

}  // namespace

void checkAllocatedText(const Program& input, const std::string& text, const CheckSeeds& seeds, CaseOutcome& out) {
  Program allocated;
  try {
    allocated = parseProgram(text);
  } catch (const InputError& e) {
    std::string first = e.diagnostics().empty() ? "" : e.diagnostics()[0].message;
    return fail(out, "unparsable", "the output is not a program: " + first, e.format("output"));
  }
  checkAllocatedProgram(input, allocated, seeds, out);
}

void checkAllocatedProgram(const Program& input, const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out) {
  CorrectnessOptions check;
  check.input = &input;
  check.verify.input_seed = seeds.input_seed;
  check.verify.poison_seed = seeds.poison_seed;
  const Verdict v = checkAllocation(allocated, check);
  switch (v.defect) {
    case Defect::IllFormed:
      return fail(out, defectName(v.defect), "the output is not well-formed: " + v.diagnostics[0].message,
                  InputError(v.diagnostics).format("output"));
    case Defect::NotTheInput:
      if (!v.diagnostics.empty())
        return fail(out, defectName(v.defect), "the output's provenance is inconsistent: " + v.diagnostics[0].message,
                    InputError(v.diagnostics).format("output"));
      return fail(out, defectName(v.defect), "the output does not implement the input: " + v.mismatch);
    case Defect::CannotRun:
      return fail(out, defectName(v.defect), "the oracles cannot run the output: " + v.diagnostics[0].message,
                  InputError(v.diagnostics).format("output"));
    case Defect::None:
    case Defect::Findings: break;
  }
  const VerifyReport& report = v.report;
  if (report.ok()) {
    out.status = CaseStatus::Pass;
    if (seeds.simulate) checkSimulatedRun(allocated, seeds, out);
    return;
  }
  out.status = CaseStatus::Fail;
  out.kinds.clear();
  out.detail.clear();
  for (const Finding& f : report.findings) {
    std::string kind = std::string(oracleName(f.oracle)) + ":" + findingKindName(f.kind);
    if (std::find(out.kinds.begin(), out.kinds.end(), kind) == out.kinds.end()) out.kinds.push_back(kind);
    out.detail += f.format("output");
  }
  out.kind = out.kinds.front();
  const Finding& first = report.findings.front();
  out.message = "[" + std::string(oracleName(first.oracle)) + "] " + first.message;
}

}  // namespace allocsim
