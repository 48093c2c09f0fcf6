// A small argument reader shared by the verbs: "--key value", "--key=value", "-o value", flags and
// positionals, with usage errors reported as exit code 2 by the caller.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/arch.h"

namespace allocsim::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& args) : args_(args) {}

  bool done() const { return pos_ >= args_.size(); }
  // Consumes the current argument if it is `flag` (exactly); for valued options returns the value.
  bool flag(const std::string& name);
  std::optional<std::string> value(const std::string& name);
  // Consumes --help or -h and prints `text` to standard output; false when the current argument is neither.
  bool help(const char* text);
  // Consumes an architecture option: --arch NAME or --<override-key> VALUE (ir/arch.h), applied to `arch`.
  bool archOption(Arch& arch);
  // The current argument as a positional (anything not starting with '-', or "-" for stdin).
  std::optional<std::string> positional();
  // The current argument as the one positional `slot` holds: false when it is no positional; throws UsageError
  // when `slot` already has one (a second program, a stray word), naming both.
  bool positionalInto(std::string& slot);
  // Throws UsageError naming the current argument.
  [[noreturn]] void unknown() const;

  static uint64_t toUint(const std::string& name, const std::string& v, uint64_t max);
  // A positive number of seconds, at most a day ("2", "0.5").
  static double toSeconds(const std::string& name, const std::string& v);

 private:
  const std::vector<std::string>& args_;
  size_t pos_ = 0;
};

}  // namespace allocsim::cli
