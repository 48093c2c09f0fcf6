// What the units of the core model (sim/top.h) share during one job: the instruction records between dispatch and
// completion, the scoreboard, the DMA fabric's reservation calendar, the physical storage and the statistics. The
// top owns one Shared and hands it to every unit it wires; the units talk through the FIFOs the top connects
// (Fifo) and through the records' events.
//
// Time (temporal decoupling, docs/simulator.md "Time"): every decision is taken on cycles already decided, never on
// SystemC's clock, so results do not depend on the host's order of the threads; values move in the order the
// scoreboard's dependences give (done flags and events). A unit waits for the kernel for another unit's decision,
// or when its clock is more than SimOptions::quantum ahead of SystemC time; nothing wakes per clock edge.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "sim/calendar.h"
#include "sim/footprint.h"
#include "sim/reg_load_slice.h"
#include "sim/ring_fifo.h"
#include "sim/scoreboard.h"
#include "sim/simulate.h"

namespace allocsim::sim {

constexpr uint32_t kSequencerTrack = 6, kFirstQueueTrack = 7;  // TraceSlice::track
// The interpreter's code and diagnostics run on the units' stacks (also under ASan): larger than the default.
constexpr int kUnitStackBytes = 1 << 20;

// The stall cause of waiting for a dependence of kind `k`.
inline StallCause stallCauseOf(DepKind k) { return k == DepKind::Port ? StallCause::Port : StallCause(k); }

// checkSimCycles with its comparison inline: the model checks every instruction's end and the sequencer's clock at
// every step.
inline void checkCycles(const Instruction& inst, uint64_t cycle) {
  if (cycle > kMaxSimCycles) [[unlikely]]
    checkSimCycles(inst, cycle);
}

// Unwinds a unit's thread when another one failed.
struct Aborted {};

// Spawns a unit's thread: it waits for `start` (the top notifies it when a job begins) and runs `serve`, job after
// job; with `serve_first` it serves the job under way before it first waits (a unit made while a job runs).
void spawnUnit(const char* name, sc_core::sc_event& start, std::function<void()> serve, bool serve_first = false);

// What dispatch enters for an instruction: its operands' footprints in entry order and its cost. Where no view has
// a register term this does not change from one execution to the next, and the sequencer's plan keeps it.
struct Operands {
  struct Access {
    Footprint fp;
    bool write;
    bool accumulate;  // matmul's read of its destination: not entered when it starts a sum (start@...)
  };
  Access access[8];
  uint32_t n = 0;
  uint64_t latency = 0, bytes = 0, descriptors = 0;
  uint64_t fabric = 0;  // DMA: its share of the core's DMA engines (sim/timing.h DmaCost)
  bool streams_over_itself = false;
  KnownViews views;  // what the engine's stepper reads and writes, resolved here once
  // Copies the accesses and views in use only (the arrays are sized for the largest instruction).
  void assign(const Operands& o) {
    std::copy(o.access, o.access + o.n, access);
    n = o.n;
    latency = o.latency, bytes = o.bytes, descriptors = o.descriptors, fabric = o.fabric;
    streams_over_itself = o.streams_over_itself;
    std::copy(o.views.ap, o.views.ap + o.views.n, views.ap);
    std::copy(o.views.view, o.views.view + o.views.n, views.view);
    views.n = o.views.n;
  }
};

// Notifies `ev` when a thread waits on it (`waiting`, counted by Shared::waitEvent). An immediate notification
// reaches only threads waiting at that moment and wakes every one of them, so one nobody waits for is skipped and
// the count drops to zero with it: the same behaviour without the kernel's work (most of an instruction's
// notifications have no waiter, and a unit taking several instructions before its waiter runs notifies once).
// Every notification in the model is immediate.
inline void notifyWaiting(sc_core::sc_event& ev, uint32_t& waiting) {
  if (!waiting) return;
  waiting = 0;
  ev.notify();
}

// An event with a count of the threads waiting on it (notifyWaiting).
struct Event {
  sc_core::sc_event ev;
  uint32_t waiting = 0;
  void notifyWaiters() { notifyWaiting(ev, waiting); }
};

// An instruction between dispatch and completion; pooled, so its events are made once.
struct Record {
  // What consumers check, first and together (a record is over 1 KiB; a dependence check touches one line).
  uint64_t seq = 0;  // 0 = free
  // When it will end, once that is decided (a compute instruction when its engine takes it, a transfer when the
  // issuer issues it): a consumer that knows every producer's end waits once, not once per producer.
  uint64_t end_cycle = 0;
  bool end_known = false;
  bool done = false;  // its values are read and written
  bool release_when_unread = false;
  // Consumers dispatched before its end was decided that have not read it yet (Dependence::counted); a finished
  // record they keep is released by the last of them.
  uint32_t consumers = 0;
  uint32_t done_waiting = 0, known_waiting = 0;  // threads waiting on done_ev, known_ev
  const Instruction* inst = nullptr;
  bool first = true, last = true;  // loop position, for start@first / stop@last
  uint64_t read_index = 0;
  uint64_t latency = 0;  // compute cycles; DMA: its span on its engines (sim/timing.h DmaCost)
  uint64_t fabric = 0;   // DMA: the window it books on the fabric
  uint64_t dispatch_cycle = 0;  // when the sequencer queued it (the engine takes it no earlier)
  uint64_t issue_cycle = 0;
  uint64_t bytes = 0, descriptors = 0;
  std::vector<Dependence> deps;
  std::vector<std::pair<RegId, uint64_t>> regs;  // register values read at dispatch
  PendingWrites writes;
  bool streams_over_itself = false;  // destination over a source at an offset: executed chunk by chunk
  // Shared::dataSkipped of its instruction, decided at dispatch: no unit reads or writes its values (its `writes`
  // stay as they are; nothing commits them).
  bool data_skipped = false;
  // Its operands as dispatch resolved them: its plan's when they never change, else `own_operands`.
  const Operands* operands = nullptr;
  Operands own_operands;
  sc_core::sc_event done_ev, known_ev;
};

// A bounded FIFO of records between two units (an engine's instruction queue, a DMA ring).
struct Fifo {
  RingFifo<uint32_t> slots;
  Event pushed, popped;
  // An engine takes an instruction as soon as it may and decides when it starts; until that cycle the instruction
  // still counts as queued (the sequencer sees the queue as the engine would leave it at the start, by its own
  // clock). Engines run ahead, so several may be held, leaving in order.
  struct Held {
    uint64_t start;
    const Instruction* inst;
  };
  RingFifo<Held> held;
  // Instructions taken but still counted as queued at `now` (drops the ones that have left).
  uint32_t heldAt(uint64_t now) {
    while (!held.empty() && held.front().start <= now) held.pop_front();
    return uint32_t(held.size());
  }
};

// A unit that takes its instructions from a FIFO in order: an engine or the DMA issuer. With
// Shared::no_value_waits nothing it decides waits for a value, only for its producers' ends, so it can take an
// instruction on any thread once those are decided, and decides what its own thread would (every decision is on
// cycles already decided): the sequencer has each instruction taken as it dispatches it (Sequencer::dispatch).
class Unit {
 public:
  // Takes the FIFO's next instruction when there is one and its producers' ends are all decided (only with
  // no_value_waits): what the unit's own thread does with it, without waiting. False when it took none.
  virtual bool stepIfReady() = 0;

