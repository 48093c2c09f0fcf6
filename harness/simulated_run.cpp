#include "harness/simulated_run.h"

#include <exception>
#include <string>

#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "sim/agreement.h"
#include "sim/simulate.h"
#include "verify/timing_agreement.h"

namespace allocsim {
namespace {

void fail(CaseOutcome& out, FailureKind::Class kind, const std::string& message) {
  out.status = CaseStatus::Fail;
  out.kind = FailureKind::of(kind);
  out.kinds = {out.kind};
  out.message = "[simulator] " + message;
  out.detail = out.message + "\n";
}

}  // namespace

void checkSimulatedRun(const Program& allocated, const CheckSeeds& seeds, CaseOutcome& out) {
  sim::SimOptions so;
  so.input_seed = seeds.input_seed;
  so.poison_seed = seeds.poison_seed;
  checkSimulatedRun(allocated, so, out);
}

void checkSimulatedRun(const Program& allocated, const sim::SimOptions& opts, CaseOutcome& out) {
  sim::SimOptions so = opts;
  so.record_reads = true;  // the operand hashes are half of the comparison
  // The interpreter first, on this thread: a program it cannot run throws here, not on the simulator thread.
  InterpResult reference;
  try {
    PhysicalStorage storage(allocated, so.poison_seed);
    InterpOptions io;
    io.input_seed = so.input_seed;
    reference = interpret(allocated, storage, io);
  } catch (const InputError& e) {  // the oracles ran it, so only a bug in them gets here
    return fail(out, FailureKind::Class::SimulatorCannotRun,
                "the interpreter cannot run the output: " + (e.diagnostics().empty() ? "" : e.diagnostics()[0].message));
  }
  // A program the interpreter completes runs in the simulator (sim/simulate.h): no need to prevalidate it again.
  so.prevalidate = false;
  sim::SimResult simulated;
  std::string failure;
  // The trace the timing oracle holds the run against (verify/timing_agreement.h), unless the caller records one.
  sim::Trace trace;
  const bool own_trace = !so.trace;
  if (own_trace) so.trace = &trace;
  try {
    simulated = sim::simulate(allocated, so);  // serialized: one SystemC kernel per process
  } catch (const InputError& e) {
    failure = "the simulator cannot run the output: " + (e.diagnostics().empty() ? "" : e.diagnostics()[0].message);
  } catch (const std::exception& e) {
    failure = std::string("the simulator failed: ") + e.what();
  }
  if (!failure.empty()) return fail(out, FailureKind::Class::SimulatorCannotRun, failure);
  if (auto d = sim::simulatorDisagreement(allocated, simulated.exec, reference)) return fail(out, FailureKind::Class::SimulatorDisagrees, *d);
  if (own_trace && so.drop == sim::DropDependency::None) {
    std::string timing;
    try {
      timing = verify::timingDisagreement(allocated, so, simulated.stats, trace);
    } catch (const InputError& e) {
      timing = "the timing oracle cannot run the output: " + (e.diagnostics().empty() ? "" : e.diagnostics()[0].message);
    }
    if (!timing.empty()) return fail(out, FailureKind::Class::SimulatorTiming, timing);
  }
  out.cycles = simulated.stats.cycles;
  out.simulated = true;
}

}  // namespace allocsim
