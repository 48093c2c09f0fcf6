// The SystemC model of one core (DESIGN.md section 4, issue 8 item 1): one thread per hardware unit, elaborated
// once per process and fed programs as jobs (sim/simulate.h).
//
// - The SP sequencer walks the program in order: it runs loops (setting the induction register, one
//   sp.loop-iteration each), reads the registers an instruction names (waiting for an SP instruction still
//   writing one: a RAW stall), resolves its access patterns to physical footprints, enters them on the
//   scoreboard and queues the instruction to its engine (a full engine queue stalls it: "engine busy").
// - PE, ACT, DVE, POOL and SP each execute their queue in program order on a clock of their own: an instruction
//   starts at the latest of the engine's clock, its dispatch cycle and its producers' ends (RAW/WAR/WAW, the stall
//   attributed to the binding pair), reads its operands and writes its results (the interpreter's code,
//   InstructionStepper) once its producers have, and ends a latency later.
// - The DMA engine issues dma instructions in program order onto the queues, round robin; each queue is a ring of
//   dma-ring-slots descriptor chains (a full ring stalls the issuer). At the issue it books the shared DMA fabric
//   on a reservation calendar: a window at least the fixed latency after the issue, after the transfer ahead on
//   the queue (serveIssuer). A queue thread serves its ring in order, moving each transfer's bytes.
// Memories (SBUF partitions, PSUM banks, DRAM, the register file) are passive: PhysicalStorage, poisoned.
// Time (temporal decoupling, docs/simulator.md "Time"): every decision is taken on cycles already decided, never on
// SystemC's clock, so results do not depend on the host's order of the threads; values move in the order the
// scoreboard's dependences give (done flags and events). A unit waits for the kernel for another unit's decision,
// or when its clock is more than SimOptions::quantum ahead of SystemC time; nothing wakes per clock edge.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "sim/calendar.h"
#include "sim/footprint.h"
#include "sim/ring_fifo.h"
#include "sim/scoreboard.h"
#include "sim/simulate.h"

namespace allocsim::sim {

class Core : public sc_core::sc_module {
 public:
  // vcd_path non-empty: trace engine activity and the first `queues` rings' occupancy to that file (closeVcd).
  Core(sc_core::sc_module_name name, const std::string& vcd_path, uint32_t queues);
  void closeVcd();
  // The bare model (sim/bare.h): the same threads, each doing nothing but wait(latency) per entry of its track
  // (tracks as TraceSlice::track numbers them). Returns the entries waited.
  uint64_t runBare(const std::vector<std::vector<uint64_t>>& tracks);
  // Runs one program to completion (sc_start until the model is idle). Throws InputError like simulate().
  SimResult run(const Program& p, const SimOptions& opts);

 private:
  struct Aborted {};  // unwinds a thread when another one failed

