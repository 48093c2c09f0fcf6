#include "ir/diag.h"

namespace allocsim {

std::string formatDiagnostic(const std::string& file, const Diagnostic& d) {
  if (!d.loc.known()) return file + ": " + d.message;
  return file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
}

static std::string firstMessage(const std::vector<Diagnostic>& diags) {
  return diags.empty() ? std::string("bad input") : diags.front().message;
}

InputError::InputError(std::vector<Diagnostic> diags)
    : std::runtime_error(firstMessage(diags)), diags_(std::move(diags)) {}

InputError::InputError(SourceLoc loc, const std::string& message)
    : std::runtime_error(message), diags_{Diagnostic{loc, message}} {}

std::string InputError::format(const std::string& file) const {
  std::string out;
  for (const Diagnostic& d : diags_) out += formatDiagnostic(file, d) + "\n";
  return out;
}

}  // namespace allocsim
