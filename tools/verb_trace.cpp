// allocsim trace: simulate a program (allocating it first, as `allocsim run` does) and write its timelines: a VCD of
// engine activity and ring occupancy (sc_trace) and a Chrome/Perfetto trace-event JSON (sim/trace_json.h).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/optlevel.h"
#include "ir/check.h"
#include "sim/simulate.h"
#include "sim/trace_json.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/sim_report.h"
#include "tools/verbs.h"
#include "verify/timing_agreement.h"

namespace allocsim::cli {

// Where the model writes the VCD before it is copied to --vcd: the temporary directory, one name per process.
static std::string scratchVcdPath() {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  return (dir / ("allocsim-trace-" + std::to_string(::getpid()) + ".vcd")).string();
}

static const char kTraceHelp[] =
    "usage: allocsim trace PROGRAM [--vcd FILE] [--perfetto FILE] [-O N] [--timing FILE] [--seed S]\n"
    "                      [--poison-seed S] [--arch NAME] [--KEY VALUE]\n"
    "\n"
    "Simulates PROGRAM like `allocsim run` (allocated at -O N, default 2, unless it is already fully placed)\n"
    "and writes its timelines:\n"
    "  --vcd FILE        a VCD: one signal per engine (busy while it executes an instruction; DMA_issue while\n"
    "                    the issuer holds one), SEQ_loop (the sequencer's loop iterations) and qN_ring_slots\n"
    "                    (descriptor chains on ring N); model time is in cycles (1 ns per cycle)\n"
    "  --perfetto FILE   a trace-event JSON (open in ui.perfetto.dev): one track per engine and DMA queue,\n"
    "                    each executed instruction a slice with its source line and text; ring counters\n"
    "At least one of the two is needed. Prints the cycle summary of `allocsim run`, and holds the trace\n"
    "against the timing oracle (every instruction's start and end, and the timing invariants).\n"
    "\n"
    "exit codes: 0 ok, 1 the timing differs from the timing oracle's, 2 bad input or usage,\n"
    "3 allocation impossible\n";

int runTrace(const Args& raw) {
  Args args;
  for (const std::string& a : raw) {  // "-O2" -> "-O" "2"
    if (a.size() > 2 && a.compare(0, 2, "-O") == 0) args.push_back("-O"), args.push_back(a.substr(2));
    else args.push_back(a);
  }
  std::string in, vcd, perfetto, timing_file;
  int optlevel = 2;
  bool optlevel_given = false, arch_given = false;
  sim::SimOptions so;
  Arch arch = *archPreset("gen2");
  auto parse = [&](Arch& target) {
    ArgReader r(args);
    while (!r.done()) {
      if (r.flag("--help") || r.flag("-h")) return false;
      if (auto v = r.value("--vcd")) vcd = *v;
      else if (auto v = r.value("--perfetto")) perfetto = *v;
      else if (auto v = r.value("-O")) optlevel = int(ArgReader::toUint("-O", *v, 1000)), optlevel_given = true;
      else if (auto v = r.value("--timing")) timing_file = *v;
      else if (auto v = r.value("--seed")) so.input_seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
      else if (auto v = r.value("--poison-seed")) so.poison_seed = ArgReader::toUint("--poison-seed", *v, UINT64_MAX);
      else if (r.archOption(target)) arch_given = true;
      else if (r.positionalInto(in)) continue;
      else r.unknown();
    }
    return true;
  };
  so.poison_seed = 1;
  if (!parse(arch)) {
    std::fputs(kTraceHelp, stdout);
    return kExitOk;
  }
  if (in.empty()) throw UsageError("trace needs a program (a path, or - for standard input)");
  if (vcd.empty() && perfetto.empty()) throw UsageError("trace needs --vcd FILE and/or --perfetto FILE");
  // The outputs are checked before the simulation runs, so a mistyped path does not cost the whole run.
  for (const std::string& out : {vcd, perfetto})
    if (!out.empty() && out != "-") requireWritable(out);
  const std::string display = in == "-" ? "<stdin>" : in;
  // The file's keys replace those of the program's preset table (known once the program is read): checked now.
  std::string timing_text;
  if (!timing_file.empty()) {
    try {
      timing_text = readSource(timing_file);
      sim::TimingTable().apply(timing_text);
    } catch (const InputError& e) {
      std::fputs(e.format(timing_file).c_str(), stderr);
      return kExitBadInput;
    }
  }
  auto loaded = loadProgram(in, !arch_given);
  if (!loaded) return kExitBadInput;
  return allocationErrorsReported(display, [&]() -> int {
    Program& input = *loaded;
    if (arch_given) {
      in.clear();
      parse(input.arch);
      if (std::string err = validateArch(input.arch); !err.empty()) throw UsageError(err);
      requireWellFormed(input);
    }
    bool placed = true;
    for (const Tensor& t : input.tensors) placed = placed && (t.space == Space::Dram || t.placement);
    for (const Register& r : input.registers) placed = placed && r.phys;
    Program allocated = input;
    if (!placed || optlevel_given) {
      DriverOptions d;
      d.optlevel = optlevel;
      allocated = allocate(input, d).program;
    }
    so.timing = sim::TimingTable::forPreset(allocated.arch.name);
    so.timing->apply(timing_text);
    sim::Trace trace;
    so.trace = &trace;
    // The model writes its VCD where it is told, without telling of a failure: it writes a scratch file, which is
    // then copied to --vcd as every output is (an unwritable path or a full disk is an error, not a missing file).
    const std::string scratch = vcd.empty() ? "" : scratchVcdPath();
    so.vcd_path = scratch;
    sim::SimResult r = sim::simulate(allocated, so);
    // Both outputs grow with the run: they are copied and written piece by piece, never held whole.
    if (!vcd.empty()) {
      std::ifstream written(scratch, std::ios::binary);
      if (!written) {
        std::remove(scratch.c_str());
        throw UsageError("cannot write '" + vcd + "': the simulator wrote no VCD");
      }
      try {
        writeOutputStreamed(vcd, [&](std::ostream& o) {
          if (written.peek() != std::ifstream::traits_type::eof()) o << written.rdbuf();
        });
      } catch (const UsageError&) {
        std::remove(scratch.c_str());
        throw;
      }
      written.close();
      std::remove(scratch.c_str());
    }
    if (!perfetto.empty())
      writeOutputStreamed(perfetto, [&](std::ostream& o) {
        sim::writeTraceEventJson(o, allocated, trace, allocated.arch.dma_queues, so.timing->clock_ghz);
      });
    std::fputs((display + ": traced " + std::to_string(trace.slices.size()) + " slices, " +
                std::to_string(trace.ring_occupancy.size()) + " ring changes" + (vcd.empty() ? "" : "; VCD " + vcd) +
                (perfetto.empty() ? "" : "; trace events " + perfetto) + "\n")
                   .c_str(),
               stdout);
    std::fputs(simStatsText(allocated, r.stats, so.timing->clock_ghz).c_str(), stdout);
    // The trace is held against the timing oracle, as `allocsim run` holds every run.
    if (const std::string d = verify::timingDisagreement(allocated, so, r.stats, trace); !d.empty()) {
      std::fputs((display + ": [timing] " + d).c_str(), stderr);
      return kExitVerifyFailed;
    }
    return kExitOk;
  });
}

}  // namespace allocsim::cli
