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
  ArgReader r(args);
  std::string format, in, out;
  std::optional<uint64_t> capacity;
  bool quiet = false;
  while (!r.done()) {
    if (r.flag("--help") || r.flag("-h")) {
      std::fputs(kImportHelp, stdout);
      return kExitOk;
    }
    if (auto v = r.value("-o")) out = *v;
    else if (auto v = r.value("--capacity")) capacity = ArgReader::toUint("--capacity", *v, UINT32_MAX);
    else if (r.flag("--quiet")) quiet = true;
    else if (auto p = r.positional()) {
      std::string& slot = format.empty() ? format : in;
      if (!slot.empty()) throw UsageError("unexpected argument '" + *p + "'");
      slot = *p;
    } else r.unknown();
  }
  if (format != "minimalloc") throw UsageError("import knows one format: 'import minimalloc FILE.csv'");
  if (in.empty()) throw UsageError("import minimalloc needs a CSV file (a path, or - for standard input)");
  if (!capacity) capacity = capacityFromFileName(in);
  if (!capacity) throw UsageError("--capacity N is needed: the file name '" + in + "' carries no capacity");
  const std::string display = in == "-" ? "<stdin>" : in;
  ProgressLine progress("import", ProgressLine::wanted(quiet));
  try {
    // Written as text directly: a million buffers take the memory of their declarations, not of a program's
    // instructions (ir/minimalloc_import.h).
    const std::string text =
        importMinimallocText(parseMinimallocCsv(readSource(in), progress.fn()), *capacity, progress.fn());
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
