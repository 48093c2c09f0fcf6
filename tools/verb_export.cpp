// allocsim export minimalloc ALLOCATED FILE.csv: an allocated program of an imported problem as minimalloc's
// solution CSV (with offsets), checked by minimalloc's own rules (verify/minimalloc_rules.h).
#include <cstdio>

#include "ir/minimalloc_import.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/verbs.h"
#include "verify/minimalloc_rules.h"

namespace allocsim::cli {

static const char kExportHelp[] =
    "usage: allocsim export minimalloc ALLOCATED FILE.csv [--capacity N] [-o OUT]\n"
    "\n"
    "Writes minimalloc's solution CSV (id,lower,upper,size,offset) for FILE.csv from the placements of\n"
    "ALLOCATED (a program `allocsim import minimalloc FILE.csv` made, then allocated), and checks it by\n"
    "minimalloc's rules: offsets within the capacity N (default: the number in FILE.csv's name, else\n"
    "ALLOCATED's sbuf-bytes, halved when the import doubled the problem), no two buffers live at once sharing\n"
    "a byte. Violations go to standard error.\n"
    "\n"
    "exit codes: 0 valid, 1 the solution breaks a rule, 2 bad input or usage\n";

int runExport(const Args& args) {
  ArgReader r(args);
  std::string format, allocated, csv, out;
  std::optional<uint64_t> capacity;
  while (!r.done()) {
    if (r.help(kExportHelp)) return kExitOk;
    if (auto v = r.value("-o")) out = *v;
    else if (auto v = r.value("--capacity")) capacity = ArgReader::toUint("--capacity", *v, UINT64_MAX);
    else if (auto p = r.positional()) {
      std::string& slot = format.empty() ? format : allocated.empty() ? allocated : csv;
      if (!slot.empty()) throw UsageError("unexpected argument '" + *p + "'");
      slot = *p;
    } else r.unknown();
  }
  if (format != "minimalloc") throw UsageError("export knows one format: 'export minimalloc ALLOCATED FILE.csv'");
  if (allocated.empty() || csv.empty()) throw UsageError("export minimalloc needs ALLOCATED and FILE.csv");
  auto program = loadProgram(allocated, false);
  if (!program) return kExitBadInput;
  MinimallocProblem problem, solution;
  try {
    problem = parseMinimallocCsv(readSource(csv));
  } catch (const InputError& e) {
    std::fputs(e.format(csv == "-" ? "<stdin>" : csv).c_str(), stderr);
    return kExitBadInput;
  }
  if (!capacity) capacity = capacityFromFileName(csv);
  // The program's SBUF is the problem's capacity times the import's scale (2 when a size is odd).
  if (!capacity) capacity = program->arch.sbuf_bytes / minimallocScale(problem);
  try {
    solution = exportMinimalloc(*program, problem);
  } catch (const InputError& e) {
    std::fputs(e.format(allocated).c_str(), stderr);  // locations in the program (or the CSV's line)
    return kExitBadInput;
  }
  writeOutput(out, printMinimallocCsv(solution));
  MinimallocCheck check = checkMinimallocSolution(solution, *capacity);
  for (const std::string& v : check.violations) std::fprintf(stderr, "%s: %s\n", csv.c_str(), v.c_str());
  std::fprintf(stderr, "minimalloc rules: %s (%zu buffers, height %llu, capacity %llu)\n",
               check.ok() ? "valid" : "INVALID", solution.buffers.size(), (unsigned long long)check.height,
               (unsigned long long)*capacity);
  return check.ok() ? kExitOk : kExitVerifyFailed;
}

}  // namespace allocsim::cli
