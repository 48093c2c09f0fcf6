// allocsim solve minimalloc FILE.csv: the exact search (alloc/exact/exact_search.h) on a minimalloc problem's own
// times (alloc/exact/minimalloc_problem.h), written as minimalloc's solution CSV and checked by minimalloc's rules
// (verify/minimalloc_rules.h), independently of the search: allocsim's solver where minimalloc's would go.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "alloc/exact/exact_search.h"
#include "alloc/exact/minimalloc_problem.h"
#include "alloc/number_text.h"
#include "ir/memory_available.h"
#include "ir/minimalloc_csv.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/progress_line.h"
#include "tools/verbs.h"
#include "verify/minimalloc_rules.h"

namespace allocsim::cli {

// The search's tables may take this many bytes unless --max-memory says otherwise.
constexpr uint64_t kDefaultMaxMemory = 1000000000;

static const char kSolveHelp[] =
    "usage: allocsim solve minimalloc FILE.csv [--capacity N] [--time-limit S] [--max-memory BYTES] [-o OUT]\n"
    "                                 [--quiet]\n"
    "\n"
    "Places the buffers of a minimalloc problem (google/minimalloc's CSV: id,lower,upper,size) within N bytes\n"
    "(default: the number in the file name, A.1048576.csv) by the exact search of `alloc --allocator exact`,\n"
    "on the file's own times, and writes minimalloc's solution CSV (id,lower,upper,size,offset) to OUT\n"
    "(default standard output), checked by minimalloc's rules. A summary goes to standard error; a\n"
    "progress line too on a terminal once the search takes a second (--quiet: none).\n"
    "  --time-limit S   stop after S seconds, reading the file and building the search's tables included\n"
    "                   (default 10)\n"
    "  --max-memory B   refuse a problem whose search tables need more than B bytes (default 1000000000): they\n"
    "                   grow with the pairs of buffers live at once, which the refusal states\n"
    "\n"
    "exit codes: 0 placed within N (and valid by minimalloc's rules), 1 the solution breaks a rule (a bug),\n"
    "2 bad input or usage, 3 no placement within N (proved, or not found within the time limit)\n";

namespace {

// What the steps of one solve share: the file's name for messages, the capacity, the time limit and the progress
// line.
struct SolveRun {
  const std::string& display;
  uint64_t capacity;
  double time_limit;
  std::chrono::steady_clock::time_point start;
  ProgressLine& progress;

  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
  bool outOfTime() const { return elapsed() > time_limit; }
  // Reports that the time limit ran out `during` a phase before the search; returns the exit code.
  int timedOut(const char* during) const {
    progress.erase();
    std::fprintf(stderr, "%s: exact: the time limit of %s s ran out %s (after %s s): no placement found\n",
                 display.c_str(), formatReportNumber(time_limit, 2).c_str(), during,
                 formatReportNumber(elapsed(), 2).c_str());
    return kExitAllocImpossible;
  }
};

// Reads and parses the problem within the time limit; an exit code when it ran out. While the file is read the limit
// is checked at each progress step (every few ten thousand lines), and a limit that runs out there is reported at the
// line reached.
std::optional<int> readProblem(const SolveRun& run, const std::string& in, MinimallocProblem& problem) {
  struct ReadingTimedOut {
    uint64_t line;
  };
  const ProgressFn reading = [&](const char* phase, uint64_t done, const char* unit) {
    run.progress.report(phase, done, unit);
    if (run.outOfTime()) throw ReadingTimedOut{done};
  };
  run.progress.report("reading the file", 0, "buffers");
  const std::string text = readSource(in);
  if (run.outOfTime()) return run.timedOut("while the file was read");
  try {
    problem = parseMinimallocCsv(text, &reading);
  } catch (const ReadingTimedOut& t) {
    run.progress.erase();
    std::fprintf(stderr, "%s:%llu:1: exact: the time limit of %s s ran out while the file was read, at this line "
                 "(after %s s): no placement found\n", run.display.c_str(), (unsigned long long)t.line,
                 formatReportNumber(run.time_limit, 2).c_str(), formatReportNumber(run.elapsed(), 2).c_str());
    return kExitAllocImpossible;
  }
  if (run.outOfTime()) return run.timedOut("while the file was read");
  return std::nullopt;
}

// A time at which the buffers live at once need more than the capacity proves that no placement exists: said at the
// row whose buffer takes them over, before any table is built (however large the tables would be). The exit code
// when there is one.
std::optional<int> liveExcessProof(const SolveRun& run, const MinimallocProblem& problem) {
  const std::optional<LiveExcess> over = firstLiveExcess(problem, run.capacity);
  if (!over) return std::nullopt;
  const MinimallocBuffer& b = problem.buffers[over->buffer];
  run.progress.erase();
  std::fprintf(stderr, "%s:%u:%u: exact: no placement within %llu bytes exists (proved): at time %lld the buffers "
               "live at once need %llu bytes; buffer '%s' of this row starts then and takes them over the "
               "capacity\n", run.display.c_str(), b.loc.line, b.loc.col, (unsigned long long)run.capacity,
               (long long)over->time, (unsigned long long)over->live, b.id.c_str());
  return kExitAllocImpossible;
}

// Memory: what the search's tables need, known before they are built, against --max-memory and what the process can
// get. Refused (InputError) at the row where the most buffers are live at once.
void checkTableMemory(const MinimallocProblem& problem, const ExactProblem& exact, uint64_t max_memory) {
  const uint64_t need = exactTableBytes(exact) + 200 * uint64_t(problem.buffers.size());
  auto crowded = [&] {
    const LiveCrowd c = mostBuffersLive(problem);
    return std::pair{problem.buffers[c.buffer].loc, "; " + std::to_string(c.count) + " buffers are live at once at "
                                                        "time " + std::to_string(c.time) + ", this row's among them"};
  };
  if (need > max_memory) {
    const auto [at, where] = crowded();
    throw InputError(at, "out of memory: the exact search's tables for " + std::to_string(problem.buffers.size()) +
                             " buffers need about " + formatBytes(need) + " (they grow with the pairs of buffers "
                             "live at once), more than --max-memory " + formatBytes(max_memory) + where);
  }
  if (const MemoryAvailable m = memoryAvailable(); need > m.bytes) {
    const auto [at, where] = crowded();
    throw InputError(at, "out of memory: the exact search's tables for " + std::to_string(problem.buffers.size()) +
                             " buffers need about " + formatBytes(need) + ", and this process can get " +
                             formatBytes(m.bytes) + " more (" + m.limited_by + ")" + where);
  }
}

// The search's outcome: no placement (proved, or not found in time, with the best height found), or the solution
// CSV written to `out` and checked by minimalloc's rules. Returns the exit code.
int reportSolution(const SolveRun& run, const MinimallocProblem& problem, const ExactResult& res,
                   const std::string& out) {
  const std::string& display = run.display;
  const uint64_t capacity = run.capacity;
  const std::string how = std::string(exactStatusName(res.status)) + " (" + res.method + ", " +
                          std::to_string(res.nodes) + " nodes, " + formatReportNumber(res.seconds, 2) + " s)";
  const std::string bound = "lower bound " + std::to_string(res.lower_bound) + ", capacity " + std::to_string(capacity);
  if (res.status != ExactStatus::Fit) {
    std::string msg = display + ": exact: " + how + ": no placement within " + std::to_string(capacity) + " bytes ";
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
  const MinimallocCheck check = checkMinimallocSolution(solution, capacity);
  for (const std::string& v : check.violations) std::fprintf(stderr, "%s: %s\n", display.c_str(), v.c_str());
  std::fprintf(stderr, "%s: exact: %s; height %llu, %s; minimalloc rules: %s\n", display.c_str(), how.c_str(),
               (unsigned long long)check.height, bound.c_str(), check.ok() ? "valid" : "INVALID");
  return check.ok() ? kExitOk : kExitVerifyFailed;
}

}  // namespace

// Reads the problem (within the time and memory limits), searches, and writes and checks the solution.
int runSolve(const Args& args) {
  double time_limit = 10;
  uint64_t max_memory = kDefaultMaxMemory;
  const auto start = std::chrono::steady_clock::now();
  const std::optional<MinimallocArgs> a =
      readMinimallocArgs(args, "solve", UINT64_MAX, kSolveHelp, [&](ArgReader& r) {
        if (auto v = r.value("--time-limit")) time_limit = ArgReader::toSeconds("--time-limit", *v);
        else if (auto v = r.value("--max-memory")) max_memory = ArgReader::toUint("--max-memory", *v, UINT64_MAX);
        else return false;
        return true;
      });
  if (!a) return kExitOk;
  ProgressLine progress("solve", ProgressLine::wanted(a->quiet));
  const SolveRun run{a->display, a->capacity, time_limit, start, progress};
  MinimallocProblem problem;
  ExactProblem exact;
  try {
    if (std::optional<int> exit = readProblem(run, a->in, problem)) return *exit;
    if (std::optional<int> exit = liveExcessProof(run, problem)) return *exit;
    progress.report("building the search's tables", problem.buffers.size(), "buffers");
    exact = exactProblemOf(problem, run.capacity);
    checkTableMemory(problem, exact, max_memory);
  } catch (const InputError& e) {
    progress.erase();
    std::fputs(e.format(run.display).c_str(), stderr);
    return kExitBadInput;
  }
  if (run.outOfTime()) return run.timedOut("while the problem was read");
  ExactSearchOptions o;
  o.time_limit_s = time_limit - run.elapsed();
  o.progress = progress.fn();
  const ExactResult res = solveExact(exact, o);
  progress.erase();
  return reportSolution(run, problem, res, a->out);
}

}  // namespace allocsim::cli
