// The SystemC model of one core: the top module. It owns what the units share (sim/shared.h: the scoreboard, the
// DMA fabric's reservation calendar, the physical storage, the instruction records, the statistics), makes one
// module per hardware unit and wires them with FIFOs:
//
//   Sequencer --engine FIFO--> Engine (PE, ACT, DVE, POOL, SP)       sim/sequencer.h, sim/engine.h
//             --engine FIFO--> DmaIssuer --ring--> DmaQueue (one per queue)   sim/dma_issuer.h, sim/dma_queue.h
//
// Memories (SBUF partitions, PSUM banks, DRAM, the register file) are passive: PhysicalStorage, poisoned. The model
// is elaborated once per process and fed programs as jobs (sim/simulate.h); the top starts each job and collects
// its results.
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "sim/dma_issuer.h"
#include "sim/dma_queue.h"
#include "sim/engine.h"
#include "sim/sequencer.h"
#include "sim/shared.h"

namespace allocsim::sim {

class Top : public sc_core::sc_module {
 public:
  // vcd_path non-empty: trace engine activity and the first `queues` rings' occupancy to that file (closeVcd).
  Top(sc_core::sc_module_name name, const std::string& vcd_path, uint32_t queues);
  void closeVcd();
  // Runs one program to completion (sc_start until the model is idle). Throws InputError like simulate().
  SimResult run(const Program& p, const SimOptions& opts);

 private:
  // Makes DMA queue units up to n (the sequencer asks at a job's start; those made then serve that job at once).
  void ensureQueues(uint32_t n);
  // Each unit waits for a job on an event of its own, notified here in one fixed order (sequencer, engines, issuer,
  // queues). One shared event would wake them in the reverse of the order in which they finished the previous job;
  // same-cycle ties (two queues booking the fabric, two engines finishing) are broken by run order, so a program's
  // cycles would depend on what the process simulated before it.
  void startJob();
  void traceRingOccupancy();

  Shared shared_;
  Fifo engine_fifo_[kEngines];
  std::deque<Fifo> rings_;
  std::unique_ptr<Sequencer> sequencer_;
  std::unique_ptr<Engine> engines_[kEngines - 1];  // PE, ACT, DVE, POOL, SP
  std::unique_ptr<DmaIssuer> issuer_;
  std::deque<std::unique_ptr<DmaQueue>> queues_;
  std::string vcd_path_;
};

}  // namespace allocsim::sim
