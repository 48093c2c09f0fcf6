// Diagnostics: every rejection of bad input carries a source location.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace allocsim {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 = no location (made by a pass or by the API)
  uint32_t col = 0;   // 1-based
  bool known() const { return line != 0; }
  // Locations say where something was written, not what it is: two programs that differ only in
  // layout are equal (the round trip of docs/format.md depends on it).
  bool operator==(const SourceLoc&) const { return true; }
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;
};

// `text` with each control byte other than a line feed or a tab (a NUL, a carriage return, an escape sequence's
// ESC, DEL) written as \xNN: a message quotes what it was given, which may be any bytes, and a terminal must show
// them rather than act on them or, at a NUL, cut the message short.
std::string printableText(const std::string& text);

// "file:line:col: message" (or "file: message" without a location), control bytes escaped (printableText).
std::string formatDiagnostic(const std::string& file, const Diagnostic& d);

// Thrown for bad input; the CLI turns it into exit code 2. One or more diagnostics, first = primary.
class InputError : public std::runtime_error {
 public:
  explicit InputError(std::vector<Diagnostic> diags);
  InputError(SourceLoc loc, const std::string& message);
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  // All diagnostics, one per line, each prefixed with `file`.
  std::string format(const std::string& file) const;

 private:
  std::vector<Diagnostic> diags_;
};

// Process exit codes.
enum ExitCode : int {
  kExitOk = 0,
  kExitVerifyFailed = 1,
  kExitBadInput = 2,
  kExitAllocImpossible = 3,
};

}  // namespace allocsim
