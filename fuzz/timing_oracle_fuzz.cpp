// Fuzz target: the SystemC model's timing against the timing oracle (verify/timing_oracle.h).
// bytes -> generated program (tiny machine, the bytes are the generator's decisions) -> allocated by the driver at a
// level the input picks (-O0 no-reuse, -O1..3 and -O6 coloring, -O7 fixed, -O8 lsa) -> simulated (timing only) on a
// machine and timing table the input also picks (DMA queues, ring slots, engine queue depth, DMA fixed latency and
// bandwidth, clocks): every slice of the model's trace, the ring occupancy and the statistics must equal the
// oracle's schedule, and the run must keep the timing invariants, both by the kept schedule and by the streamed check
// `allocsim run` makes. A disagreement prints the program, its allocation and the differences, then aborts.
#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "fuzz/fuzz_program.h"
#include "verify/timing_agreement.h"

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  static constexpr int kLevels[] = {0, 1, 2, 3, 6, 7, 8, 2};
  DriverOptions d;
  d.optlevel = kLevels[in.knob & 7];
  d.verbosity = in.traced() ? 2 : 0;  // the per-round records on some inputs (fuzz/fuzz_program.h)
  Program allocated;
  try {
    allocated = allocate(in.program, d).program;
  } catch (const AllocError&) {
    return 0;  // does not fit the machine
  }
  // Machine and table from the rest of the knob and the poison seed's bits.
  const uint64_t k = in.knob >> 3, s = in.poison_seed;
  allocated.arch.dma_queues = 1 + uint32_t(k & 3);
  allocated.arch.dma_ring_slots = 1 + uint32_t((k >> 2) & 3);
  sim::SimOptions o;
  o.timing = sim::TimingTable::forPreset(allocated.arch.name);
  o.timing_only = true;
  o.timing->engine_queue_depth = 1 + uint32_t(s & 7);
  static constexpr double kFixedNs[] = {0, 1, 100, 1300};
  static constexpr double kRate[] = {0.5, 17, 256, 3};
  static constexpr double kClock[] = {1.4, 1.12, 2.8, 0.7};
  o.timing->dma_fixed_ns = kFixedNs[(s >> 3) & 3];
  o.timing->dma_engine_bytes_per_ns = kRate[(s >> 5) & 3];
  o.timing->dve_clock_ghz = kClock[(s >> 7) & 3];
  o.timing->pe_clock_ghz = kClock[(s >> 9) & 3];
  o.timing->sp_clock_ghz = kClock[(s >> 11) & 3];
  o.timing->dma_descriptor_overhead_bytes = (s >> 13) & 1 ? 0 : 512;
  verify::TimingCheck c;
  try {
    c = verify::checkTiming(allocated, o);
  } catch (const InputError&) {
    return 0;  // the allocation does not run (the oracles' business, not the timing's)
  }
  if (!c.agrees()) {
    std::string detail;
    for (const std::string& l : c.differences) detail += l + "\n";
    for (const std::string& l : c.violations) detail += l + "\n";
    fuzz::reportBug("timing_oracle", "the model's timing differs from the timing oracle's", in.program, &allocated,
                    detail);
  }
  // The check `allocsim run` makes, each step held against the trace as the oracle places it, agrees too.
  if (const std::string streamed = verify::timingDisagreement(allocated, o, c.result.stats, c.trace); !streamed.empty())
    fuzz::reportBug("timing_oracle", "the streamed timing check disagrees with the kept schedule's", in.program,
                    &allocated, streamed);
  return 0;
}
