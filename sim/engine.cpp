#include "sim/engine.h"

#include "ir/plant.h"

namespace allocsim::sim {

Engine::Engine(sc_core::sc_module_name name, Shared& shared, uint32_t engine, Fifo& in)
    : sc_module(name), InOrderUnit(shared, in), engine_(engine) {
  spawnUnit("thread", start, [this] { serve(); });
}

void Engine::prepare() {
  clock_ = s_.now();
  dependent_interval_ = s_.timing->dependentInterval(::allocsim::Engine(engine_));
}

void Engine::step(uint32_t slot) {
  const uint32_t e = engine_;
  EngineStats& stats = s_.result.stats.engines[e];
  Record& r = s_.record(slot);
  // It starts when the engine is free, it is queued and the last of its producers has ended.
  const uint64_t from =
      ALLOCSIM_PLANT("sim_engine_ignores_own_clock") ? r.dispatch_cycle : std::max(clock_, r.dispatch_cycle);
  const Dependence* binding = nullptr;
  const uint64_t start = s_.endOfAll(r.deps, from, binding);
  if (binding) s_.result.stats.addStall(stallCauseOf(binding->kind), binding->producer, r.inst, start - from);
  s_.takeHead(in_, start);
  ++stats.instructions;
  const uint64_t end = start + std::max(r.latency, dependent_interval_);
  checkCycles(*r.inst, end);
  s_.decideEnd(slot, end);
  // It reads and writes at once, once its producers have written and its sources' older readers have read
  // (this is the order of the values; their times are the cycles above).
  if (!s_.no_value_waits) s_.waitUntilDone(r.deps);
  if (s_.vcd) {
    s_.syncTo(start);
    s_.busy[e] = true;
  }
  clock_ = start + r.latency;
  if (s_.quantum == 0) s_.syncTo(clock_);  // values move at their cycle (see SimOptions::quantum)
  if (!r.data_skipped) {
    if (r.streams_over_itself) s_.startRecord(slot);
    else s_.executeRecord(slot);
  }
  if (s_.vcd) s_.busy[e] = false;
  stats.busy_cycles += r.latency;
  s_.slice(e, start, clock_, r.inst);
  s_.finishRecord(slot, ::allocsim::Engine(e));  // the record may be released at the next wait
}

}  // namespace allocsim::sim
