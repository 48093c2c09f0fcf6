// allocsim solve minimalloc FILE.csv: the exact search (alloc/exact/exact_search.h) on a minimalloc problem's own
// times (alloc/exact/minimalloc_problem.h), written as minimalloc's solution CSV and checked by minimalloc's rules
// (verify/minimalloc_rules.h), independently of the search: allocsim's solver where minimalloc's would go.
#include <cstdio>
#include <string>

#include "alloc/exact/exact_search.h"
#include "alloc/exact/minimalloc_problem.h"
#include "alloc/report.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/progress_line.h"
#include "tools/verbs.h"
#include "verify/minimalloc_rules.h"

namespace allocsim::cli {

static const char kSolveHelp[] =
    "usage: allocsim solve minimalloc FILE.csv [--capacity N] [--time-limit S] [-o OUT] [--quiet]\n"
    "\n"
    "Places the buffers of a minimalloc problem (google/minimalloc's CSV: id,lower,upper,size) within N bytes\n"
    "(default: the number in the file name, A.1048576.csv) by the exact search of `alloc --allocator exact`,\n"
    "on the file's own times, and writes minimalloc's solution CSV (id,lower,upper,size,offset) to OUT\n"
    "(default standard output), checked by minimalloc's rules. A summary goes to standard error; a\n"
    "progress line too on a terminal once the search takes a second (--quiet: none).\n"
    "  --time-limit S   stop searching after S seconds (default 10)\n"
    "\n"
    "exit codes: 0 placed within N (and valid by minimalloc's rules), 1 the solution breaks a rule (a bug),\n"
    "2 bad input or usage, 3 no placement within N (proved, or not found within the time limit)\n";

int runSolve(const Args& args) {
  ArgReader r(args);
  std::string format, in, out;
  std::optional<uint64_t> capacity;
  double time_limit = 10;
  bool quiet = false;
  while (!r.done()) {
    if (r.flag("--help") || r.flag("-h")) {
      std::fputs(kSolveHelp, stdout);
      return kExitOk;
    }
    if (auto v = r.value("-o")) out = *v;
    else if (auto v = r.value("--capacity")) capacity = ArgReader::toUint("--capacity", *v, UINT64_MAX);
    else if (auto v = r.value("--time-limit")) time_limit = ArgReader::toSeconds("--time-limit", *v);
    else if (r.flag("--quiet")) quiet = true;
    else if (auto p = r.positional()) {
      std::string& slot = format.empty() ? format : in;
      if (!slot.empty()) throw UsageError("unexpected argument '" + *p + "'");
      slot = *p;
    } else r.unknown();
  }
  if (format != "minimalloc") throw UsageError("solve knows one format: 'solve minimalloc FILE.csv'");
  if (in.empty()) throw UsageError("solve minimalloc needs a CSV file (a path, or - for standard input)");
  if (!capacity) capacity = capacityFromFileName(in);
  if (!capacity) throw UsageError("--capacity N is needed: the file name '" + in + "' carries no capacity");
  const std::string display = in == "-" ? "<stdin>" : in;
  MinimallocProblem problem;
  ExactProblem exact;
  try {
    problem = parseMinimallocCsv(readSource(in));
    exact = exactProblemOf(problem, *capacity);
  } catch (const InputError& e) {
    std::fputs(e.format(display).c_str(), stderr);
    return kExitBadInput;
  }
  ExactSearchOptions o;
  o.time_limit_s = time_limit;
  ProgressLine progress("solve", ProgressLine::wanted(quiet));
  o.progress = progress.fn();
  const ExactResult res = solveExact(exact, o);
  progress.erase();
  const std::string how = std::string(exactStatusName(res.status)) + " (" + res.method + ", " +
                          std::to_string(res.nodes) + " nodes, " + formatReportNumber(res.seconds, 2) + " s)";
  const std::string bound = "lower bound " + std::to_string(res.lower_bound) + ", capacity " + std::to_string(*capacity);
  if (res.status != ExactStatus::Fit) {
    std::string msg = display + ": exact: " + how + ": no placement within " + std::to_string(*capacity) + " bytes ";
    msg += res.status == ExactStatus::NoFit ? "exists (proved)" : "found within the time limit (not proved impossible)";
    if (!res.placements.empty())
      msg += "; best height " + std::to_string(res.height) + ", " +
             formatReportNumber(double(res.height) / double(std::max<uint64_t>(res.lower_bound, 1)), 3) +
             "x the lower bound " + std::to_string(res.lower_bound);
    std::fprintf(stderr, "%s\n", msg.c_str());
    return kExitAllocImpossible;
  }
  const MinimallocProblem solution = withOffsets(problem, res.placements);
  writeOutput(out, printMinimallocCsv(solution));
  const MinimallocCheck check = checkMinimallocSolution(solution, *capacity);
  for (const std::string& v : check.violations) std::fprintf(stderr, "%s: %s\n", display.c_str(), v.c_str());
  std::fprintf(stderr, "%s: exact: %s; height %llu, %s; minimalloc rules: %s\n", display.c_str(), how.c_str(),
               (unsigned long long)check.height, bound.c_str(), check.ok() ? "valid" : "INVALID");
  return check.ok() ? kExitOk : kExitVerifyFailed;
}

}  // namespace allocsim::cli
