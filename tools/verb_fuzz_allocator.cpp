// allocsim fuzz-allocator: drive anyone's allocator, given as a command line, with generated programs and the
// corpus; check every output; shrink each kind of failure to a minimal program (harness/).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "harness/campaign.h"
#include "harness/failure_files.h"
#include "harness/subject.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "tools/args.h"
#include "tools/corpus_kernels.h"
#include "tools/fuzz_allocator_report.h"
#include "tools/load.h"
#include "tools/verbs.h"
#include "verify/reference.h"

namespace allocsim::cli {

static const char kFuzzAllocatorHelp[] =
    "usage: allocsim fuzz-allocator [--runs N | --time S] [--jobs J] [--seed S] [--arch A] [--KEY VALUE]\n"
    "                               [--size N] [--pressure P] [--dma-patterns P] [--corpus DIR] [--no-kernels]\n"
    "                               [--out DIR]\n"
    "                               [--timeout S] [--max-output K] [--max-failures N] [--no-shrink]\n"
    "                               [--shrink-time S] [--no-sim]\n"
    "                               [--json] [--quiet] -- CMD ARGS...\n"
    "\n"
    "Runs the allocator CMD on generated programs (and first on the corpus kernels of the arch and the programs\n"
    "in --corpus DIR), and checks every result: it parses, is well-formed, implements the input (the program\n"
    "recovered from it is the input), passes the equivalence, symbolic and placement oracles, and runs on the\n"
    "SystemC model of the core with the same results as the interpreter (the summary adds up its cycles).\n"
    "In ARGS, {in} and {out} are replaced by file paths: the program is written to {in}, the result read from\n"
    "{out}; without {in} the program goes to CMD's standard input, without {out} the result is read from its\n"
    "standard output. Exit code 3 of CMD means \"refused\" (counted, never a failure); any other exit code, a\n"
    "signal, a timeout, no output, too much output (--max-output), an unparsable output or a finding is a\n"
    "failure. A failing input is run twice more (a different result is reported as FLAKY), and the first\n"
    "failure of each kind is shrunk to a minimal well-formed program that still fails with that kind (unless\n"
    "even the smallest program fails: \"fails on every input\"), written as DIR/NNN.nki.txt with\n"
    "DIR/NNN.output.nki.txt (CMD's output on it) and DIR/NNN.txt (the command, seeds, finding, the commands\n"
    "that rerun CMD and the check on these files, CMD's standard error). Oracle findings are told root first:\n"
    "an overlap, then a wrong value read, then wrong values out, with CMD's placements of the tensors involved.\n"
    "\n"
    "  --runs N          generated cases (default 1000)\n"
    "  --time S          run for S seconds instead (with --runs too: whichever ends first)\n"
    "  --jobs J          cases run in parallel (default 1)\n"
    "  --seed S          case i is `allocsim gen --seed S+i` (default 1)\n"
    "  --arch A          machine of the generated programs (default tiny); --KEY VALUE overrides a field\n"
    "  --size N          fix the generator's size (default: 1..30, drawn per case)\n"
    "  --pressure P      fix the generator's pressure in percent (default: drawn per case, 25..100 in two\n"
    "                    cases of three, else 101..300; above 100 the program must spill)\n"
    "  --dma-patterns P  fix the percent of statements that are DMA patterns (gen --dma-patterns; default:\n"
    "                    10..40 in one case of three, else 0)\n"
    "  --corpus DIR      also run every DIR/*.nki.txt (unallocated programs)\n"
    "  --no-kernels      skip the bundled corpus kernels\n"
    "  --out DIR         where failures go (default allocsim-failures)\n"
    "  --timeout S       seconds CMD may take per case (default 10); shrinking a timeout gives its candidates\n"
    "                    four times CMD's slowest run that ended (at least 0.1 s) and four times as long\n"
    "                    whenever what they shrank to does not time out under S\n"
    "  --max-output K    CMD may write K times the input's bytes (at least 1 MiB; default 100); more is a\n"
    "                    failure of its own kind (huge-output), and CMD is stopped there\n"
    "  --max-failures N  stop after N failing cases (default: run every case)\n"
    "  --no-shrink       write failures unshrunk\n"
    "  --shrink-time S   seconds to spend shrinking each failure kind (default 120)\n"
    "  --no-sim          skip the simulator check (faster; the oracles still run)\n"
    "  --json            print the summary as JSON\n"
    "  --quiet           no progress line (shown only when standard error is a terminal)\n"
    "\n"
    "Progress goes to standard error when it is a terminal; the summary to standard output.\n"
    "exit codes: 0 every case passed or was refused, 1 a failure, 2 bad input or usage\n";

namespace {

double toSeconds(const std::string& name, const std::string& v) {
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || errno != 0 || !(d > 0) || d > 1e7)
    throw UsageError(name + " expects a positive number of seconds, got '" + v + "'");
  return d;
}

// Unallocated programs of DIR (sorted by name). Returns false after printing the first bad file's diagnostics.
bool loadCorpus(const std::string& dir, std::vector<CaseInput>& out, uint64_t seed) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError("--corpus: '" + dir + "' is not a directory");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name.size() > 8 && name.compare(name.size() - 8, 8, ".nki.txt") == 0)
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  size_t skipped = 0;
  for (const std::string& f : files) {
    auto program = loadProgram(f);
    if (!program) return false;
    if (isAllocated(*program)) {
      ++skipped;  // an allocated program is not an allocator's input
      continue;
    }
    CaseInput c;
    c.source = f;
    c.seed = seed;
    c.seeds = seedsFor(seed);
    c.program = std::move(*program);
    out.push_back(std::move(c));
  }
  if (skipped) std::fprintf(stderr, "fuzz-allocator: %zu allocated program(s) in %s skipped\n", skipped, dir.c_str());
  return true;
}

