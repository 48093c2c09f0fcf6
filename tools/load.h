// Reading programs for the verbs: a path or "-" for standard input, parsed and (optionally) checked,
// with every input error printed as "file:line:col: message".
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "ir/program.h"

namespace allocsim::cli {

// The whole file ("-" = standard input). Throws UsageError when it cannot be read or is over 512 MiB.
std::string readSource(const std::string& path);

// Parses and, when `check` is set, runs the well-formedness checker. On bad input prints the
// diagnostics to stderr and returns nullopt (the caller exits with kExitBadInput).
std::optional<Program> loadProgram(const std::string& path, bool check = true);

// Writes `text` to `path` ("-" or "" = standard output). Throws UsageError on failure.
void writeOutput(const std::string& path, const std::string& text);

// The same for an output written piece by piece by `write` to the stream it is given, so that it is never held whole
// (an output that grows with the run).
void writeOutputStreamed(const std::string& path, const std::function<void(std::ostream&)>& write);

// Throws UsageError when `path` cannot be opened for writing (a directory, a missing folder, no permission), before
// a long run would write it; an existing file is left as it is, and a file the check had to create is removed.
void requireWritable(const std::string& path);

}  // namespace allocsim::cli
