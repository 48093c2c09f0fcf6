// allocsim verify: the three oracles on an allocated program written by any allocator.
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "alloc/driver.h"
#include "tools/progress_line.h"
#include "tools/allocation_svg.h"
#include "ir/parse.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/python_kernel.h"
#include "tools/verbs.h"
#include "tools/verify_report.h"
#include "verify/correct.h"
#include "verify/kernel_placements.h"

namespace allocsim::cli {
namespace {

// A kernel in Python that places tensors by hand: its outputs against those of the same kernel traced with the
// placements left out (ALLOCSIM_NKI_UNPLACED, python/allocsim_nki), which is what the oracles' reference cannot
// show when a placement is written into the instructions (verify/kernel_placements.h). nullopt when they agree or
// the kernel places nothing.
std::optional<Finding> kernelPlacementFinding(const std::string& path, const Program& placed, uint64_t seed) {
  bool pinned = false;
  for (const Tensor& t : placed.tensors) pinned |= t.pinned;
  if (!pinned) return std::nullopt;
  setenv("ALLOCSIM_NKI_UNPLACED", "1", 1);
  std::optional<std::string> text = traceKernel(path, kernelOptions().arch);
  unsetenv("ALLOCSIM_NKI_UNPLACED");
  if (!text) return std::nullopt;
  std::optional<Finding> f = compareWithUnplacedKernel(placed, parseProgram(*text), seed);
  if (f) {
    const std::string line = tracedKernelLine(f->loc.line);
    if (!line.empty()) f->notes.insert(f->notes.begin(), "kernel line: " + line);
  }
  return f;
}

// A kernel in Python that places its tensors by hand can still leave some without a placement: tensors the tracer
// makes for it (a constant's copy in SBUF, a reduction's scratch) and tensors the kernel allocates with nl.sbuf. The
// compiler places those around the hand placements; here the allocator does (-O2, no DMA rewriting), keeping every
// hand placement (pinned), so that what is verified is the kernel's own placement. False when nothing was missing.
bool placeTheRest(Program& p) {
  bool pinned = false, missing = false;
  for (const Tensor& t : p.tensors) {
    pinned |= t.pinned;
    missing |= t.space != Space::Dram && !t.placement;
  }
  for (const Register& r : p.registers) missing |= !r.phys;
  if (!pinned || !missing) return false;
  DriverOptions o;
  o.gca_dma_optlevel = -1;
  p = allocate(std::move(p), o).program;
  return true;
}

}  // namespace

static const char kVerifyHelp[] =
    "usage: allocsim verify ALLOCATED [--original PROG] [--seed S] [--poison-seed S] [--json] [--all] [--svg MAP.svg] [--quiet]\n"
    "\n"
    "Checks an allocated program (placements @pP+B, @bankN, @rN and inserted !spill / !reload / !copy\n"
    "instructions; docs/verification.md) with three oracles:\n"
    "  equivalence  the unallocated program on private storage and the allocated one on poisoned physical\n"
    "               storage read the same operand values at every original instruction, and give the same\n"
    "               DRAM outputs\n"
    "  symbolic     every read finds the value (tensor, version) it expects in the physical location\n"
    "  placement    placements in bounds, aligned, on legal partitions and banks, pinned ones kept, and no\n"
    "               two simultaneously live tensors or registers overlap\n"
    "Each failing oracle names its first bad instruction as file:line:col.\n"    "A kernel in Python (KERNEL.py) that places tensors by hand is also run without its placements: an\n"
    "output that differs is a finding (a modulo allocation with too few tiles shows only there).\n"
    "\n"
    "  --original PROG   the unallocated input: pinned tensors must keep its placements\n"
    "  --seed S          seed of the input data (default 1)\n"
    "  --poison-seed S   seed of the poison pattern (default: a new one each run, printed)\n"
    "  --json            print the report as JSON (every finding)\n"
    "  --quiet           no progress line (shown on a terminal once a run takes a second)\n"
    "  --all             print every group of findings (default: the first 20; a group is one oracle's findings\n"
    "                    of one kind about the same tensors or instruction, shown as its first and a count)\n"
    "  --svg MAP.svg     also draw the allocation (allocsim show) with the first finding in red\n"
    "\n"
    "exit codes: 0 all three pass, 1 a finding, 2 bad input or usage\n";

int runVerify(const Args& args) {
  ArgReader r(args);
  std::string in, original, svg;
  VerifyOptions opts;
  bool json = false, all_groups = false, quiet = false;
  while (!r.done()) {
    if (r.help(kVerifyHelp)) return kExitOk;
    if (auto v = r.value("--original")) original = *v;
    else if (auto v = r.value("--seed")) opts.input_seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
    else if (auto v = r.value("--poison-seed")) opts.poison_seed = ArgReader::toUint("--poison-seed", *v, UINT64_MAX);
    else if (r.flag("--json")) json = true;
    else if (r.flag("--all")) all_groups = true;
    else if (r.flag("--quiet")) quiet = true;
    else if (auto v = r.value("--svg")) svg = *v;
    else if (r.positionalInto(in)) continue;
    else r.unknown();
  }
  if (in.empty()) throw UsageError("verify needs an allocated program (a path, or - for standard input)");
  if (original == "-" && in == "-") throw UsageError("verify: only one of the programs can be standard input");
  auto program = loadProgram(in);
  if (!program) return kExitBadInput;
  if (isPythonKernel(in)) placeTheRest(*program);
  std::optional<Program> orig;
  if (!original.empty()) {
    orig = loadProgram(original);
    if (!orig) return kExitBadInput;
    opts.original = &*orig;
  }
  const std::string display = in == "-" ? "<stdin>" : in;
  ProgressLine progress("verify", ProgressLine::wanted(quiet));
  opts.progress = progress.fn();
  // A correct allocation (verify/correct.h); loadProgram has checked the program is well-formed, and an
  // ill-formed file is bad input here, not a finding. With --original that program is what it must stand for.
  CorrectnessOptions check;
  check.verify = opts;
  check.well_formed_known = true;
  const Verdict verdict = checkAllocation(*program, check);
  progress.erase();
  if (verdict.defect == Defect::CannotRun) {
    std::fputs(InputError(verdict.diagnostics).format(display).c_str(), stderr);
    return kExitBadInput;
  }
  VerifyReport report = verdict.report;
  if (isPythonKernel(in)) {
    try {
      if (std::optional<Finding> f = kernelPlacementFinding(in, *program, opts.input_seed)) {
        report.findings.insert(report.findings.begin(), *f);
        ++report.oracles[0].findings;
      }
    } catch (const InputError& e) {
      std::fputs(InputError(e.diagnostics()).format(display + " (traced without its placements)").c_str(), stderr);
      return kExitBadInput;
    }
  }
  std::string text = json ? verifyReportJson(report, display, opts.input_seed)
                          : verifyReportText(report, display, opts.input_seed, all_groups ? 0 : 20);
  std::fputs(text.c_str(), stdout);
  if (!svg.empty()) {
    // The first finding that names storage (an overlap) shows where; otherwise the first finding shows when.
    const Finding* shown = report.findings.empty() ? nullptr : &report.findings.front();
    for (const Finding& f : report.findings)
      if (f.region.present()) {
        shown = &f;
        break;
      }
    SvgOptions so;
    so.title = display;
    so.finding = shown;
    writeOutput(svg, allocationSvg(*program, so));
  }
  return report.ok() ? kExitOk : kExitVerifyFailed;
}

}  // namespace allocsim::cli