void addKernels(const Arch& arch, uint64_t seed, std::vector<CaseInput>& out) {
  for (const EmbeddedKernel& k : corpusKernels()) {
    Program p = parseProgram(k.text);  // the corpus tests keep these well-formed
    if (!(p.arch == arch)) continue;
    CaseInput c;
    c.source = k.path;
    c.seed = seed;
    c.seeds = seedsFor(seed);
    c.program = std::move(p);
    out.push_back(std::move(c));
  }
}

std::string commandText(const std::vector<std::string>& argv) {
  std::string s;
  for (const std::string& a : argv) {
    const bool plain = !a.empty() && a.find_first_of(" \t\"'\\$`|&;<>()*?") == std::string::npos;
    s += (s.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return s;
}

}  // namespace

int runFuzzAllocator(const Args& all) {
  auto dashes = std::find(all.begin(), all.end(), "--");
  const Args mine(all.begin(), dashes);
  const std::vector<std::string> command = dashes == all.end() ? Args{} : Args(dashes + 1, all.end());
  ArgReader r(mine);
  CampaignOptions opts;
  opts.gen.arch = *archPreset("tiny");
  std::vector<std::string> corpus_dirs;
  std::string out_dir = "allocsim-failures";
  bool json = false, kernels = true, runs_given = false, quiet = false;
  ProcessOptions process;
  double max_output = ExternalCommandSubject::kDefaultMaxOutputMultiple;
  while (!r.done()) {
    if (r.help(kFuzzAllocatorHelp)) return kExitOk;
    if (auto v = r.value("--runs")) opts.runs = ArgReader::toUint("--runs", *v, UINT64_MAX), runs_given = true;
    else if (auto v = r.value("--time")) opts.seconds = toSeconds("--time", *v);
    else if (auto v = r.value("--jobs")) opts.jobs = uint32_t(ArgReader::toUint("--jobs", *v, 256));
    else if (auto v = r.value("--seed")) opts.seed = ArgReader::toUint("--seed", *v, UINT64_MAX / 2);
    else if (auto v = r.value("--size")) {
      opts.gen.size = uint32_t(ArgReader::toUint("--size", *v, 100000)), opts.fixed_size = true;
      if (opts.gen.size == 0) throw UsageError("--size must be at least 1, got 0 (a program has at least one top-level statement)");
    }
    else if (auto v = r.value("--pressure"))
      opts.gen.pressure = uint32_t(ArgReader::toUint("--pressure", *v, 1000)), opts.fixed_pressure = true;
    else if (auto v = r.value("--dma-patterns"))
      opts.gen.dma_patterns = uint32_t(ArgReader::toUint("--dma-patterns", *v, 100)), opts.fixed_dma_patterns = true;
    else if (auto v = r.value("--corpus")) corpus_dirs.push_back(*v);
    else if (r.flag("--no-kernels")) kernels = false;
    else if (auto v = r.value("--out")) out_dir = *v;
    else if (auto v = r.value("--timeout")) process.timeout_seconds = toSeconds("--timeout", *v);
    else if (auto v = r.value("--max-output")) max_output = double(ArgReader::toUint("--max-output", *v, 1000000));
    else if (auto v = r.value("--max-failures")) opts.max_failures = uint32_t(ArgReader::toUint("--max-failures", *v, UINT32_MAX));
    else if (r.flag("--no-shrink")) opts.shrink = false;
    else if (r.flag("--no-sim")) opts.simulate = false;
    else if (auto v = r.value("--shrink-time")) opts.shrink_opts.max_seconds = toSeconds("--shrink-time", *v);
    else if (r.flag("--json")) json = true;
    else if (r.flag("--quiet")) quiet = true;
    else if (r.archOption(opts.gen.arch)) {
    } else r.unknown();
  }
  if (command.empty()) throw UsageError("fuzz-allocator needs the allocator's command after --");
  if (opts.jobs == 0) throw UsageError("--jobs must be at least 1");
  if (max_output < 1) throw UsageError("--max-output must be at least 1");
  if (opts.seconds > 0 && !runs_given) opts.runs = 0;  // --time alone: generate until the time is up
  if (runs_given && opts.runs == 0 && opts.seconds <= 0)  // 0 means "until --time runs out": without it, for ever
    throw UsageError("--runs 0 needs --time S (it means: generate cases until the time runs out)");
  {
    std::error_code ec;
    if (std::filesystem::exists(out_dir, ec) && !std::filesystem::is_directory(out_dir, ec))
      throw UsageError("--out '" + out_dir + "' is not a directory (failures are written into one)");
  }
  if (std::string err = validateArch(opts.gen.arch); !err.empty()) throw UsageError(err);

  if (kernels) addKernels(opts.gen.arch, opts.seed, opts.corpus);
  for (const std::string& dir : corpus_dirs)
    if (!loadCorpus(dir, opts.corpus, opts.seed)) return kExitBadInput;

  ExternalCommandSubject subject(command, process, "", max_output);
  const std::string cmd = commandText(command);
  const bool tty = isatty(2) && !quiet;
  if (tty)
    opts.progress = [](const CampaignProgress& p) {
      std::fprintf(stderr, "\r%s%s", fuzzProgressLine(p).c_str(), p.done ? "\n" : "   ");
      std::fflush(stderr);
    };
  CampaignResult result = runCampaign(subject, opts);
  FuzzReportContext ctx;
  ctx.command = cmd;
  ctx.options = &opts;
  if (result.totals.failed > 0) {
    try {
      ctx.files = writeFailureFiles(out_dir, cmd, result);
    } catch (const std::runtime_error& e) {  // a folder that cannot be made or written: after the campaign, at --out
      throw UsageError("--out '" + out_dir + "': " + e.what());
    }
  }
  const std::string text = json ? fuzzReportJson(result, ctx) : fuzzReportText(result, ctx);
  std::fputs(text.c_str(), stdout);
  return result.totals.failed > 0 ? kExitVerifyFailed : kExitOk;
}

}  // namespace allocsim::cli
