// The simulator against the interpreter on generated allocated programs: whatever the timing
// table and the poison, the simulated run reads the same operand values at every instruction and leaves the
// same DRAM outputs as the interpreter running the same allocated program on the same physical storage; a
// program the interpreter rejects at run time is rejected by the simulator too. CI runs 100 cases with a fixed
// seed (props/CMakeLists.txt); ci/long_checks.sh runs 10,000.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/interp.h"
#include "ir/machine_layout.h"
#include "ir/physical_storage.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "sim/reg_load_slice.h"
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

// Puts a `reg_load` of a generated element of a 4-byte tensor before one `li` of the program (which then overwrites
// the register, so nothing else changes): a register load of data that instructions computed, or of inputs, or of
// poison. Nothing when there is no such li or tensor.
void insertRegisterLoad(Program& p) {
  std::vector<Instruction*> lis;
  std::function<void(std::vector<Instruction>&)> collect = [&](std::vector<Instruction>& body) {
    for (Instruction& inst : body) {
      if (inst.op == Op::Li && inst.rd < p.registers.size() && p.registers[inst.rd].lanes() == 1) lis.push_back(&inst);
      collect(inst.body);
    }
  };
  collect(p.body);
  std::vector<TensorId> words;
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (dtypeSize(p.tensors[t].dtype) == 4 && p.tensors[t].partitions > 0 && p.tensors[t].elements > 0) words.push_back(t);
  if (lis.empty() || words.empty()) return;
  Instruction* li = lis[*rc::gen::inRange<size_t>(0, lis.size())];
  const TensorId t = words[*rc::gen::inRange<size_t>(0, words.size())];
  Instruction ld;
  ld.op = Op::RegLoad;
  ld.rd = li->rd;
  ld.loc = li->loc;
  ld.a.tensor = t;
  ld.a.partitions = 1;
  ld.a.count = 1;
  ld.a.loc = li->loc;
  ld.a.partition.constant = *rc::gen::inRange<int64_t>(0, p.tensors[t].partitions);
  ld.a.offset.constant = *rc::gen::inRange<int64_t>(0, p.tensors[t].elements);
  // Insert before the li: find its body.
  std::function<bool(std::vector<Instruction>&)> insert = [&](std::vector<Instruction>& body) {
    for (size_t i = 0; i < body.size(); ++i) {
      if (&body[i] == li) {
        body.insert(body.begin() + ptrdiff_t(i), std::move(ld));
        return true;
      }
      if (insert(body[i].body)) return true;
    }
    return false;
  };
  insert(p.body);
  p.renumber();
}

// A timing-only run has exactly the full run's cycles, busy time, stalls, stall pairs and traces, whatever the
// timing table (programs with register loads from tensors compute what can reach them, the others skip all data),
// and its register loads read what the full run's read.
RC_GTEST_PROP(Simulator, TimingOnlyHasTheFullRunsTiming, ()) {
  Program allocated = genAllocatedProgram();
  if (*rc::gen::arbitrary<bool>()) insertRegisterLoad(allocated);
  try {
    PhysicalStorage storage(allocated, 1);
    interpret(allocated, storage, InterpOptions{});
  } catch (const InputError&) {
    RC_DISCARD("does not run");
  }
  sim::SimOptions o;
  o.poison_seed = 1;
  o.timing = genTiming();
  const bool computes = !sim::regLoadSlice(allocated, MachineLayout(allocated)).computed.empty();
  RC_TAG(sim::timingSkipsData(allocated) ? "no register load"
         : computes                      ? "instructions computed for register loads"
                                         : "register loads of stored values only");
  const std::string difference = timingOnlyDifference(allocated, o);
  if (!difference.empty()) RC_FAIL("timing-only differs from the full run: " + difference + "\n" + printProgram(allocated));
}

}  // namespace
}  // namespace allocsim