 protected:
  ~Unit() = default;
};

// The registers an instruction's operands read, as the sequencer captured them.
class SnapshotStorage : public Storage {
 public:
  explicit SnapshotStorage(PhysicalStorage& phys) : phys_(phys) {}
  uint8_t* row(TensorId t, uint32_t partition) override { return phys_.row(t, partition); }
  void rows(TensorId t, uint32_t first, uint32_t n, uint8_t** out) override { phys_.rows(t, first, n, out); }
  uint8_t* rowRange(TensorId t, uint32_t first, uint32_t n, uint64_t& stride) override {
    return phys_.rowRange(t, first, n, stride);
  }
  uint64_t readReg(RegId r) override;
  void writeReg(RegId r, uint64_t v) override { phys_.writeReg(r, v); }
  const std::vector<std::pair<RegId, uint64_t>>* snapshot = nullptr;

 private:
  PhysicalStorage& phys_;
};

class Shared {
 public:
  Shared();

  // ---- the current job (set by the top) --------------------------------------------------------------------------
  const Program* p = nullptr;
  const SimOptions* o = nullptr;
  const TimingTable* timing = nullptr;  // o->timingFor(*p)
  std::unique_ptr<PhysicalStorage> phys;
  std::unique_ptr<SnapshotStorage> snap;
  std::unique_ptr<InstructionStepper> stepper;
  std::optional<MachineLayout> layout;
  uint64_t max_view_bytes = 0;
  uint64_t base_ps = 0;  // sc_time value at the job's start
  uint64_t last_cycle = 0;
  uint64_t quantum = 0;  // SimOptions::quantum; 0 with a VCD
  bool skip_data = false;  // timing only: the data path runs only for the instructions of `data_slice`
  // With skip_data, the instructions that can reach a register load (sim/reg_load_slice.h); empty when the program
  // has none.
  RegLoadSlice data_slice;
  // No data moves (skip_data, an empty data_slice), so nothing waits for a value: an instruction's producers need
  // not have written before it runs, and a transfer is ended (counted, traced, its record finished) by the issuer
  // when it issues it, its end being decided then, instead of by its queue's thread. Not with quantum 0, whose units
  // wait out every instruction in model time.
  bool no_value_waits = false;
  // Whether an instruction's execution is skipped: with skip_data, every one on a tensor engine or the DMA outside
  // the slice. The SP's run, since addresses and loop bounds read the registers they write.
  bool dataSkipped(const Instruction& inst) const {
    return skip_data && engineOf(inst.op) != Engine::SP &&
           !(inst.id < data_slice.computed.size() && data_slice.computed[inst.id]);
  }
  bool dispatch_done = false, dma_issue_done = false, abort = false;
  std::exception_ptr error;
  SimResult result;
  Scoreboard board;
  ReservationCalendar fabric;
  // Every FIFO the top wired, woken when a unit fails (their waiters then see `abort`).
  std::vector<Fifo*> fifos;
  // The units that take instructions from the sequencer's FIFOs, by engine (ir/program.h Engine order: the DMA
  // engine's is the issuer).
  std::vector<Unit*> units;

