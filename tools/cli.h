// The allocsim command line: one verb per file, dispatched from cli.cpp.
#pragma once

#include <string>
#include <vector>

namespace allocsim::cli {

// Runs the command line; returns the process exit code (ir/diag.h ExitCode).
int run(int argc, char** argv);

using Args = std::vector<std::string>;

struct Verb {
  const char* name;
  const char* summary;
  int (*run)(const Args& args);  // args after the verb
};
const std::vector<Verb>& verbs();

}  // namespace allocsim::cli
