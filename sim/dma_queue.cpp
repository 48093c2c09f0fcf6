#include "sim/dma_queue.h"

#include "sim/quantum_keeper.h"

namespace allocsim::sim {

DmaQueue::DmaQueue(const std::string& name, Shared& shared, uint32_t queue, Fifo& ring)
    : s_(shared), queue_(queue), ring_(ring) {
  spawnUnit(name.c_str(), start, [this] { serve(); }, true);
}

void endTransfer(Shared& s, uint32_t q, uint32_t slot) {
  Record& r = s.record(slot);
  if (!r.data_skipped) s.executeRecord(slot);
  QueueStats& stats = s.result.stats.queues[q];
  stats.bytes += r.bytes;
  stats.descriptors += r.descriptors;
  stats.busy_cycles += r.latency;
  ++stats.transfers;
  const uint64_t end = r.end_cycle;
  s.slice(kFirstQueueTrack + q, end - r.latency, end, r.inst);
  if (s.o->trace) s.ring_changes.push_back({end, q, -1});
  s.finishRecord(slot, Engine::DMA);
}

void DmaQueue::serve() {
  const uint32_t q = queue_;
  if (q >= s_.p->arch.dma_queues) return;
  Fifo& ring = ring_;
  QuantumKeeper keeper(s_);
  try {
    for (;;) {
      const uint32_t slot = s_.nextSlot(ring, s_.dma_issue_done);
      if (slot == Shared::kNoSlot) break;
      Record& r = s_.record(slot);
      s_.waitUntilDone(r.deps);
      if (s_.quantum == 0) s_.syncTo(r.end_cycle);
      const uint64_t end = r.end_cycle;
      ring.slots.pop_front();
      if (s_.vcd) s_.ring_used[q % 256] = uint32_t(ring.slots.size());
      endTransfer(s_, q, slot);  // the record may be released at the next wait
      keeper.keep(end);
    }
  } catch (const Aborted&) {
  } catch (...) {
    s_.fail(std::current_exception());
  }
}

}  // namespace allocsim::sim
