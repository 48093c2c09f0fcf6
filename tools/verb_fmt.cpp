// allocsim fmt: parse, check, print the canonical form.
#include <cstdio>

#include "ir/print.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/verbs.h"

namespace allocsim::cli {

static const char kFmtHelp[] =
    "usage: allocsim fmt PROGRAM [-o OUT] [--no-check]\n"
    "\n"
    "Parses PROGRAM (a path, or - for standard input), checks that it is well-formed and prints it in\n"
    "canonical form (docs/format.md). Parsing the output gives back the same program.\n"
    "\n"
    "  -o OUT       write to OUT instead of standard output\n"
    "  --no-check   only parse: skip the well-formedness check (shapes, ranges, dataflow)\n"
    "\n"
    "exit codes: 0 ok, 2 bad input (messages are file:line:col: ...)\n";

int runFmt(const Args& args) {
  ArgReader r(args);
  std::string in, out;
  bool check = true;
  while (!r.done()) {
    if (r.help(kFmtHelp)) return kExitOk;
    if (auto v = r.value("-o")) out = *v;
    else if (r.flag("--no-check")) check = false;
    else if (r.positionalInto(in)) continue;
    else r.unknown();
  }
  if (in.empty()) throw UsageError("fmt needs a program (a path, or - for standard input)");
  auto program = loadProgram(in, check);
  if (!program) return kExitBadInput;
  writeOutput(out, printProgram(*program));
  return kExitOk;
}

}  // namespace allocsim::cli
