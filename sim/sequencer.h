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
  // Per instruction (by Instruction::id, checked against its address), computed at its first dispatch in a job:
  // the registers it reads at dispatch, and its operands when they are the same every time.
  struct Plan {
    const Instruction* inst = nullptr;
    std::vector<RegId> regs;
    std::vector<std::pair<uint32_t, uint32_t>> lanes;  // each register's lanes [lo, hi), for the scoreboard
    bool static_operands = false;
    Operands operands;
  };
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

  void runJob();
  void runBody(const std::vector<Instruction>& body, const LoopPos* loop);
  void runLoop(const Instruction& inst);
  void runIf(const Instruction& inst, const LoopPos* loop);
  void waitForIndexRegisters(const Instruction& inst);
  void dispatch(const Instruction& inst, const LoopPos* loop);
  void countStep(const Instruction& inst);
  const Plan& planOf(const Instruction& inst);
  void readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec);
  void resolveOperands(const Instruction& inst, Operands& out);
  // Through the operand cache: an entry of the cache when the instruction's data is skipped (Shared::dataSkipped),
  // else rec.own_operands.
  const Operands* resolveWithRegisters(const Instruction& inst, Record& rec);
  void enterOperands(const Plan& plan, const Instruction& inst, uint32_t slot, Record& rec);
  // Shared access ports (docs/simulator.md "Shared ports"): the dependence of a DVE, POOL or ACT instruction on the
  // youngest older instruction of the engine it shares an SBUF or PSUM port with, and that record as the youngest
  // user of its own engine's side.
  void enterPorts(const Instruction& inst, uint32_t slot, Record& rec);
  void advance(uint64_t cycles);
  // The wait for the SP instructions writing registers it reads or sets: their values, then their ends (a RAW or
  // WAW stall of the sequencer when they end after its clock). Orders `deps`.
  void waitDeps(std::vector<Dependence>& deps, const Instruction* consumer);

  Shared& s_;
  Fifo* const engine_fifos_;
  const std::function<void(uint32_t)> ensure_queues_;
  std::vector<std::unique_ptr<Plan>> plans_;  // by Instruction::id; records point into the plans while this grows
  std::vector<CachedOperands> operand_cache_;
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
