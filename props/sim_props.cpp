// The simulator against the interpreter on generated allocated programs: whatever the timing
// table and the poison, the simulated run reads the same operand values at every instruction and leaves the
// same DRAM outputs as the interpreter running the same allocated program on the same physical storage; a
// program the interpreter rejects at run time is rejected by the simulator too. CI runs 100 cases with a fixed
// seed (props/CMakeLists.txt); ci/long_checks.sh runs 10,000.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

// Timing tables that reorder the engines against each other: DMA latency from 1 ns to the default, engine
// queues from 1 to 8 deep, cheap or expensive compute.
sim::TimingTable genTiming() {
  sim::TimingTable t = sim::TimingTable::defaults();
  t.engine_queue_depth = *rc::gen::inRange<uint32_t>(1, 9);
  t.dma_fixed_ns = *rc::gen::element<double>(1, 100, 1300);
  t.dma_engine_bytes_per_ns = *rc::gen::element<double>(1, 17, 256);
  t.act_fixed = *rc::gen::element<double>(1, 224);
  t.dve_clock_ghz = *rc::gen::element<double>(0.5, 1.12, 2.8);
  t.dve_per_element = *rc::gen::element<double>(0, 1, 4);
  t.pe_fixed = *rc::gen::element<double>(1, 64);
  return t;
}

std::string runsText(const InterpResult& r) {
  return std::to_string(r.steps) + " steps, " + std::to_string(r.reads.size()) + " reads";
}

// A generated program on the tiny machine (4 to 16 registers), allocated at -O0, -O2 or -O7; discarded when it
// does not fit.
Program genAllocatedProgram() {
  Arch arch = *archPreset("tiny");
  arch.sp_registers = *rc::gen::element<uint32_t>(4, 16);
  const Program p = *genProgramOn(arch);
  DriverOptions d;
  d.optlevel = *rc::gen::element(0, 2, 7);
  try {
    return allocate(p, d).program;
  } catch (const AllocError&) {
    RC_DISCARD("does not fit");
  }
  return {};
}

RC_GTEST_PROP(Simulator, AgreesWithTheInterpreterOnAllocatedPrograms, ()) {
  const Program allocated = genAllocatedProgram();
  const uint64_t poison = *rc::gen::inRange<uint64_t>(1, UINT64_MAX);
  InterpResult ref;
  bool ref_failed = false;
  try {
    PhysicalStorage storage(allocated, poison);
    ref = interpret(allocated, storage, InterpOptions{});
  } catch (const InputError&) {
    ref_failed = true;
  }
  sim::SimOptions o;
  o.poison_seed = poison;
  o.timing = genTiming();
  sim::SimResult s;
  try {
    s = sim::simulate(allocated, o);
  } catch (const InputError& e) {
    if (ref_failed) return;  // both reject it
    saveRegression("simulator_finding", allocated, e.format("allocated"));
    RC_FAIL("the simulator rejected a program the interpreter runs: " + e.format("allocated") + printProgram(allocated));
  }
  RC_ASSERT(!ref_failed);
  // An instruction writing over its own source at an offset streams in hardware order (sim/stream.h), which the
  // interpreter does not model: then the same run with chunks wider than any view (applied at once) must agree.
  bool streamed = false;
  for (const auto& so : s.stats.self_overlaps) streamed |= so.differing > 0;
  if (streamed) {
    o.timing->stream_chunk_elements = 1u << 20;
    s = sim::simulate(allocated, o);
    for (const auto& so : s.stats.self_overlaps) RC_ASSERT(so.differing == 0u);
  }
  RC_TAG(streamed ? "streamed over itself" : "no self-overlap");
  const bool same = s.exec.reads == ref.reads && s.exec.outputs == ref.outputs && s.exec.steps == ref.steps;
  if (!same) {
    saveRegression("simulator_finding", allocated, "the simulator disagrees with the interpreter");
    RC_FAIL("simulator " + runsText(s.exec) + " vs interpreter " + runsText(ref) + "; allocated program:\n" +
            printProgram(allocated));
  }
  RC_TAG(s.stats.stall_cycles[0] + s.stats.stall_cycles[1] + s.stats.stall_cycles[2] > 0 ? "stalled" : "no stall");
}

// A timing-only run has exactly the full run's cycles, busy time, stalls, stall pairs and traces, whatever the
// timing table (programs with register loads from tensors compute their data, the others skip it).
RC_GTEST_PROP(Simulator, TimingOnlyHasTheFullRunsTiming, ()) {
  const Program allocated = genAllocatedProgram();
  try {
    PhysicalStorage storage(allocated, 1);
    interpret(allocated, storage, InterpOptions{});
  } catch (const InputError&) {
    RC_DISCARD("does not run");
  }
  sim::SimOptions o;
  o.poison_seed = 1;
  o.timing = genTiming();
  RC_TAG(sim::timingSkipsData(allocated) ? "data skipped" : "data computed (register loads)");
  const std::string difference = timingOnlyDifference(allocated, o);
  if (!difference.empty()) RC_FAIL("timing-only differs from the full run: " + difference + "\n" + printProgram(allocated));
}

}  // namespace
}  // namespace allocsim
