// The SP sequencer (a unit of the core model, sim/top.h): walks the program in order. It runs loops (setting the
// induction register, one sp.loop-iteration each), reads the registers an instruction names (waiting for an SP
// instruction still writing one: a RAW stall), resolves its access patterns to physical footprints and its cost,
// enters them on the scoreboard and queues the instruction to its engine's FIFO (a full engine queue stalls it:
// "engine busy").
//
// It keeps a clock of its own (temporal decoupling, as every unit): a loop iteration advances it, and an
// instruction it queues carries it as its dispatch cycle. It waits on an event only for a decision not taken yet
// (the start of the oldest instruction in a full engine queue, the values of an SP instruction writing a register
// it reads) and then moves its clock to the decided cycle (a stall when that is later). With a VCD it waits out
// every iteration (SEQ_loop).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sim/shared.h"

namespace allocsim::sim {

class Sequencer : public sc_core::sc_module {
 public:
  // `engine_fifos`: the queue of each engine (ir/program.h Engine order); `ensure_queues(n)`: asks the top for n
  // DMA queue units before the job's first dispatch.
  Sequencer(sc_core::sc_module_name name, Shared& shared, Fifo* engine_fifos,
            std::function<void(uint32_t)> ensure_queues);
  sc_core::sc_event start;  // the top notifies it when a job begins
  void reset();             // forgets the previous job's plans (keyed by instruction address)

 private:
  struct LoopPos {
    bool first, last;
  };
  // A view whose address has register terms, as dispatch recomputes it: partition and offset are the index's
  // constant plus its terms, each a scale times a function of one register the plan reads (Plan::terms); the
  // view is in range when the two lie within [0, max_*] (the shape, hence the rest of the view, the footprint's
  // extent and the cost, does not change from one execution to the next).
  struct Term {
    uint32_t reg;  // index into Plan::regs (and the record's register values)
    uint32_t div, mod;
    int64_t scale;
  };
  struct PlannedView {
    uint32_t view;  // its index in the plan's operands.views
    int64_t part_constant, off_constant;
    int64_t max_part, max_off;
    uint32_t first_term, part_terms, off_terms;
    uint32_t accesses;  // a bit per Operands::access entry whose footprint is this view's
    ShapeFootprint footprint;
  };
  // Per instruction (by Instruction::id, checked against its address), computed at its first dispatch in a job:
  // the registers it reads at dispatch, and its operands; when a view has register terms, how dispatch recomputes
  // the operands from the registers' values.
  struct Plan {
    const Instruction* inst = nullptr;
    std::vector<RegId> regs;                           // each register once
    std::vector<std::pair<uint32_t, uint32_t>> lanes;  // each register's lanes [lo, hi), for the scoreboard
    bool static_operands = false;
    bool data_skipped = false;  // Shared::dataSkipped, fixed for the job
    // With register terms: whether `operands` was resolved once (its shape is known), and then the views of
    // `operands.views` that have register terms, in order (the others keep their first resolution, footprint and
    // accesses), which view each access's footprint is (kNoView: a register's), an access whose footprint is each
    // view's, and the pairs (destination, source) whose overlap at an offset makes it stream over itself.
    bool shaped = false;
    std::vector<Term> terms;
    std::vector<PlannedView> views;
    uint8_t access_view[8] = {};
    uint8_t view_access[KnownViews::kMax] = {};
    std::vector<std::pair<uint8_t, uint8_t>> overlap_pairs;
    Operands operands;  // static: as resolved; with register terms: the last dispatch's (the engine's copy if needed)
    int8_t memories = -1;  // enterPorts: bit 0 SBUF, bit 1 PSUM accessed; -1 not known yet
  };
  static constexpr uint8_t kNoView = 0xff;
  // What resolveOperands tells the plan about the operands' shape: the view behind each access and the pairs
  // whose overlap it tested.
  struct Shape {
    uint8_t access_view[8] = {};
    std::vector<std::pair<uint8_t, uint8_t>> overlap_pairs;
  };

  void runJob();
  void runBody(const std::vector<Instruction>& body, const LoopPos* loop);
  void runLoop(const Instruction& inst);
  void runIf(const Instruction& inst, const LoopPos* loop);
  void waitForIndexRegisters(const Instruction& inst);
  void dispatch(const Instruction& inst, const LoopPos* loop);
  // Counts an executed step at the sequencer's clock (refusing a run past SimOptions::max_steps or kMaxSimCycles);
  // inline, the rare cases out of line.
  void countStep(const Instruction& inst) {
    checkCycles(inst, clock_);
    const uint64_t steps = ++s_.result.exec.steps;
    if (steps > s_.o->max_steps || s_.o->progress) [[unlikely]]
      stepBeyondCount(inst);
  }
  void stepBeyondCount(const Instruction& inst);  // countStep's rare cases: too many steps, progress reports
  // The instruction's plan; inline when it has one for this job's program, else makePlan.
  Plan& planOf(const Instruction& inst) {
    if (inst.id < plans_.size()) {
      Plan* plan = plans_[inst.id].get();
      if (plan && plan->inst == &inst) return *plan;
    }
    return makePlan(inst);
  }
  Plan& makePlan(const Instruction& inst);
  void readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec);
  void resolveOperands(const Instruction& inst, Operands& out, Shape* shape = nullptr);
  // The operands of an instruction whose views have register terms, for the register values the record read: the
  // plan's (updated in place) when the instruction's data is skipped (Shared::dataSkipped), else rec.own_operands.
  const Operands* resolveWithRegisters(Plan& plan, const Instruction& inst, Record& rec);
  // Makes the plan's direct recomputation from the first resolution's shape.
  void planViews(Plan& plan, const Shape& shape);
  // Recomputes plan.operands from the record's register values; false (nothing valid) when a view would leave its
  // tensor or an index overflow 64 bits: the full resolution then decides (and reports). Whether it streams over
  // itself is asked only when the instruction is `executed` (its data not skipped).
  bool recompute(Plan& plan, const Record& rec, bool executed);
  void enterOperands(Plan& plan, const Instruction& inst, uint32_t slot, Record& rec);
  // Shared access ports (docs/simulator.md "Shared ports"): the dependence of a DVE, POOL or ACT instruction on the
  // youngest older instruction of the engine it shares an SBUF or PSUM port with, and that record as the youngest
  // user of its own engine's side. Only for a DVE, POOL or ACT instruction under a table with shared ports.
  void enterPorts(Plan& plan, const Instruction& inst, uint32_t slot, Record& rec);
  void advance(uint64_t cycles);
  // The wait for the SP instructions writing registers it reads or sets: their values, then their ends (a RAW or
  // WAW stall of the sequencer when they end after its clock). Orders `deps`.
  void waitDeps(std::vector<Dependence>& deps, const Instruction* consumer);

  Shared& s_;
  Fifo* const engine_fifos_;
  const std::function<void(uint32_t)> ensure_queues_;
  std::vector<std::unique_ptr<Plan>> plans_;  // by Instruction::id; records point into the plans while this grows
  uint64_t clock_ = 0;
  std::vector<Dependence> loop_deps_;  // runLoop's scratch
  // The youngest dispatched instruction of an engine that accesses a memory through a shared port: by port side
  // (kPort* below), its record's slot and dispatch number (seq 0: none this job).
  enum PortSide : uint32_t { kSbufDve, kSbufPool, kPsumDve, kPsumAct, kPortSides };
  struct PortUser {
    uint32_t slot = 0;
    uint64_t seq = 0;
    const Instruction* inst = nullptr;
  };
  PortUser port_users_[kPortSides];
};

}  // namespace allocsim::sim
