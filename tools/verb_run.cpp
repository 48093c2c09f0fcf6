// allocsim run: allocate a program (or take an allocated one), simulate it on the SystemC model (sim/), and check
// the simulated run against the reference interpreter; `--compare O0,O2,...` prints optlevels side by side.
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/optlevel.h"
#include "ir/check.h"
#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "sim/simulate.h"
#include "tools/progress_line.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/placement_check.h"
#include "tools/sim_report.h"
#include "tools/verbs.h"
#include "tools/verify_report.h"
#include "verify/equivalence.h"
#include "verify/timing_agreement.h"

namespace allocsim::cli {

static const char kRunHelp[] =
    "usage: allocsim run PROGRAM [--allocator A] [-O N] [--compare O0,O2,...] [--timing FILE] [--seed S] [--poison-seed S]\n"
    "                    [--top N] [--json] [--quiet] [--timing-only] [--check-timing] [--sbuf-headroom PCT]\n"
    "                    [--arch NAME] [--KEY VALUE]\n"
    "\n"
    "Allocates PROGRAM at -O N (default 2; a program whose tensors and registers are all placed is simulated\n"
    "as given unless -O is named), simulates it on the SystemC model of the core and prints total cycles,\n"
    "per-engine busy time, DMA queues (transfers, descriptors, bytes, peak ring occupancy), stall cycles by\n"
    "cause (RAW, WAR, WAW, ring-full, engine-busy, port) and the instruction pairs that stalled most. Then checks\n"
    "that the simulated DRAM outputs and every instruction's operand hash equal the reference interpreter's\n"
    "run of the allocated program on the same physical storage, that every instruction's start and end equal\n"
    "the timing oracle's (an independent implementation of docs/simulator.md's timing rules) and the run\n"
    "keeps the timing invariants, and that the allocation is equivalent to the unallocated program (the\n"
    "equivalence oracle of `allocsim verify`).\n"
    "\n"
    "  --allocator A       the allocator (see `allocsim alloc --help`): coloring (default), no-reuse, fixed,\n"
    "                      lsa, exact\n"
    "  -O N, --optlevel N  the effort within it; -O0, -O7, -O8 are aliases of no-reuse, fixed, lsa\n"
    "  --compare LIST      optlevels to simulate side by side, e.g. O0,O2,O7: cycles, stalls, peak SBUF\n"
    "                      bytes per partition, inserted spill/reload instructions, check result\n"
    "  --timing FILE       a timing table (sim/timing/default.txt form); its keys replace those of the table\n"
    "                      of the program's arch preset (gen3: sim/timing/gen3.txt, the others: default.txt)\n"
    "  --seed S            input data seed (default 1)\n"
    "  --poison-seed S     poison pattern of the physical storage (default 1)\n"
    "  --top N             stall pairs to list (default 5)\n"
    "  --sbuf-headroom PCT the SBUF colorer's load headroom, as `allocsim alloc --sbuf-headroom`\n"
    "  --json              print the statistics and the check as JSON\n"
    "  --quiet             no progress line (shown on a terminal once a run takes a second)\n"
    "  --timing-only       compute only what timing depends on (registers, addresses, loop trips; all tensor\n"
    "                      data when a register is loaded from a tensor): the same cycles, stalls and traces\n"
    "                      as a full run, much faster at real sizes; outputs are neither computed nor checked,\n"
    "                      nor the timing unless --check-timing\n"
    "  --check-timing      with --timing-only: still hold the timing against the timing oracle\n"
    "  --arch NAME, --KEY VALUE   machine preset or override (ir/arch.h)\n"
    "\n"
    "exit codes: 0 ok, 1 a check failed (the first bad instruction is named), 2 bad input or usage,\n"
    "3 allocation impossible (the allocator's diagnostic)\n";

namespace {

struct RunArgs {
  std::string in, timing_file, allocator;
  std::vector<int> levels;  // --compare
  int optlevel = 2;
  bool optlevel_given = false, allocator_given = false, json = false, arch_given = false, help = false, quiet = false,
       timing_only = false, check_timing = false;
  uint64_t seed = 1, poison_seed = 1;
  size_t top = 5;
  std::optional<uint32_t> sbuf_headroom;  // --sbuf-headroom (DriverOptions::sbuf_load_headroom_pct)
};

std::vector<int> parseLevels(const std::string& list) {
  std::vector<int> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty() && (item[0] == 'O' || item[0] == 'o')) item = item.substr(1);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 2)
      throw UsageError("--compare expects optlevels like O0,O2,O7, got '" + list + "'");
    out.push_back(std::stoi(item));
  }
  if (out.empty()) throw UsageError("--compare expects at least one optlevel");
  return out;
}

