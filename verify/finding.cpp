#include "verify/finding.h"

#include <ostream>

namespace allocsim {

const char* oracleName(Oracle o) {
  switch (o) {
    case Oracle::Equivalence: return "equivalence";
    case Oracle::Symbolic: return "symbolic";
    case Oracle::Placement: return "placement";
  }
  return "?";
}

const char* findingKindName(FindingKind k) {
  switch (k) {
    case FindingKind::OperandMismatch: return "operand-mismatch";
    case FindingKind::OutputMismatch: return "output-mismatch";
    case FindingKind::TraceMismatch: return "trace-mismatch";
    case FindingKind::RuntimeError: return "runtime-error";
    case FindingKind::OriginalMismatch: return "original-mismatch";
    case FindingKind::Clobber: return "clobber";
    case FindingKind::StaleRead: return "stale-read";
    case FindingKind::NeverWritten: return "never-written";
    case FindingKind::WrongValue: return "wrong-value";
    case FindingKind::Unplaced: return "unplaced";
    case FindingKind::Bounds: return "bounds";
    case FindingKind::Alignment: return "alignment";
    case FindingKind::PartitionStart: return "partition-start";
    case FindingKind::Bank: return "bank";
    case FindingKind::RegisterLanes: return "register-lanes";
    case FindingKind::PinnedMoved: return "pinned-moved";
    case FindingKind::Overlap: return "overlap";
    case FindingKind::RegisterOverlap: return "register-overlap";
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, FindingKind k) { return os << findingKindName(k); }

std::string Finding::format(const std::string& file) const {
  std::string out = formatDiagnostic(file, Diagnostic{loc, std::string("[") + oracleName(oracle) + "] " + message});
  out += "\n";
  for (const std::string& n : notes) out += "    " + n + "\n";
  return out;
}

}  // namespace allocsim
