#include "verify/finding.h"

namespace allocsim {

const char* oracleName(Oracle o) {
  switch (o) {
    case Oracle::Equivalence: return "equivalence";
    case Oracle::Symbolic: return "symbolic";
    case Oracle::Placement: return "placement";
  }
  return "?";
}

std::string Finding::format(const std::string& file) const {
  std::string out = formatDiagnostic(file, Diagnostic{loc, std::string("[") + oracleName(oracle) + "] " + message});
  out += "\n";
  for (const std::string& n : notes) out += "    " + n + "\n";
  return out;
}

}  // namespace allocsim
