#include "sim/dma_issuer.h"

#include "sim/quantum_keeper.h"

#include "ir/plant.h"
#include "sim/dma_queue.h"

namespace allocsim::sim {

DmaIssuer::DmaIssuer(sc_core::sc_module_name name, Shared& shared, Fifo& in, std::deque<Fifo>& rings)
    : sc_module(name), s_(shared), in_(in), rings_(rings) {
  spawnUnit("thread", start, [this] { serve(); });
}

void DmaIssuer::serve() {
  const uint32_t e = uint32_t(Engine::DMA);
  Fifo& fifo = in_;
  EngineStats& stats = s_.result.stats.engines[e];
  const uint64_t fixed = s_.timing->dmaFixedCycles();
  const uint32_t queues = s_.p->arch.dma_queues;
  const uint32_t ring_slots = s_.p->arch.dma_ring_slots;
  while (issued_.size() < queues) issued_.emplace_back();
  for (auto& ring : issued_) ring.clear();
  const uint32_t rounds = ALLOCSIM_PLANT("sim_dma_one_queue") ? 1 : queues;  // the queues taken round robin
  uint32_t next = 0;                                                       // the next transfer's queue
  uint64_t clock = s_.now();
  QuantumKeeper keeper(s_);
  try {
    for (;;) {
      const uint32_t slot = s_.nextSlot(fifo, s_.dispatch_done);
      if (slot == Shared::kNoSlot) break;
      Record& r = s_.record(slot);
      const uint64_t from = std::max(clock, r.dispatch_cycle);
      if (s_.vcd) {
        s_.syncTo(from);
        s_.busy[e] = true;
      }
      const Dependence* binding = nullptr;
      const uint64_t ready = s_.endOfAll(r.deps, from, binding);
      if (binding) s_.result.stats.addStall(stallCauseOf(binding->kind), binding->producer, r.inst, ready - from);
      s_.takeHead(fifo, ready);
      ++stats.instructions;
      const uint32_t q = next;
      if (++next == rounds) next = 0;
      RingFifo<RingEntry>& ring = issued_[q];
      const uint64_t early = ALLOCSIM_PLANT("sim_ring_slot_freed_early") ? 1 : 0;
      while (!ring.empty() && ring.front().end <= ready + early) ring.pop_front();
      uint64_t issue = ready;
      if (ring.size() >= ring_slots) {  // full: the oldest transfer's end frees a slot
        issue = ring.front().end;
        s_.result.stats.addStall(StallCause::RingFull, ring.front().inst, r.inst, issue - ready);
        while (!ring.empty() && ring.front().end <= issue) ring.pop_front();
      }
      const uint64_t earliest = std::max(issue + fixed, ring.empty() ? 0 : ring.back().end);
      const uint64_t window = s_.fabric.reserve(issue, earliest, r.fabric);
      r.issue_cycle = issue;
      r.end_cycle = window + r.latency;
      checkCycles(*r.inst, r.end_cycle);
      r.end_known = true;
      notifyWaiting(r.known_ev, r.known_waiting);
      ring.push_back({r.end_cycle, r.inst});
      clock = issue;
      QueueStats& qs = s_.result.stats.queues[q];
      qs.peak_occupancy = std::max<uint32_t>(qs.peak_occupancy, uint32_t(ring.size()));
      if (s_.o->trace) s_.ring_changes.push_back({issue, q, +1});
      if (s_.vcd) {
        s_.syncTo(issue);
        s_.busy[e] = false;
        s_.ring_used[q % 256] = uint32_t(ring.size());
      }
      if (s_.no_value_waits) {
        endTransfer(s_, q, slot);
      } else {
        Fifo& queue = rings_[q];
        queue.slots.push_back(slot);
        queue.pushed.notifyWaiters();
      }
      keeper.keep(clock);
    }
  } catch (const Aborted&) {
  } catch (...) {
    s_.fail(std::current_exception());
  }
  s_.dma_issue_done = true;
  for (Fifo& ring : rings_) ring.pushed.notifyWaiters();
}

}  // namespace allocsim::sim
