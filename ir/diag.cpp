#include "ir/diag.h"

namespace allocsim {

std::string printableText(const std::string& text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\n' && c != '\t') || b == 0x7f) {
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    } else {
      out += c;
    }
  }
  return out;
}

std::string formatDiagnostic(const std::string& file, const Diagnostic& d) {
  if (!d.loc.known()) return printableText(file + ": " + d.message);
  return printableText(file + ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message);
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
