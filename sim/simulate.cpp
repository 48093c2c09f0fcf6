#include "sim/simulate.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>

#include "ir/physical_storage.h"
#include "sim/kernel_thread.h"
#include "sim/top.h"

namespace allocsim::sim {

namespace {

// SystemC prints its reports on standard output; allocsim's standard output is its report (and may be JSON), and
// SystemC's informational messages (e.g. "Info: (I703) tracing timescale unit set" when a VCD is opened) say
// nothing about the user's program, so they are not shown at all. Warnings and errors keep SystemC's default
// actions.
void reportHandler(const sc_core::sc_report& r, const sc_core::sc_actions& actions) {
  if (r.get_severity() == sc_core::SC_INFO) {
    sc_core::sc_report_handler::default_handler(r, actions & ~sc_core::SC_DISPLAY);
    return;
  }
  sc_core::sc_report_handler::default_handler(r, actions);
}

// Elaborated once per process (a SystemC kernel cannot be restarted); every call is a job for the same model.
Top* theCore = nullptr;

Top& core(const std::string& vcd_path, uint32_t queues) {
  if (!theCore) {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // keep the banner off our standard output
    sc_core::sc_report_handler::set_handler(reportHandler);
    theCore = new Top("core", vcd_path, queues);  // never destroyed
    // Elaborate and run the initialization phase now, so every thread already waits for its first job when the
    // first job's start is notified (a notification made before initialization would be lost).
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  } else if (!vcd_path.empty()) {
    throw std::logic_error("a VCD trace needs the process's first simulation (SystemC traces precede elaboration)");
  }
  return *theCore;
}

}  // namespace

namespace {
bool hasRegLoad(const std::vector<Instruction>& body) {
  for (const Instruction& inst : body)
    if (inst.op == Op::RegLoad || hasRegLoad(inst.body)) return true;
  return false;
}
}  // namespace

bool timingSkipsData(const Program& p) { return !hasRegLoad(p.body); }

SimResult simulate(const Program& allocated, const SimOptions& opts) {
  if (opts.prevalidate && !opts.timing_only) {
    if (std::string err = validateArch(allocated.arch); !err.empty()) throw InputError(SourceLoc{}, err);
    PhysicalStorage storage(allocated, opts.poison_seed, opts.max_storage_bytes);
    InterpOptions io;
    io.input_seed = opts.input_seed;
    io.max_steps = opts.max_steps;
    io.max_storage_bytes = opts.max_storage_bytes;
    io.record_reads = false;
    interpret(allocated, storage, io);
  }
  SimResult r;
  std::exception_ptr error;
  onKernelThread([&] {  // the kernel never runs on the caller's thread (sim/kernel_thread.h)
    try {
      Top* c = &core(opts.vcd_path, allocated.arch.dma_queues);
      r = c->run(allocated, opts);
      if (!opts.vcd_path.empty()) c->closeVcd();
    } catch (...) {
      error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
  return r;
}

}  // namespace allocsim::sim