  // What dispatch enters for an instruction: its operands' footprints in entry order and its cost. Where no view
  // has a register term this does not change from one execution to the next, and the plan keeps it.
  struct Operands {
    struct Access {
      Footprint fp;
      bool write;
      bool accumulate;  // matmul's read of its destination: not entered when it starts a sum (start@...)
    };
    Access access[8];
    uint32_t n = 0;
    uint64_t latency = 0, bytes = 0, descriptors = 0;
    bool streams_over_itself = false;
    KnownViews views;  // what the engine's stepper reads and writes, resolved here once
  };
  // An event with a count of the threads waiting on it. An immediate notification reaches only threads waiting at
  // that moment, so one nobody waits for is skipped: the same behaviour without the kernel's work (most of an
  // instruction's notifications have no waiter). Every notification in the model is immediate.
  struct Event {
    sc_core::sc_event ev;
    uint32_t waiting = 0;
    void notifyWaiters() {
      if (waiting) ev.notify();
    }
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
    uint64_t latency = 0;  // compute cycles; DMA: fabric cycles
    uint64_t dispatch_cycle = 0;  // when the sequencer queued it (the engine takes it no earlier)
    uint64_t issue_cycle = 0;
    uint64_t bytes = 0, descriptors = 0;
    std::vector<Dependence> deps;
    std::vector<std::pair<RegId, uint64_t>> regs;  // register values read at dispatch
    PendingWrites writes;
    bool streams_over_itself = false;  // destination over a source at an offset: executed chunk by chunk
    // Its operands as dispatch resolved them: its plan's when they never change, else `own_operands`.
    const Operands* operands = nullptr;
    Operands own_operands;
    sc_core::sc_event done_ev, known_ev;
  };
  // A bounded FIFO between two threads.
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
  // The DMA issuer's view of a ring: the transfers on it, oldest first, with the cycle each frees its slot.
  struct RingEntry {
    uint64_t end;
    const Instruction* inst;
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
  struct LoopPos {
    bool first, last;
  };
  // Per instruction (by Instruction::id, checked against its address), computed at its first dispatch in a job:
  // the registers it reads at dispatch, and its operands when they are the same every time.
  struct Plan {
    const Instruction* inst = nullptr;
    std::vector<RegId> regs;
    std::vector<std::pair<uint32_t, uint32_t>> lanes;  // each register's lanes [lo, hi), for the scoreboard
    bool static_operands = false;
    Operands operands;
  };
  std::vector<std::unique_ptr<Plan>> plans_;  // by Instruction::id; records point into the plans while this grows
  const Plan& planOf(const Instruction& inst);
  // Operands of instructions with register terms, by instruction and the values of the registers it reads at
  // dispatch (which are all resolveOperands depends on in a job): a loop nest that runs again inside an outer loop
  // resolves the same addresses again. Direct-mapped, a fixed number of entries (memory does not grow with the
  // program); a miss resolves and replaces.
  struct CachedOperands {
    static constexpr size_t kMaxRegs = 8;
    const Instruction* inst = nullptr;
    uint32_t n = 0;
    uint64_t regs[kMaxRegs] = {};
    Operands operands;
  };
  static constexpr size_t kOperandCacheEntries = 1024;
  std::vector<CachedOperands> operand_cache_;
  void resolveWithRegisters(const Instruction& inst, Record& rec);  // into rec.own_operands

  // threads
  void sequencerThread();
  void engineThread(uint32_t engine);
  void queueThread(uint32_t q, bool joined_running);
  void serveEngine(uint32_t engine);
  void serveIssuer();
  void serveQueue(uint32_t q);
  void serveBare(uint32_t track);

  // sequencer
  void runBody(const std::vector<Instruction>& body, const LoopPos* loop);
  void runLoop(const Instruction& inst);
  void runIf(const Instruction& inst, const LoopPos* loop);
  void dispatch(const Instruction& inst, const LoopPos* loop);
  void countStep(const Instruction& inst);
  void readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec);
  void resolveOperands(const Instruction& inst, Operands& out);
  void enterOperands(const Plan& plan, const Instruction& inst, uint32_t slot, Record& rec);

  // shared
  uint64_t now() const;
  void waitCycles(uint64_t n);
  // Waits for `ev`, counted in `waiting` (see Event); throws Aborted when the job failed meanwhile.
  void waitEvent(sc_core::sc_event& ev, uint32_t& waiting);
  void waitEvent(Event& e) { waitEvent(e.ev, e.waiting); }
  void syncTo(uint64_t cycle);  // waits until SystemC time reaches `cycle` (no wait when it has)
  // The quantum keeper: a unit whose clock is more than a quantum ahead of SystemC time waits for the kernel.
  void keepQuantum(uint64_t clock);
  // The cycle at which every dependence has ended, at least `from`, waiting only for producers whose end is not
  // decided yet; `binding` is the one ending last (of several ending together, the youngest), null when none ends
  // after `from`.
  uint64_t endOfAll(const std::vector<Dependence>& deps, uint64_t from, const Dependence*& binding);
  // Takes the engine queue's head, starting at `start`: the sequencer sees its slot free from then on.
  void takeHead(Fifo& fifo, uint64_t start);
  void advanceSequencer(uint64_t cycles);
  // The sequencer's wait for the SP instructions writing registers it reads or sets: their values, then their
  // ends (a RAW or WAW stall of the sequencer when they end after its clock). Orders `deps`.
  void sequencerWaitDeps(std::vector<Dependence>& deps, const Instruction* consumer);
  // Waits until every producer has read and written its values (the order of values, not of time).
  void waitUntilDone(const std::vector<Dependence>& deps);
  uint32_t takeRecord();
  void freeRecord(uint32_t slot);
  // Releases the finished records whose end no instruction still to start can wait for (see finished_).
  void releaseEnded();
  void noteProducers(std::vector<Dependence>& deps);
  void startRecord(uint32_t slot);   // reads the operands
  void executeRecord(uint32_t slot);  // reads the operands and writes the results at once (not streamed)
  void finishRecord(uint32_t slot);  // writes the results, releases the sources (WAR waits for this)
  void fail(std::exception_ptr e);
  void wakeEveryone();
  void ensureQueues(uint32_t n);
  void traceRingOccupancy();
  void slice(uint32_t track, uint64_t start, uint64_t end, const Instruction* inst);

