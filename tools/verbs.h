// The verbs of the command line, one per tools/verb_<name>.cpp. Each takes the arguments after the
// verb, returns an exit code (ir/diag.h), and may throw UsageError (reported by cli.cpp, exit code 2).
#pragma once

#include "ir/diag.h"
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

}  // namespace allocsim::cli