RunArgs parseRunArgs(const Args& raw, Arch& arch) {
  Args args;
  for (const std::string& a : raw) {  // "-O2" -> "-O" "2"
    if (a.size() > 2 && a.compare(0, 2, "-O") == 0) args.push_back("-O"), args.push_back(a.substr(2));
    else args.push_back(a);
  }
  ArgReader r(args);
  RunArgs a;
  while (!r.done()) {
    if (r.flag("--help") || r.flag("-h")) {
      a.help = true;
      return a;
    }
    if (auto v = r.value("-O")) a.optlevel = int(ArgReader::toUint("-O", *v, 1000)), a.optlevel_given = true;
    else if (auto v = r.value("--optlevel")) a.optlevel = int(ArgReader::toUint("--optlevel", *v, 1000)), a.optlevel_given = true;
    else if (auto v = r.value("--allocator")) a.allocator = *v, a.allocator_given = true;
    else if (auto v = r.value("--compare")) a.levels = parseLevels(*v);
    else if (auto v = r.value("--timing")) a.timing_file = *v;
    else if (auto v = r.value("--seed")) a.seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
    else if (auto v = r.value("--poison-seed")) a.poison_seed = ArgReader::toUint("--poison-seed", *v, UINT64_MAX);
    else if (auto v = r.value("--top")) a.top = ArgReader::toUint("--top", *v, 1000);
    else if (auto v = r.value("--sbuf-headroom"))
      a.sbuf_headroom = uint32_t(ArgReader::toUint("--sbuf-headroom", *v, 1000000));
    else if (r.flag("--json")) a.json = true;
    else if (r.flag("--quiet")) a.quiet = true;
    else if (r.flag("--timing-only")) a.timing_only = true;
    else if (r.flag("--check-timing")) a.check_timing = true;
    else if (r.archOption(arch)) a.arch_given = true;
    else if (r.positionalInto(a.in)) continue;
    else r.unknown();
  }
  return a;
}

bool fullyAllocated(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.placement) return false;
  for (const Register& r : p.registers)
    if (!r.phys) return false;
  return true;
}

// Per partition, the highest SBUF byte any tensor occupies.
uint64_t peakSbufBytes(const Program& p) {
  uint64_t peak = 0;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Sbuf && t.placement) peak = std::max(peak, t.placement->offset + t.bytesPerPartition());
  return peak;
}

uint64_t insertedSpills(const Program& p) {
  uint64_t n = 0;
  forEachInstruction(p.body, [&](const Instruction& i) { n += i.origin == Origin::Spill || i.origin == Origin::Reload; });
  return n;
}

// One level's outcome: the allocated program, its simulation, and the first failed check ("" when all pass).
struct LevelRun {
  Program allocated;
  sim::SimResult sim;
  std::string failure;
  uint64_t hashes = 0;
  bool timing_checked = false;
};

// The model's timing against the timing oracle and the invariants (verify/timing_agreement.h): "" when both hold.
std::string timingFailure(const Program& allocated, const sim::SimResult& r, const sim::Trace& trace,
                          const sim::SimOptions& so, const std::string& display) {
  const std::string d = verify::timingDisagreement(allocated, so, r.stats, trace);
  return d.empty() ? d : display + ": [timing] " + d;
}