  // Each thread waits for a job on an event of its own, and startJob() notifies them in one fixed order
  // (sequencer, engines, queues). One shared event would wake them in the reverse of the order in which they
  // finished the previous job; same-cycle ties (two queues booking the fabric, two engines finishing) are broken by
  // run order, so a program's cycles would depend on what the process simulated before it.
  sc_core::sc_event sequencer_start_;
  sc_core::sc_event engine_start_[kEngines];
  std::deque<sc_core::sc_event> queue_start_;  // one per queue thread
  void startJob();
  // the current job
  sc_core::sc_simcontext* const context_;  // the kernel's clock, read inline (now())
  const Program* p_ = nullptr;
  const std::vector<std::vector<uint64_t>>* bare_ = nullptr;
  const SimOptions* o_ = nullptr;
  std::unique_ptr<PhysicalStorage> phys_;
  std::unique_ptr<SnapshotStorage> snap_;
  std::unique_ptr<InstructionStepper> stepper_;
  std::optional<MachineLayout> layout_;
  uint64_t max_view_bytes_ = 0;
  uint64_t base_ps_ = 0;  // sc_time value at the job's start
  uint64_t seq_ = 0;
  uint64_t dma_issued_ = 0;
  uint64_t last_cycle_ = 0;
  // The sequencer's own clock (temporal decoupling, as every unit's): a loop iteration advances it, and an
  // instruction it queues carries it as its dispatch cycle. It waits on an event only for a decision not taken yet
  // (the start of the oldest instruction in a full engine queue, the values of an SP instruction writing a register
  // it reads) and then moves its clock to the decided cycle (a stall when that is later). With a VCD it waits out
  // every iteration (SEQ_loop).
  uint64_t sequencer_cycle_ = 0;
  std::vector<Dependence> loop_deps_;  // runLoop's scratch
  bool dispatch_done_ = false, dma_issue_done_ = false, abort_ = false;
  std::exception_ptr error_;
  SimResult result_;
  Scoreboard board_;
  ReservationCalendar fabric_;

  std::vector<std::unique_ptr<Record>> records_;  // pooled (events cannot move): indexing is one load
  std::vector<uint32_t> free_;
  // Finished records (their values written) kept with their entries on the scoreboard until their end is at or
  // before the sequencer's clock: an instruction dispatched before that end depends on it although its values are
  // written already.
  std::vector<uint32_t> finished_;
  uint64_t finished_min_end_ = UINT64_MAX;
  uint64_t quantum_ = 0;  // SimOptions::quantum; 0 with a VCD
  Fifo engine_fifo_[kEngines];
  std::deque<Fifo> rings_;
  std::deque<RingFifo<RingEntry>> issued_;  // per ring, as the issuer sees it (see serveIssuer)
  // Ring occupancy changes for the trace: (cycle, queue, +1 issued / -1 ended), put in time order at the end.
  struct RingChange {
    uint64_t cycle;
    uint32_t queue;
    int32_t delta;
  };
  std::vector<RingChange> ring_changes_;
  uint32_t queue_threads_ = 0;

  // What the VCD samples (plain variables, traced by address): engines busy, the sequencer busy, ring slots used.
  bool busy_[kEngines + 1] = {};
  uint32_t ring_used_[256] = {};  // arch dma-queues <= 256 (ir/arch.cpp)
  sc_core::sc_trace_file* vcd_ = nullptr;
  std::string vcd_path_;
};

}  // namespace allocsim::sim
