#include "sim/dma_issuer.h"

#include "ir/plant.h"
#include "sim/dma_queue.h"

namespace allocsim::sim {

DmaIssuer::DmaIssuer(sc_core::sc_module_name name, Shared& shared, Fifo& in, std::deque<Fifo>& rings)
    : sc_module(name), InOrderUnit(shared, in), rings_(rings) {
  spawnUnit("thread", start, [this] { serve(); });
}

void DmaIssuer::prepare() {
  const uint32_t queues = s_.p->arch.dma_queues;
  while (issued_.size() < queues) issued_.emplace_back();
  for (auto& ring : issued_) ring.clear();
  rounds_ = ALLOCSIM_PLANT("sim_dma_one_queue") ? 1 : queues;
  next_ = 0;
  clock_ = s_.now();
  fixed_ = s_.timing->dmaFixedCycles();
}

void DmaIssuer::serve() {
  serveInOrder();
  s_.dma_issue_done = true;
  for (Fifo& ring : rings_) ring.pushed.notifyWaiters();
}

void DmaIssuer::step(uint32_t slot) {
  const uint32_t e = uint32_t(Engine::DMA);
  EngineStats& stats = s_.result.stats.engines[e];
  const uint32_t ring_slots = s_.p->arch.dma_ring_slots;
  Record& r = s_.record(slot);
  const uint64_t from = std::max(clock_, r.dispatch_cycle);
  if (s_.vcd) {
    s_.syncTo(from);
    s_.busy[e] = true;
  }
  const Dependence* binding = nullptr;
  const uint64_t ready = s_.endOfAll(r.deps, from, binding);
  if (binding) s_.result.stats.addStall(stallCauseOf(binding->kind), binding->producer, r.inst, ready - from);
  s_.takeHead(in_, ready);
  ++stats.instructions;
  const uint32_t q = next_;
  if (++next_ == rounds_) next_ = 0;
  RingFifo<RingEntry>& ring = issued_[q];
  const uint64_t early = ALLOCSIM_PLANT("sim_ring_slot_freed_early") ? 1 : 0;
  while (!ring.empty() && ring.front().end <= ready + early) ring.pop_front();
  uint64_t issue = ready;
  if (ring.size() >= ring_slots) {  // full: the oldest transfer's end frees a slot
    issue = ring.front().end;
    s_.result.stats.addStall(StallCause::RingFull, ring.front().inst, r.inst, issue - ready);
    while (!ring.empty() && ring.front().end <= issue) ring.pop_front();
  }
  const uint64_t earliest = std::max(issue + fixed_, ring.empty() ? 0 : ring.back().end);
  const uint64_t window = s_.fabric.reserve(issue, earliest, r.fabric);
  r.issue_cycle = issue;
  checkCycles(*r.inst, window + r.latency);
  s_.decideEnd(slot, window + r.latency);
  ring.push_back({r.end_cycle, r.inst});
  clock_ = issue;
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
}

}  // namespace allocsim::sim