LevelRun simulateAllocated(Program allocated, const RunArgs& a, const sim::TimingTable& timing,
                           const std::string& display) {
  LevelRun run;
  run.allocated = std::move(allocated);
  sim::SimOptions so;
  so.input_seed = a.seed;
  so.poison_seed = a.poison_seed;
  so.timing = timing;
  ProgressLine progress("run", ProgressLine::wanted(a.quiet));
  so.progress = progress.fn();
  so.timing_only = a.timing_only;
  so.record_reads = !a.timing_only;
  // The trace the timing check compares (slices and ring changes: a few dozen bytes per executed instruction).
  sim::Trace trace;
  run.timing_checked = !a.timing_only || a.check_timing;
  if (run.timing_checked) so.trace = &trace;
  run.sim = sim::simulate(run.allocated, so);
  if (a.timing_only) {  // nothing computed to check but the timing
    if (run.timing_checked) run.failure = timingFailure(run.allocated, run.sim, trace, so, display);
    progress.erase();
    return run;
  }
  PhysicalStorage storage(run.allocated, a.poison_seed);
  InterpOptions io;
  io.input_seed = a.seed;
  io.progress = progress.fn();
  io.progress_phase = "checking against the interpreter";
  InterpResult ref = interpret(run.allocated, storage, io);
  progress.erase();
  run.hashes = ref.reads.size();
  if (auto d = simulatorDisagreement(run.allocated, run.sim.exec, ref)) {
    run.failure = display + ": [simulator] " + *d + "\n";
    return run;
  }
  run.failure = timingFailure(run.allocated, run.sim, trace, so, display);
  if (!run.failure.empty()) return run;
  EquivalenceOptions eo;
  eo.input_seed = a.seed;
  eo.poison_seed = a.poison_seed;
  std::vector<Finding> findings = checkEquivalence(run.allocated, eo);
  if (!findings.empty()) run.failure = findings.front().format(display);
  return run;
}

std::string seedsText(const RunArgs& a) {
  return "input seed " + std::to_string(a.seed) + ", poison seed " + std::to_string(a.poison_seed);
}

int compareLevels(const Program& input, const RunArgs& a, const sim::TimingTable& timing, const std::string& display) {
  std::string table = "level      cycles        RAW        WAR        WAW  ring-full  engine-busy       port  peak-SBUF  spills  check\n";
  std::string failures;
  int code = kExitOk;
  for (int level : a.levels) {
    DriverOptions d;
    d.optlevel = level;
    d.sbuf_load_headroom_pct = a.sbuf_headroom;
    Program allocated;
    try {
      allocated = allocate(input, d).program;
    } catch (const OptionError& e) {
      throw UsageError(e.what());
    } catch (const AllocError& e) {
      char row[160];
      std::snprintf(row, sizeof row, "-O%-3d  %s\n", level, "allocation impossible (allocsim alloc -O names why)");
      table += row;
      continue;
    }
    LevelRun run = simulateAllocated(std::move(allocated), a, timing, display);
    const sim::SimStats& s = run.sim.stats;
    char row[256];
    std::snprintf(row, sizeof row,
                  "-O%-3d %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %10" PRIu64
                  " %10" PRIu64 " %7" PRIu64 "  %s\n",
                  level, s.cycles, s.stall_cycles[0], s.stall_cycles[1], s.stall_cycles[2], s.stall_cycles[3],
                  s.stall_cycles[4], s.stall_cycles[5], peakSbufBytes(run.allocated), insertedSpills(run.allocated),
                  run.failure.empty() ? "ok" : "FAILED");
    table += row;
    if (!run.failure.empty()) failures += "-O" + std::to_string(level) + ": " + run.failure, code = kExitVerifyFailed;
  }
  std::fputs((display + ": simulated cycles by optlevel (" + seedsText(a) + ")\n" + table).c_str(), stdout);
  std::fputs(failures.c_str(), stderr);
  return code;
}

}  // namespace