  // What the VCD samples (plain variables, traced by address): engines busy, the sequencer busy, ring slots used.
  sc_core::sc_trace_file* vcd = nullptr;
  bool busy[kEngines + 1] = {};
  uint32_t ring_used[256] = {};  // arch dma-queues <= 256 (ir/arch.cpp)
  // Ring occupancy changes for the trace: (cycle, queue, +1 issued / -1 ended), put in time order at the end.
  struct RingChange {
    uint64_t cycle;
    uint32_t queue;
    int32_t delta;
  };
  std::vector<RingChange> ring_changes;

  // ---- records -----------------------------------------------------------------------------------------------------
  Record& record(uint32_t slot) { return *records_[slot]; }
  // A free record, numbered with the next dispatch number; inline but for the pool's growth.
  uint32_t takeRecord() {
    if (free_.empty()) [[unlikely]]
      growRecords();
    const uint32_t slot = free_.back();
    free_.pop_back();
    record(slot).seq = ++seq_;
    ends_[slot] = Dependence::kEndUnknown;
    return slot;
  }
  // Decides the end of the record in `slot` (its unit takes it) and wakes the consumers waiting for it.
  void decideEnd(uint32_t slot, uint64_t end) {
    Record& r = record(slot);
    r.end_cycle = end;
    r.end_known = true;
    ends_[slot] = end;
    notifyWaiting(r.known_ev, r.known_waiting);
  }
  void freeRecord(uint32_t slot);
  // Frees every record (a failed job may have left some taken) and forgets the finished ones.
  void resetRecords();
  // After a job: frees the finished records; false when some are still taken (instructions in flight).
  bool releaseAll();
  // Releases the finished records whose end no instruction still to start can wait for: those ending at or before
  // the sequencer's clock `sequencer_cycle` (every instruction dispatched from then on starts no earlier).
  void releaseEnded(uint64_t sequencer_cycle) {  // inline but for a release (the sequencer asks at every dispatch)
    if (finished_min_end_ <= sequencer_cycle) releaseEndedBy(sequencer_cycle);
  }
  // Reduces a dispatched instruction's dependences to those that can bind (of one compute engine, the youngest
  // instruction's), puts them in the order its unit waits for their values (orderDependences), copies decided ends
  // into them and counts the consumer on each producer whose end is undecided. With no_value_waits none is left out
  // as an older one of its engine, of the decided ones only the one that binds among them is kept, and they stay in
  // no order.
  void noteProducers(std::vector<Dependence>& deps);
  static void keepYoungestPerEngine(std::vector<Dependence>& deps);  // (noteProducers)
  // The data path of a record whose data is not skipped (Record::data_skipped):
  void startRecord(uint32_t slot);    // reads the operands (streamed: sim/stream.h)
  void executeRecord(uint32_t slot);  // reads the operands and writes the results at once (not streamed)
  // Writes the results (unless its data is skipped), releases the sources (WAR waits for this). Inline: every
  // instruction's unit calls it once.
  void finishRecord(uint32_t slot, Engine engine) {
    Record& r = record(slot);
    if (!r.data_skipped) r.writes.commit(*phys);
    r.done = true;
    notifyWaiting(r.done_ev, r.done_waiting);
    last_cycle = std::max(last_cycle, r.end_cycle);
    // It stays on the scoreboard until its end is at or before the sequencer's clock (releaseEnded).
    finished_[uint32_t(engine)].push_back({r.end_cycle, slot});
    finished_min_end_ = std::min(finished_min_end_, r.end_cycle);
  }

