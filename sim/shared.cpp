#include "sim/shared.h"

#include <algorithm>

#include "ir/plant.h"
#include "sim/stream.h"

namespace allocsim::sim {

using sc_core::sc_event;
using sc_core::sc_time;

namespace {
constexpr uint64_t kPsPerCycle = 1000;  // model time: one cycle = 1 ns of SystemC time (default 1 ps resolution)
}  // namespace

uint64_t SnapshotStorage::readReg(RegId r) {
  if (snapshot)
    for (const auto& [reg, v] : *snapshot)
      if (reg == r) return v;
  return phys_.readReg(r);
}

void spawnUnit(const char* name, sc_core::sc_event& start, std::function<void()> serve, bool serve_first) {
  sc_core::sc_spawn_options o;
  o.set_stack_size(kUnitStackBytes);
  sc_core::sc_spawn(
      [&start, serve = std::move(serve), serve_first] {
        if (serve_first) serve();
        for (;;) {
          sc_core::wait(start);
          serve();
        }
      },
      name, &o);
}

Shared::Shared() : context_(sc_core::sc_get_curr_simcontext()) {}

// ---- time and waiting -----------------------------------------------------------------------------------------

// The kernel's clock read inline (sc_time_stamp() is a library call, and the model asks several times an instruction).
uint64_t Shared::now() const { return context_->time_stamp().value() / kPsPerCycle - base_ps / kPsPerCycle; }

void Shared::waitCycles(uint64_t n) {
  if (n) sc_core::wait(sc_time::from_value(n * kPsPerCycle));
  if (abort) throw Aborted{};
}

void Shared::waitEvent(sc_event& ev, uint32_t& waiting) {
  if (abort) throw Aborted{};
  ++waiting;
  sc_core::wait(ev);  // the notification reset `waiting`
  if (abort) throw Aborted{};
}

void Shared::syncTo(uint64_t cycle) {
  if (cycle > now()) waitCycles(cycle - now());
}

void Shared::keepQuantum(uint64_t clock) {
  if (clock > now() + quantum) waitCycles(clock - now());
}

uint64_t Shared::endOfAll(const std::vector<Dependence>& deps, uint64_t from, const Dependence*& binding) {
  binding = nullptr;
  uint64_t end = from;
  for (const Dependence& d : deps) {
    uint64_t e = d.end;
    if (e == Dependence::kEndUnknown) {
      Record& producer = record(d.slot);
      // A released record ended at or before the sequencer's clock when it was released, and no counted consumer
      // was left (releaseEnded): it cannot bind.
      if (producer.seq != d.seq) continue;
      while (!producer.end_known) waitEvent(producer.known_ev, producer.known_waiting);
      e = producer.end_cycle;
      if (d.counted && --producer.consumers == 0 && producer.release_when_unread) freeRecord(d.slot);
    }
    if (e > from && (!binding || bindsAfter(d, e, *binding, end))) end = e, binding = &d;
  }
  return end;
}

void Shared::waitUntilDone(const std::vector<Dependence>& deps) {
  for (const Dependence& d : deps)
    for (Record* r = records_[d.slot].get(); r->seq == d.seq && !r->done;) waitEvent(r->done_ev, r->done_waiting);
}

void Shared::fail(std::exception_ptr e) {
  if (!error) error = e;
  abort = true;
  for (auto& r : records_) r->done_ev.notify(), r->known_ev.notify(), r->done_waiting = r->known_waiting = 0;
  for (Fifo* f : fifos) f->pushed.ev.notify(), f->popped.ev.notify(), f->pushed.waiting = f->popped.waiting = 0;
}

// ---- records ----------------------------------------------------------------------------------------------------

void Shared::growRecords() {
  records_.push_back(std::make_unique<Record>());
  ends_.push_back(Dependence::kEndUnknown);
  free_.push_back(uint32_t(records_.size() - 1));
}

void Shared::freeRecord(uint32_t slot) {
  Record& r = record(slot);
  board.retire(slot);
  r.seq = 0;
  r.done = r.streams_over_itself = r.end_known = r.release_when_unread = false;
  r.consumers = 0;
  r.deps.clear();
  r.regs.clear();
  free_.push_back(slot);
}

void Shared::resetRecords() {
  seq_ = 0;
  free_.clear();
  for (auto& fifo : finished_) fifo.clear();
  finished_min_end_ = UINT64_MAX;
  for (uint32_t i = uint32_t(records_.size()); i-- > 0;) freeRecord(i);
}

bool Shared::releaseAll() {
  for (uint32_t slot = 0; slot < records_.size(); ++slot)
    if (record(slot).seq != 0 && record(slot).done) freeRecord(slot);
  for (auto& fifo : finished_) fifo.clear();
  finished_min_end_ = UINT64_MAX;
  return free_.size() == records_.size();
}

void Shared::startRecord(uint32_t slot) {
  Record& r = record(slot);
  snap->snapshot = &r.regs;
  uint64_t hash;
  if (r.streams_over_itself) {  // sim/stream.h: only here does streaming change the result
    bool differs = false;
    hash = streamInstruction(*stepper, *snap, *r.inst, r.first, r.last, timing->stream_chunk_elements, r.writes,
                             differs);
    result.stats.addSelfOverlap(r.inst, differs);
  } else {
    hash = stepper->begin(*r.inst, r.first, r.last, r.writes, o->record_reads, &r.operands->views);
  }
  snap->snapshot = nullptr;
  if (o->record_reads) result.exec.reads[r.read_index].hash = hash;
}

void Shared::executeRecord(uint32_t slot) {
  Record& r = record(slot);
  r.writes.clear();
  snap->snapshot = &r.regs;
  const uint64_t hash = stepper->step(*r.inst, r.first, r.last, o->record_reads, &r.operands->views);
  snap->snapshot = nullptr;
  if (o->record_reads) result.exec.reads[r.read_index].hash = hash;
}

void Shared::releaseEndedBy(uint64_t sequencer_cycle) {
  uint64_t min_end = UINT64_MAX;
  for (RingFifo<Finished>& fifo : finished_) {
    for (; !fifo.empty() && fifo.front().end <= sequencer_cycle; fifo.pop_front()) {
      const uint32_t slot = fifo.front().slot;
      // Consumers that have not read a record's end yet keep it (the last one releases it).
      if (record(slot).consumers == 0) {
        freeRecord(slot);
      } else {
        board.retire(slot);  // no longer a dependence of anything dispatched
        record(slot).release_when_unread = true;
      }
    }
    if (!fifo.empty()) min_end = std::min(min_end, fifo.front().end);
  }
  finished_min_end_ = min_end;
}

// Of an instruction's dependences on instructions of one compute engine (PE, ACT, DVE, POOL, SP), only those on the
// youngest of them are kept: each of these engines runs its instructions in program order, so the youngest ends
// last and writes its values last, and it alone can bind (a binding dependence is the one ending last). The waits,
// the cycles and the stall attribution stay the same; a write behind deep engine queues no longer carries one
// dependence per queued reader. Transfers end out of order on their queues and are all kept.
void Shared::keepYoungestPerEngine(std::vector<Dependence>& deps) {
  constexpr uint8_t kDma = uint8_t(Engine::DMA);
  uint64_t youngest[kEngines] = {};
  for (const Dependence& d : deps) youngest[d.engine] = std::max(youngest[d.engine], d.seq);  // (DMA's unused)
  size_t n = 0;
  for (const Dependence& d : deps)
    if (d.engine == kDma || d.seq == youngest[d.engine]) deps[n++] = d;
  deps.resize(n);
}

void Shared::noteProducers(std::vector<Dependence>& deps) {
  if (deps.empty()) return;
  if (!no_value_waits) {
    keepYoungestPerEngine(deps);
    orderDependences(deps);  // their values are waited for in program order
    for (Dependence& d : deps) {
      Record& producer = record(d.slot);
      if (producer.end_known) {
        d.end = producer.end_cycle;
      } else {
        d.counted = true;
        ++producer.consumers;
      }
    }
    return;
  }
  // Nothing waits for values: a decided end is all a dependence gives its consumer (endOfAll), so of the decided
  // ones only the one that binds among them stays (a deep queue of transfers writing one tile leaves a dependence on
  // each), and endOfAll picks the binding one whatever the order of the rest. No dependence is left out as an older
  // one of a compute engine: the one that binds among all is among the youngest, since a compute engine's
  // instructions end in program order (each starts once the one before has run its latency, and ends no earlier
  // than its engine's dependent interval after its start) and of two ending together bindsAfter takes the younger.
  // (A planted engine that ignores its own clock breaks that order: there, the older ones are left out first.)
  // Dispatch has every older instruction taken (Sequencer::dispatch), so every end is decided by now unless its unit
  // has not been able to take an instruction.
  if (ALLOCSIM_PLANT("sim_engine_ignores_own_clock")) keepYoungestPerEngine(deps);
  const uint64_t* ends = ends_.data();
  size_t best = 0, undecided = 0;
  uint64_t best_end = 0;
  bool known = false;
  for (size_t i = 0, size = deps.size(); i < size; ++i) {
    const Dependence& d = deps[i];
    const uint64_t e = ends[d.slot];
    if (e == Dependence::kEndUnknown) [[unlikely]] {
      ++undecided;
    } else if (!known || bindsAfter(d, e, deps[best], best_end)) {
      best = i, best_end = e, known = true;
    }
  }
  Dependence binding = deps[best];
  binding.end = best_end;
  size_t n = 0;
  if (undecided) [[unlikely]] {
    for (const Dependence& d : deps) {
      if (ends[d.slot] != Dependence::kEndUnknown) continue;
      Dependence& kept = deps[n++];
      kept = d;
      kept.counted = true;
      ++record(d.slot).consumers;
    }
  }
  if (known) deps[n++] = binding;
  deps.resize(n);
}

}  // namespace allocsim::sim