int runRun(const Args& args) {
  Arch scratch = *archPreset("gen2");
  RunArgs a = parseRunArgs(args, scratch);
  if (a.help) {
    std::fputs(kRunHelp, stdout);
    return kExitOk;
  }
  if (a.in.empty()) throw UsageError("run needs a program (a path, or - for standard input)");
  const std::string display = a.in == "-" ? "<stdin>" : a.in;
  // The file's keys replace those of the program's preset table (known once the program is read): checked now.
  std::string timing_text;
  if (!a.timing_file.empty()) {
    try {
      timing_text = readSource(a.timing_file);
      sim::TimingTable().apply(timing_text);
    } catch (const InputError& e) {
      std::fputs(e.format(a.timing_file).c_str(), stderr);
      return kExitBadInput;
    }
  }
  auto loaded = loadProgram(a.in, !a.arch_given);
  if (!loaded) return kExitBadInput;
  Program& input = *loaded;
  return allocationErrorsReported(display, [&]() -> int {
    if (a.arch_given) {
      parseRunArgs(args, input.arch);
      if (std::string err = validateArch(input.arch); !err.empty()) throw UsageError(err);
      requireWellFormed(input);
    }
    sim::TimingTable timing = sim::TimingTable::forPreset(input.arch.name);
    timing.apply(timing_text);
    if (!a.levels.empty()) return compareLevels(input, a, timing, display);
    const bool as_given = fullyAllocated(input) && !a.optlevel_given && !a.allocator_given && !a.sbuf_headroom;
    Program allocated = input;
    if (!as_given) {
      DriverOptions d;
      try {
        const AllocatorChoice c =
            resolveAllocator(a.allocator, a.optlevel_given ? std::optional<int>(a.optlevel) : std::nullopt);
        d.optlevel = c.optlevel;
        d.allocator = c.allocator;
        d.exact_check = placementOracleCheck();
        d.sbuf_load_headroom_pct = a.sbuf_headroom;
      } catch (const OptionError& e) {
        throw UsageError(e.what());
      }
      allocated = allocate(input, d).program;
    }
    LevelRun run = simulateAllocated(std::move(allocated), a, timing, display);
    const std::string how = as_given              ? "the allocation in the file"
                            : a.allocator_given ? "--allocator " + a.allocator +
                                                      (a.optlevel_given ? " -O" + std::to_string(a.optlevel) : "")
                                                : "-O" + std::to_string(a.optlevel);
    if (a.json) {
      std::string out = "{\"file\": " + jsonString(display) + ", \"allocation\": " + jsonString(how) +
                        ", \"input_seed\": " + std::to_string(a.seed) + ", \"poison_seed\": " +
                        std::to_string(a.poison_seed) + ", \"stats\": " + simStatsJson(run.allocated, run.sim.stats, a.top) +
                        (a.timing_only ? ", \"timing_only\": true" : "") +
                        ", \"ok\": " + (run.failure.empty() ? "true" : "false") +
                        ", \"failure\": " + (run.failure.empty() ? "null" : jsonString(run.failure)) + "}\n";
      std::fputs(out.c_str(), stdout);
    } else {
      std::fputs((display + ": simulated " + how + " on arch " + input.arch.name + "\n").c_str(), stdout);
      std::fputs(simStatsText(run.allocated, run.sim.stats, timing.clock_ghz, a.top).c_str(), stdout);
    }
    if (!run.failure.empty()) {
      std::fputs(run.failure.c_str(), stderr);
      return kExitVerifyFailed;
    }
    if (!a.json && a.timing_only && run.timing_checked)
      std::fputs((display + ": timing only: outputs were not computed; every instruction's start and end equal the "
                  "timing oracle's and the timing invariants hold\n").c_str(), stdout);
    else if (!a.json && a.timing_only)
      std::fputs((display + ": timing only: outputs were not computed, nothing was checked\n").c_str(), stdout);
    else if (!a.json)
      std::fputs((display + ": ok: the simulated DRAM outputs and " + std::to_string(run.hashes) +
                  " operand hashes equal the interpreter's on the same physical storage, every instruction's start "
                  "and end equal the timing oracle's, and the allocation is equivalent to the unallocated program (" + seedsText(a) + ")\n")
                     .c_str(),
                 stdout);
    return kExitOk;
  });
}

}  // namespace allocsim::cli
