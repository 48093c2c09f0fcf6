// allocsim import minimalloc FILE.csv: a minimalloc problem as an allocsim program (ir/minimalloc_import.h).
#include <cstdio>

#include "ir/minimalloc_import.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/progress_line.h"
#include "tools/verbs.h"

namespace allocsim::cli {

static const char kImportHelp[] =
    "usage: allocsim import minimalloc FILE.csv [--capacity N] [-o OUT] [--quiet]\n"
    "\n"
    "Writes the program equivalent to a minimalloc problem (google/minimalloc's CSV: id,lower,upper,size):\n"
    "one SBUF partition of N bytes (default: the number in the file name, A.1048576.csv), alignment 1,\n"
    "one tensor buf_<id> per buffer, live exactly over its interval [lower, upper). When some size is odd,\n"
    "every size and the capacity are doubled, with alignment 2 (the smallest element is 2 bytes).\n"
    "A long import shows a progress line on a terminal once it takes a second (--quiet: none).\n"
    "\n"
    "exit codes: 0 ok, 2 bad input (file:line:col: message) or usage\n";

int runImport(const Args& args) {
  const std::optional<MinimallocArgs> a =
      readMinimallocArgs(args, "import", UINT32_MAX, kImportHelp, [](ArgReader&) { return false; });
  if (!a) return kExitOk;
  const std::string &in = a->in, &out = a->out, &display = a->display;
  const uint64_t capacity = a->capacity;
  ProgressLine progress("import", ProgressLine::wanted(a->quiet));
  try {
    // Written as text directly: a million buffers take the memory of their declarations, not of a program's
    // instructions (ir/minimalloc_import.h).
    const std::string text =
        importMinimallocText(parseMinimallocCsv(readSource(in), progress.fn()), capacity, progress.fn());
    progress.erase();
    writeOutput(out, text);
  } catch (const InputError& e) {
    progress.erase();
    std::fputs(e.format(display).c_str(), stderr);
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace allocsim::cli
