// The SystemC model's timing against the timing oracle (verify/timing_oracle.h) on generated programs allocated by
// the allocators, under random timing tables and machine concurrency: every executed instruction's start and end on
// every engine, the sequencer and every DMA queue, the ring occupancy and the run's statistics agree exactly, and the
// run keeps the timing invariants (one instruction at a time per engine and queue, rings within their slots, starts
// after producers' ends). CI runs 100 cases with a fixed seed (props/CMakeLists.txt).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/arch.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "verify/timing_agreement.h"

namespace allocsim {
namespace {

// A table with every cost the rules name drawn from a few values, clocks apart from each other and from the
// reporting clock (so the conversions round), and DMA figures from nearly free to slower than compute.
sim::TimingTable genTable() {
  sim::TimingTable t = sim::TimingTable::defaults();
  const auto clock = [] { return *rc::gen::element<double>(0.7, 1.12, 1.4, 2.8, 3.3); };
  t.clock_ghz = clock();
  t.pe_clock_ghz = clock(), t.act_clock_ghz = clock(), t.dve_clock_ghz = clock();
  t.pool_clock_ghz = clock(), t.sp_clock_ghz = clock();
  t.engine_queue_depth = *rc::gen::element<uint32_t>(1, 2, 3, 8, 256);
  t.pe_fixed = *rc::gen::element<double>(0, 1, 64);
  t.pe_per_column = *rc::gen::element<double>(0.5, 1, 3);
  t.pe_fp32_factor = *rc::gen::element<double>(1, 4);
  t.act_fixed = *rc::gen::element<double>(1, 64, 224);
  t.act_per_element = *rc::gen::element<double>(0.25, 1, 2);
  t.dve_fixed = *rc::gen::element<double>(0, 64);
  t.dve_per_element = *rc::gen::element<double>(0, 1, 4);
  t.dve_second_op_per_element = *rc::gen::element<double>(0, 1);
  t.dve_tt_per_element = *rc::gen::element<double>(1, 2, 3);
  t.dve_tt_fast_per_element = *rc::gen::element<double>(0.5, 1);
  t.dve_reduce_per_element = *rc::gen::element<double>(0.5, 1);
  t.dve_reduce_bf16_per_element = *rc::gen::element<double>(0.5, 1);
  t.dve_perf_ts_factor = *rc::gen::element<double>(0.25, 1);
  t.dve_perf_tt_factor = *rc::gen::element<double>(0.5, 1);
  t.fused_reduce_fixed = *rc::gen::element<double>(0, 64);
  t.access_stride_threshold_bytes = *rc::gen::element<double>(0, 4, 16);
  t.access_strided_factor = *rc::gen::element<double>(1, 2, 3);
  t.pool_fixed = *rc::gen::element<double>(0, 150);
  t.pool_per_element = *rc::gen::element<double>(0.5, 1);
  t.pool_select_fixed = *rc::gen::element<double>(0, 150);
  t.pe_dependent_interval = *rc::gen::element<double>(0, 100, 264);
  t.act_dependent_interval = *rc::gen::element<double>(0, 100, 264);
  t.dve_dependent_interval = *rc::gen::element<double>(0, 100, 264);
  t.pool_dependent_interval = *rc::gen::element<double>(0, 100, 264);
  t.sp_scalar = *rc::gen::element<double>(0, 2, 7);
  t.sp_memory = *rc::gen::element<double>(1, 32);
  t.sp_loop_iteration = *rc::gen::element<double>(0, 4, 100);
  t.dma_fixed_ns = *rc::gen::element<double>(0, 1, 100, 1300);
  t.dma_engines = *rc::gen::element<double>(1, 3, 16);
  t.dma_partitions_per_engine = *rc::gen::element<double>(1, 3, 8);
  t.dma_engine_bytes_per_ns = *rc::gen::element<double>(0.5, 17, 256);
  t.dma_descriptor_overhead_bytes = *rc::gen::element<double>(0, 512);
  t.dma_efficiency = *rc::gen::element<double>(0.3, 0.65, 1);
  t.dma_contiguous_efficiency = *rc::gen::element<double>(0.3, 1);
  t.dma_contiguous_min_bytes = *rc::gen::element<double>(0, 100, 3584);
  t.dma_convert_fixed = *rc::gen::element<double>(0, 2.5);
  return t;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += "  " + l + "\n";
  return s;
}

RC_GTEST_PROP(TimingOracle, TheModelsTimingIsTheOraclesOnAllocatedPrograms, ()) {
  Arch arch = *archPreset("tiny");
  arch.sp_registers = *rc::gen::element<uint32_t>(4, 16);
  const Program p = *genProgramOn(arch);
  DriverOptions d;
  d.optlevel = *rc::gen::element(0, 1, 2, 3, 6, 7, 8);
  Program allocated;
  try {
    allocated = allocate(p, d).program;
  } catch (const AllocError&) {
    RC_DISCARD("does not fit");
  }
  // Concurrency: DMA queues and ring slots from 1 to 4.
  allocated.arch.dma_queues = *rc::gen::inRange<uint32_t>(1, 5);
  allocated.arch.dma_ring_slots = *rc::gen::inRange<uint32_t>(1, 5);
  sim::SimOptions o;
  o.timing = genTable();
  o.timing_only = true;
  verify::TimingCheck c;
  try {
    c = verify::checkTiming(allocated, o);
  } catch (const InputError&) {
    RC_DISCARD("does not run");
  }
  RC_TAG(c.result.stats.loop_iterations > 0 ? "loops" : "straight line");
  RC_TAG(c.result.stats.stall_cycles[uint32_t(sim::StallCause::RingFull)] > 0 ? "ring full" : "rings never full");
  RC_TAG(c.result.stats.stall_cycles[uint32_t(sim::StallCause::EngineBusy)] > 0 ? "engine queue full"
                                                                                : "engine queues never full");
  if (!c.agrees())
    RC_FAIL("the model and the timing oracle disagree (-O" + std::to_string(d.optlevel) + "):\n" +
            joined(c.differences) + joined(c.violations) + printProgram(allocated));
  // The check `allocsim run` makes, each step held against the trace as the oracle places it, agrees too.
  const std::string streamed = verify::timingDisagreement(allocated, o, c.result.stats, c.trace);
  if (!streamed.empty())
    RC_FAIL("the streamed timing check disagrees with the kept schedule's (-O" + std::to_string(d.optlevel) + "):\n" +
            streamed + printProgram(allocated));
}

}  // namespace
}  // namespace allocsim
