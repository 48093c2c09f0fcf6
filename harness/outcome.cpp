#include "harness/outcome.h"

#include <algorithm>

namespace allocsim {

const char* caseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::Pass: return "pass";
    case CaseStatus::Refused: return "refused";
    case CaseStatus::Fail: return "fail";
  }
  return "?";
}

bool CaseOutcome::showsKind(const std::string& k) const {
  return failed() && std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

}  // namespace allocsim
