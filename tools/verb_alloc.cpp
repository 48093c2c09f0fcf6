// allocsim alloc: allocate a program at an optlevel (alloc/driver.h) and print the allocated program.
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/number_text.h"
#include "alloc/optlevel.h"
#include "alloc/psum/psum_heuristic.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "ir/check.h"
#include "ir/print.h"
#include "tools/progress_line.h"
#include "tools/alloc_output.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/placement_check.h"
#include "tools/verbs.h"
#include "tools/verify_report.h"
#include "verify/correct.h"
#include "verify/liveness_precision.h"
#include "verify/verify.h"

namespace allocsim::cli {

static const char kAllocHelp[] =
    "usage: allocsim alloc PROGRAM [--allocator A] [-O N | --optlevel N] [--cores N]\n"
    "                      [--time-limit S] [--node-budget N]\n"
    "                      [--loops-in-backend] [--smt-allocation] [--gca-dma-optlevel L] [--unlimited-room]\n"
    "                      [--sbuf-heuristic H] [--psum-heuristic H] [--sbuf-headroom PCT]\n"
    "                      [--arch NAME] [--KEY VALUE]\n"
    "                      [-o OUT] [-v] [--json] [--verify [--seed S] [--poison-seed S]] [--quiet]\n"
    "\n"
    "Allocates PROGRAM (SBUF, PSUM and SP registers) and prints the allocated program: placements\n"
    "@pP+B / @bankN / @rN and the inserted spill and reload instructions (docs/format.md).\n"
    "\n"
    "  --allocator A        which allocator places SBUF and PSUM (then the REG colorer runs at every level,\n"
    "                       spilling registers to DRAM slots):\n"
    "                         coloring  PSUM colorer, then SBUF colorer with PSUM frozen (the default); -O1,\n"
    "                                   -O2 (default), -O3 pick best-of-n effort: heuristics PSUM 1 / 4 / 4,\n"
    "                                   SBUF 1 / 7 / 16; -O6 coloring with loops (= -O2 here: every colorer\n"
    "                                   sees the loops)\n"
    "                         no-reuse  every tensor in storage of its own\n"
    "                         fixed     placements in PROGRAM are kept (PSUM must be placed: no PSUM\n"
    "                                   pass), unplaced SBUF colored around them, then all re-placed by the\n"
    "                                   in-place write checker\n"
    "                         lsa       linear scan with the best-fit manager, PSUM then SBUF (with -O6 its\n"
    "                                   loop-aware variant)\n"
    "                         exact     see below\n"
    "  -O N, --optlevel N   the effort within the allocator; the production compiler's optlevels that pick an\n"
    "                       allocator are kept as aliases: -O0 = no-reuse, -O7 = fixed, -O8 = lsa\n"
    "  --allocator exact    the complete placement search (alloc/exact/): proves a fit within the machine,\n"
    "                       proves there is none, or reports its best height and the gap to the lower bound\n"
    "                       after --time-limit S seconds per space (default 10); never spills. With -O7 it\n"
    "                       keeps every placement PROGRAM gives and places the rest exactly\n"
    "  --node-budget N      --allocator exact: also give up after N search nodes per space (0: no budget);\n"
    "                       unlike the time limit, the outcome then depends on the program only\n"
    "  --cores N            virtual NeuronCores (default 1); -O0, -O8 and lsa are single-core only\n"
    "  --loops-in-backend   optlevel = (optlevel == 2) ? 6 : 8, as the driver does\n"
    "  --smt-allocation     optlevel = 7 (not a solver: the fixed-assignment mode)\n"
    "  --gca-dma-optlevel L the DMA optimization after the allocators (not at -O0): -1 off, 0 DMA figures\n"
    "                       only (Pre GCA / Post GCA), 1 remove redundant and dead spill DMAs, coalesce,\n"
    "                       narrow (default), 2 also turn resident reloads into on-chip copies (GCA:\n"
    "                       graph-coloring allocation, the production compiler's name for the colorers)\n"
    "  --sbuf-headroom PCT  the load headroom (alloc/sbuf/sbuf_recent_bytes.h): loads in a loop whose bytes a\n"
    "                       compute instruction has only just read move above the SBUF peak, up to PCT% over\n"
    "                       the max-live per partition (default 5 at the coloring levels; 0: none)\n"
    "  --unlimited-room     the SBUF colorer colors as with unlimited room (each heuristic in its plain\n"
    "                       order, no capacity-dependent simplify order); with --sbuf-bytes 16777216, the\n"
    "                       height a coloring level reaches unconstrained: at a capacity at or above it the\n"
    "                       level never spills SBUF\n"
    "  --sbuf-heuristic H   the SBUF colorer runs heuristic H alone (its index in the sweep, 0-15, or its name;\n"
    "                       -v -v lists them: 0 largest-first/lowest-offset, 1 earliest-start/first-fit, ...),\n"
    "                       without the packing candidate, instead of the level's best-of-n: what that\n"
    "                       heuristic makes of PROGRAM when another one wins (-O1-3, -O6, -O7)\n"
    "  --psum-heuristic H   the PSUM colorer runs order H alone in every round (0 tensor-order,\n"
    "                       1 earliest-start, 2 fewest-banks, 3 latest-start) (-O1-3, -O6)\n"
    "  --arch NAME          allocate for a preset (gen2, gen1, gen3, tiny) instead of PROGRAM's arch line;\n"
    "  --KEY VALUE          override one field, e.g. --psum-banks 2, --sbuf-bytes 2048\n"
    "  -o OUT               write the allocated program to OUT instead of standard output\n"
    "  -v                   print the allocators' report lines to standard error (-v -v: more)\n"
    "  --json               print the reports as JSON on standard output (the program only with -o)\n"
    "  --verify             run the equivalence, symbolic and placement oracles on the result\n"
    "                       (report on standard error, or in the JSON); --seed S: input data,\n"
    "                       --poison-seed S: poison pattern (default: new each run, printed)\n"
    "  --quiet              no progress line (the allocators' spill rounds, scans or search nodes, and\n"
    "                       --verify's oracles; shown on a terminal once a run takes a second)\n"
    "\n"
    "exit codes: 0 ok, 1 --verify found a bug, 2 bad input or usage (including option combinations the\n"
    "selection map rejects), 3 allocation impossible (the allocator's diagnostic)\n";

namespace {

struct AllocArgs {
  std::string in, out;
  DriverOptions driver;
  std::optional<int> optlevel;  // -O as given; resolved with --allocator (alloc/optlevel.h resolveAllocator)
  bool json = false, verify = false, arch_given = false, help = false, quiet = false;
  int verbose = 0;
  VerifyOptions verify_opts;
};

// "-O2" -> "-O" "2", "-vv" -> "-v" "-v": the spellings compiler users type.
Args expandShortForms(const Args& args) {
  Args out;
  for (const std::string& a : args) {
    if (a.size() > 2 && a.compare(0, 2, "-O") == 0 && a[2] != '=') {
      out.push_back("-O");
      out.push_back(a.substr(2));
    } else if (a.size() > 2 && a.find_first_not_of('v', 1) == std::string::npos && a[0] == '-') {
      for (size_t i = 1; i < a.size(); ++i) out.push_back("-v");
    } else {
      out.push_back(a);
    }
  }
  return out;
}

// --gca-dma-optlevel: the production allocator's levels -1, 0, 1, 2.
int parseGcaDmaOptlevel(const std::string& v) {
  for (int level = -1; level <= 2; ++level)
    if (v == std::to_string(level)) return level;
  throw UsageError("--gca-dma-optlevel expects -1, 0, 1 or 2, got '" + v + "'");
}

// --sbuf-heuristic / --psum-heuristic: an index or a name (alloc/sbuf/sbuf_heuristic.h, alloc/psum/psum_heuristic.h).
uint32_t parseHeuristic(const std::string& option, const std::string& v, uint32_t count,
                        std::optional<uint32_t> (*byName)(const std::string&)) {
  if (std::optional<uint32_t> k = byName(v)) return *k;
  if (!v.empty() && v.find_first_not_of("0123456789") == std::string::npos && v.size() <= 3 &&
      std::stoul(v) < count)
    return uint32_t(std::stoul(v));
  throw UsageError(option + " expects a heuristic's index (0-" + std::to_string(count - 1) + ") or name, got '" + v +
                   "'");
}

// Reads every option; architecture options are applied to `arch` (the caller runs this once to validate, and again
// on the loaded program's arch).
AllocArgs parseAllocArgs(const Args& raw, Arch& arch) {
  const Args args = expandShortForms(raw);
  ArgReader r(args);
  AllocArgs a;
  while (!r.done()) {
    if (r.flag("--help") || r.flag("-h")) {
      a.help = true;
      return a;
    }
    if (auto v = r.value("-O")) a.optlevel = int(ArgReader::toUint("-O", *v, 1000));
    else if (auto v = r.value("--optlevel")) a.optlevel = int(ArgReader::toUint("--optlevel", *v, 1000));
    else if (auto v = r.value("--allocator")) a.driver.allocator = *v;
    else if (auto v = r.value("--time-limit")) a.driver.time_limit_s = ArgReader::toSeconds("--time-limit", *v);
    else if (auto v = r.value("--node-budget")) a.driver.node_budget = ArgReader::toUint("--node-budget", *v, UINT64_MAX);
    else if (auto v = r.value("--cores")) a.driver.cores = int(ArgReader::toUint("--cores", *v, 1000000));
    else if (r.flag("--loops-in-backend")) a.driver.loops_in_backend = true;
    else if (r.flag("--smt-allocation")) a.driver.smt_allocation = true;
    else if (r.flag("--unlimited-room")) a.driver.sbuf_unlimited_room = true;
    else if (auto v = r.value("--sbuf-headroom"))
      a.driver.sbuf_load_headroom_pct = uint32_t(ArgReader::toUint("--sbuf-headroom", *v, 1000000));
    else if (auto v = r.value("--sbuf-heuristic"))
      a.driver.sbuf_heuristic = parseHeuristic("--sbuf-heuristic", *v, kSbufHeuristicCount, sbufHeuristicIndex);
    else if (auto v = r.value("--psum-heuristic"))
      a.driver.psum_heuristic = parseHeuristic("--psum-heuristic", *v, kPsumHeuristicCount, psumHeuristicIndex);
    else if (auto v = r.value("--gca-dma-optlevel")) a.driver.gca_dma_optlevel = parseGcaDmaOptlevel(*v);
    else if (auto v = r.value("-o")) a.out = *v;
    else if (r.flag("-v")) ++a.verbose;
    else if (r.flag("--json")) a.json = true;
    else if (r.flag("--verify")) a.verify = true;
    else if (r.flag("--quiet")) a.quiet = true;
    else if (auto v = r.value("--seed")) a.verify_opts.input_seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
    else if (auto v = r.value("--poison-seed"))
      a.verify_opts.poison_seed = ArgReader::toUint("--poison-seed", *v, UINT64_MAX);
    else if (r.archOption(arch)) a.arch_given = true;
    else if (r.positionalInto(a.in)) continue;
    else r.unknown();
  }
  a.driver.verbosity = a.verbose > 1 ? a.verbose - 1 : 0;
  a.driver.exact_check = placementOracleCheck();
  a.driver.liveness_report = a.verbose > 0 || a.json;  // the report's liveness section
  try {
    const AllocatorChoice c = resolveAllocator(a.driver.allocator, a.optlevel);
    a.driver.optlevel = c.optlevel;
    a.driver.allocator = c.allocator;
  } catch (const OptionError& e) {
    throw UsageError(e.what());
  }
  return a;
}

// The liveness precision figure: the static max-live against what one interpreted run observes.
std::string precisionText(const Program& input) {
  std::string out = "[liveness precision]\n";
  try {
    const LivenessPrecision lp = livenessPrecision(input);
    // Where the ranges' iterations lower the figure, also what a placement (one for every iteration) needs.
    auto any = [](uint64_t by_iteration, uint64_t any_iteration, const char* unit) {
      return any_iteration == by_iteration
                 ? std::string()
                 : " (on any iteration " + std::to_string(any_iteration) + unit + ")";
    };
    out += "  SBUF max-live per partition: static " + std::to_string(lp.static_sbuf_bytes) + " B / dynamic " +
           std::to_string(lp.dynamic_sbuf_bytes) + " B = " + formatReportNumber(lp.sbufRatio(), 3) +
           any(lp.static_sbuf_bytes, lp.any_iteration_sbuf_bytes, " B") + "\n";
    out += "  PSUM max-live banks: static " + std::to_string(lp.static_psum_banks) + " / dynamic " +
           std::to_string(lp.dynamic_psum_banks) + " = " + formatReportNumber(lp.psumRatio(), 3) +
           any(lp.static_psum_banks, lp.any_iteration_psum_banks, "") + "\n";
  } catch (const InputError& e) {
    out += "  not measured: the input does not run (" + std::string(e.what()) + ")\n";
  }
  return out;
}

}  // namespace

int runAlloc(const Args& args) {
  Arch scratch = *archPreset("gen2");
  AllocArgs a = parseAllocArgs(args, scratch);
  if (a.help) {
    std::fputs(kAllocHelp, stdout);
    return kExitOk;
  }
  if (a.in.empty()) throw UsageError("alloc needs a program (a path, or - for standard input)");
  const std::string display = a.in == "-" ? "<stdin>" : a.in;

  auto loaded = loadProgram(a.in, !a.arch_given);
  if (!loaded) return kExitBadInput;
  Program& input = *loaded;
  if (a.arch_given) {
    parseAllocArgs(args, input.arch);
    std::string err = validateArch(input.arch);
    if (!err.empty()) throw UsageError(err);
    try {
      requireWellFormed(input);
    } catch (const InputError& e) {
      std::fputs(e.format(display).c_str(), stderr);
      return kExitBadInput;
    }
  }

  DriverResult result;
  {
    // Erased before anything else is written to standard error (the destructor does it on every path).
    ProgressLine progress("alloc", ProgressLine::wanted(a.quiet));
    a.driver.progress = progress.fn();
    try {
      // The input is read again only for -v's precision figure and for --verify; otherwise it is allocated in place.
      const bool input_needed = a.verbose > 0 || a.verify;
      result = input_needed ? allocate(input, a.driver) : allocate(std::move(input), a.driver);
    } catch (const OptionError& e) {
      throw UsageError(e.what());
    } catch (const AllocError& e) {
      progress.erase();
      std::fputs((e.format(display) + "\n").c_str(), stderr);
      return kExitAllocImpossible;
    } catch (const InputError& e) {
      progress.erase();
      std::fputs(e.format(display).c_str(), stderr);
      return kExitBadInput;
    }
    a.driver.progress = nullptr;
  }
  if (a.verbose > 0) {
    std::fputs(driverReportText(result).c_str(), stderr);
    std::fputs(precisionText(input).c_str(), stderr);
  }

  int code = kExitOk;
  std::string verify_json;
  if (a.verify) {
    // The output must be well-formed and recover to the input before any oracle may call it correct:
    // an allocator that writes, say, a spill DMA into an open accumulation group has a bug even if the data
    // comes out right.
    CorrectnessOptions check;
    check.verify = a.verify_opts;
    check.input = &input;
    ProgressLine progress("alloc --verify", ProgressLine::wanted(a.quiet));
    check.verify.progress = progress.fn();
    const Verdict verdict = checkAllocation(result.program, check);
    progress.erase();
    if (verdict.defect == Defect::CannotRun) {
      std::fputs(InputError(verdict.diagnostics).format(display).c_str(), stderr);
      return kExitBadInput;
    }
    if (verdict.defect == Defect::IllFormed || verdict.defect == Defect::NotTheInput) {
      std::string text;
      for (const Diagnostic& d : verdict.diagnostics)
        text += formatDiagnostic(display, d) + " (in the allocated output)\n";
      if (verdict.defect == Defect::IllFormed)
        text += display + ": FAILED: the allocated output is not well-formed (" +
                std::to_string(verdict.diagnostics.size()) + " diagnostic(s)); the oracles were not run\n";
      else
        text += display + ": FAILED: the allocated output does not implement the input" +
                (verdict.mismatch.empty() ? std::string() : ": " + verdict.mismatch) + "; the oracles were not run\n";
      std::fputs(text.c_str(), stderr);
      if (!a.json || !a.out.empty()) writeOutput(a.out, printProgram(result.program));
      return kExitVerifyFailed;
    }
    const VerifyReport& vr = verdict.report;
    if (a.json) verify_json = verifyReportJson(vr, display, a.verify_opts.input_seed);
    else std::fputs(verifyReportText(vr, display, a.verify_opts.input_seed).c_str(), stderr);
    if (!vr.ok()) code = kExitVerifyFailed;
  }
  if (!a.json || !a.out.empty()) writeOutput(a.out, printProgram(result.program));
  if (a.json) std::fputs(driverReportJson(result, display, verify_json).c_str(), stdout);
  return code;
}

}  // namespace allocsim::cli
