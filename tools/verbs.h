// The verbs of the command line, one per tools/verb_<name>.cpp. Each takes the arguments after the
// verb, returns an exit code (ir/diag.h), and may throw UsageError (reported by cli.cpp, exit code 2).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ir/diag.h"
#include "tools/args.h"
#include "tools/cli.h"

namespace allocsim::cli {

int runFmt(const Args& args);
int runInterp(const Args& args);
int runGen(const Args& args);
int runVerify(const Args& args);
int runAlloc(const Args& args);
int runDemo(const Args& args);
int runShow(const Args& args);
int runFuzzAllocator(const Args& args);
int runRun(const Args& args);
int runTrace(const Args& args);
int runImport(const Args& args);
int runExport(const Args& args);
int runSolve(const Args& args);
int runNki(const Args& args);

// Runs a verb's `body` that allocates and returns its exit code, turning what it throws into the verb's answer: an
// OptionError is a UsageError; an AllocError (exit code 3) or an InputError (exit code 2) is printed to standard
// error, located in `display`.
// The arguments the minimalloc verbs share: `VERB minimalloc FILE.csv [--capacity N] [-o OUT] [--quiet]`, the
// capacity (at most `max_capacity`) taken from the file name when not given. `own` reads the verb's other options
// from the reader (true when it took one). Nothing when --help was asked for: `help` has been printed then.
struct MinimallocArgs {
  std::string in, out;
  std::string display;  // `in` as messages name it ("<stdin>" for -)
  uint64_t capacity = 0;
  bool quiet = false;
};
std::optional<MinimallocArgs> readMinimallocArgs(const Args& args, const std::string& verb, uint64_t max_capacity,
                                                 const char* help, const std::function<bool(ArgReader&)>& own);

int allocationErrorsReported(const std::string& display, const std::function<int()>& body);

}  // namespace allocsim::cli
