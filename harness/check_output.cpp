#include "harness/check_output.h"

#include <algorithm>

#include "harness/implements_input.h"
#include "harness/simulated_run.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "verify/verify.h"

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
  std::vector<Diagnostic> diags = checkProgram(allocated);
  if (!diags.empty())
    return fail(out, "ill-formed", "the output is not well-formed: " + diags[0].message, InputError(diags).format("output"));
  try {
    if (auto mismatch = inputMismatch(input, allocated))
      return fail(out, "not-the-input", "the output does not implement the input: " + *mismatch);
  } catch (const InputError& e) {
    return fail(out, "not-the-input", "the output's provenance is inconsistent: " + e.diagnostics()[0].message,
                e.format("output"));
  }
  VerifyOptions vo;
  vo.input_seed = seeds.input_seed;
  vo.poison_seed = seeds.poison_seed;
  vo.original = &input;
  VerifyReport report;
  try {
    report = verifyAllocated(allocated, vo);
  } catch (const InputError& e) {
    return fail(out, "cannot-run", "the oracles cannot run the output: " + e.diagnostics()[0].message,
                e.format("output"));
  }
  if (report.ok()) {
    out.status = CaseStatus::Pass;
    if (seeds.simulate) checkSimulatedRun(allocated, seeds, out);
    return;
  }
  out.status = CaseStatus::Fail;
  out.kinds.clear();
  out.detail.clear();
  for (const Finding& f : report.findings) {
    std::string kind = std::string(oracleName(f.oracle)) + ":" + f.kind;
    if (std::find(out.kinds.begin(), out.kinds.end(), kind) == out.kinds.end()) out.kinds.push_back(kind);
    out.detail += f.format("output");
  }
  out.kind = out.kinds.front();
  const Finding& first = report.findings.front();
  out.message = "[" + std::string(oracleName(first.oracle)) + "] " + first.message;
}

}  // namespace allocsim
