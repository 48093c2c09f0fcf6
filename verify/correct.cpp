#include "verify/correct.h"

#include "ir/check.h"
#include "verify/implements_input.h"
#include "verify/reference.h"

namespace allocsim {
namespace {

// An input that is itself an allocation (inserted spill, reload or copy items): what an allocator must implement
// is the program it stands for, not its inserted items.
bool hasInsertedItems(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.origin != Origin::Source) return true;
  for (const Register& r : p.registers)
    if (r.origin != Origin::Source) return true;
  bool inserted = false;
  forEachInstruction(p.body, [&](const Instruction& i) { inserted |= i.origin != Origin::Source; });
  return inserted;
}

}  // namespace

const char* defectName(Defect d) {
  switch (d) {
    case Defect::None: return "ok";
    case Defect::IllFormed: return "ill-formed";
    case Defect::NotTheInput: return "not-the-input";
    case Defect::CannotRun: return "cannot-run";
    case Defect::Findings: return "findings";
  }
  return "?";
}

Verdict checkAllocation(const Program& allocated, const CorrectnessOptions& opts) {
  Verdict v;
  if (!opts.well_formed_known) {
    v.diagnostics = checkProgram(allocated);
    if (!v.diagnostics.empty()) {
      v.defect = Defect::IllFormed;
      return v;
    }
  }
  if (opts.input) {
    try {
      const std::optional<std::string> m =
          hasInsertedItems(*opts.input) ? inputMismatch(referenceProgram(*opts.input).program, allocated)
                                        : inputMismatch(*opts.input, allocated);
      if (m) {
        v.defect = Defect::NotTheInput;
        v.mismatch = *m;
        return v;
      }
    } catch (const InputError& e) {
      v.defect = Defect::NotTheInput;
      v.diagnostics = e.diagnostics();
      return v;
    }
  }
  VerifyOptions vo = opts.verify;
  if (!vo.original) vo.original = opts.input;
  try {
    v.report = verifyAllocated(allocated, vo);
  } catch (const InputError& e) {
    v.defect = Defect::CannotRun;
    v.diagnostics = e.diagnostics();
    return v;
  }
  if (!v.report.ok()) v.defect = Defect::Findings;
  return v;
}

std::string describeDefect(const Verdict& v, const std::string& file) {
  switch (v.defect) {
    case Defect::None: return "";
    case Defect::IllFormed:
    case Defect::CannotRun: return std::string(defectName(v.defect)) + ":\n" + InputError(v.diagnostics).format(file);
    case Defect::NotTheInput:
      return v.diagnostics.empty() ? std::string(defectName(v.defect)) + ": " + v.mismatch + "\n"
                                   : std::string(defectName(v.defect)) + ":\n" + InputError(v.diagnostics).format(file);
    case Defect::Findings: {
      std::string out;
      for (const Finding& f : v.report.findings) out += f.format(file);
      return out;
    }
  }
  return "";
}

}  // namespace allocsim
