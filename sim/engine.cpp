#include "sim/engine.h"

#include "sim/quantum_keeper.h"

#include "ir/plant.h"

namespace allocsim::sim {

Engine::Engine(sc_core::sc_module_name name, Shared& shared, uint32_t engine, Fifo& in)
    : sc_module(name), s_(shared), engine_(engine), in_(in) {
  spawnUnit("thread", start, [this] { serve(); });
}

void Engine::serve() {
  Fifo& fifo = in_;
  const uint32_t e = engine_;
  EngineStats& stats = s_.result.stats.engines[e];
  uint64_t clock = s_.now();  // the engine's own clock: the end of its last instruction's cost
  // Its instructions' results are complete no earlier than this long after their start (sim/timing.h): what depends
  // on them waits for that.
  const uint64_t dependent_interval = s_.timing->dependentInterval(::allocsim::Engine(e));
  QuantumKeeper keeper(s_);
  try {
    for (;;) {
      const uint32_t slot = s_.nextSlot(fifo, s_.dispatch_done);
      if (slot == Shared::kNoSlot) break;
      Record& r = s_.record(slot);
      // It starts when the engine is free, it is queued and the last of its producers has ended.
      const uint64_t from =
          ALLOCSIM_PLANT("sim_engine_ignores_own_clock") ? r.dispatch_cycle : std::max(clock, r.dispatch_cycle);
      const Dependence* binding = nullptr;
      const uint64_t start = s_.endOfAll(r.deps, from, binding);
      if (binding) s_.result.stats.addStall(stallCauseOf(binding->kind), binding->producer, r.inst, start - from);
      s_.takeHead(fifo, start);
      ++stats.instructions;
      r.end_cycle = start + std::max(r.latency, dependent_interval);
      checkCycles(*r.inst, r.end_cycle);
      r.end_known = true;
      notifyWaiting(r.known_ev, r.known_waiting);
      // It reads and writes at once, once its producers have written and its sources' older readers have read
      // (this is the order of the values; their times are the cycles above).
      if (!s_.no_value_waits) s_.waitUntilDone(r.deps);
      if (s_.vcd) {
        s_.syncTo(start);
        s_.busy[e] = true;
      }
      clock = start + r.latency;
      if (s_.quantum == 0) s_.syncTo(clock);  // values move at their cycle (see SimOptions::quantum)
      if (!r.data_skipped) {
        if (r.streams_over_itself) s_.startRecord(slot);
        else s_.executeRecord(slot);
      }
      if (s_.vcd) s_.busy[e] = false;
      stats.busy_cycles += r.latency;
      s_.slice(e, start, clock, r.inst);
      s_.finishRecord(slot);  // the record may be released at the next wait
      keeper.keep(clock);
    }
  } catch (const Aborted&) {
  } catch (...) {
    s_.fail(std::current_exception());
  }
}

}  // namespace allocsim::sim
