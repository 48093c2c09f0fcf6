#include "harness/outcome.h"

#include <algorithm>
#include <ostream>

namespace allocsim {

const char* caseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::Pass: return "pass";
    case CaseStatus::Refused: return "refused";
    case CaseStatus::Fail: return "fail";
  }
  return "?";
}

std::string FailureKind::name() const {
  switch (what) {
    case Class::None: return "";
    case Class::Crash: return "crash";
    case Class::Exception: return "exception";
    case Class::ExitCode: return "exit-code";
    case Class::Timeout: return "timeout";
    case Class::HugeOutput: return "huge-output";
    case Class::NoOutput: return "no-output";
    case Class::Unparsable: return "unparsable";
    case Class::Defect: return defectName(defect);
    case Class::Finding: return std::string(oracleName(oracle)) + ":" + findingKindName(finding);
    case Class::SimulatorCannotRun: return "simulator:cannot-run";
    case Class::SimulatorDisagrees: return "simulator:disagrees";
    case Class::SimulatorTiming: return "simulator:timing";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const FailureKind& k) { return os << k.name(); }

bool CaseOutcome::showsKind(const FailureKind& k) const {
  return failed() && std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

}  // namespace allocsim