  // ---- time and waiting (on the calling unit's thread) -----------------------------------------------------------
  uint64_t now() const;  // model cycles since the job's start
  void waitCycles(uint64_t n);
  // Waits for `ev`, counted in `waiting` until a notification (notifyWaiting); throws Aborted when the job failed
  // meanwhile.
  void waitEvent(sc_core::sc_event& ev, uint32_t& waiting);
  void waitEvent(Event& e) { waitEvent(e.ev, e.waiting); }
  void syncTo(uint64_t cycle);  // waits until SystemC time reaches `cycle` (no wait when it has)
  // The quantum keeper: a unit whose clock is more than a quantum ahead of SystemC time waits for the kernel.
  void keepQuantum(uint64_t clock);
  // The cycle at which every dependence has ended, at least `from`, waiting only for producers whose end is not
  // decided yet; `binding` is the one ending last (bindsAfter), null when none ends after `from`.
  uint64_t endOfAll(const std::vector<Dependence>& deps, uint64_t from, const Dependence*& binding);
  // Waits until every producer has read and written its values (the order of values, not of time).
  void waitUntilDone(const std::vector<Dependence>& deps);
  // The first producer whose end is not decided yet (a released one has ended), or null.
  Record* undecided(const std::vector<Dependence>& deps) {
    for (const Dependence& d : deps) {
      if (d.end != Dependence::kEndUnknown) continue;
      Record& producer = record(d.slot);
      if (producer.seq == d.seq && !producer.end_known) return &producer;
    }
    return nullptr;
  }
  // The record at the head of `fifo`, once there is one; kNoSlot when the producer is `done` and the FIFO empty, or
  // the job failed.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  uint32_t nextSlot(Fifo& fifo, const bool& done) {
    while (fifo.slots.empty() && !done) waitEvent(fifo.pushed);
    return fifo.slots.empty() || abort ? kNoSlot : fifo.slots.front();
  }
  // Takes a FIFO's head, starting at `start`: the producer sees its slot free from then on.
  void takeHead(Fifo& fifo, uint64_t start) {
    fifo.held.push_back({start, record(fifo.slots.front()).inst});
    fifo.slots.pop_front();
    fifo.popped.notifyWaiters();
  }

  void fail(std::exception_ptr e);
  void slice(uint32_t track, uint64_t start, uint64_t end, const Instruction* inst) {
    if (o->trace) o->trace->slices.push_back({track, start, end, inst});
  }

 private:
  sc_core::sc_simcontext* const context_;  // the kernel's clock, read inline (now())
  uint64_t seq_ = 0;
  std::vector<std::unique_ptr<Record>> records_;  // pooled (events cannot move): indexing is one load
  std::vector<uint32_t> free_;
  // By slot: its record's end once decided, else Dependence::kEndUnknown (noteProducers reads one per dependence).
  std::vector<uint64_t> ends_;
  void growRecords();  // one more record in the pool, free
  void releaseEndedBy(uint64_t sequencer_cycle);  // releaseEnded's releases
  // Finished records (their values written) kept with their entries on the scoreboard until their end is at or
  // before the sequencer's clock: an instruction dispatched before that end depends on it although its values are
  // written already.
  // They are kept by the engine that ran them, in the order they finished: a compute engine runs its instructions in
  // order, so they end in that order too, and its first one ends first; transfers end nearly in the order they are
  // issued. A record that ends before an older one of its engine is released with that one: it stays on the
  // board a little longer, and the dependences on it bind nothing. The units finish far ahead of the sequencer's
  // clock, and a release looks at the records it releases and each engine's first.
  struct Finished {
    uint64_t end;
    uint32_t slot;
  };
  RingFifo<Finished> finished_[kEngines];
  uint64_t finished_min_end_ = UINT64_MAX;  // at most the end of each engine's first
  // Of two dependences ending together at `end` (`d` and the binding one so far, `b`), whether `d` binds instead:
  // the youngest producer, and of one producer's dependences the first kind in RAW, WAR, WAW order. The binding
  // dependence (a stall's producer and cause) thus depends on program order alone, not on the list's order.
  static bool bindsAfter(const Dependence& d, uint64_t d_end, const Dependence& b, uint64_t b_end) {
    if (d_end != b_end) return d_end > b_end;
    return d.seq != b.seq ? d.seq > b.seq : d.kind < b.kind;
  }
};

}  // namespace allocsim::sim
