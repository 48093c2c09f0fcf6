// The DMA issuer (a unit of the core model, sim/top.h): takes dma instructions in program order and puts each on
// the next queue's ring, round robin. It issues a transfer when its dependences have ended (a DMA's are real:
// transfers end out of order on the queues) and its ring has a free slot, and books the shared fabric for it then.
// Issue is in program order, so a transfer waiting for its dependences holds back every later one, as on the
// hardware: a transfer starts with a trigger instruction of an engine sequencer, which waits on the semaphores of
// its dependences, and each sequencer fetches, decodes and issues its own instruction stream (aws-neuron-sdk at
// fb4ce106, nki/get-started/about/nki-dma-overview.rst lines 21-24, "DMA Triggers";
// nki/guides/architecture/trainium_inferentia2_arch.rst lines 54-58). A kernel's loads and stores are triggered by
// the Sync engine onto one queue: the trn1 profiles of the fused Mamba tutorial and the performance guide show them
// on `qSyncIO0`, with the compute engines waiting on that queue's semaphore (at 81ce03ae,
// nki/guides/tutorials/fused_mamba.rst lines 562-564, nki/deep-dives/nki_perf_guide.rst lines 346-348). One
// queue's transfers run in order on each DMA engine and every transfer is spread over the engines (DMA overview
// lines 26-29 "DMA Queues", line 14); the model's queues, taken round robin, are where transfers run side by side,
// all fed by the one trigger stream. The fabric window is
// the first window of its fabric share (sim/timing.h DmaCost) that starts at least dma.fixed-ns after the issue and
// no earlier than the end of the transfer before it on its queue (a ring is served in order). The transfer ends its
// span after the window's start. So every transfer's end is decided when it is issued.
//
// Everything the issuer decides on is a cycle decided before (its producers' ends, the ends of the transfers on
// the ring), so it runs ahead of model time on its own clock, as the sequencer does, and waits only for a producer
// whose end is not decided yet or for the sequencer to queue the next transfer. It never touches data: the queue
// unit moves a transfer's bytes at its end. Requests reach the fabric in issue order, which is model-time order
// (the issuer is in order), so the calendar grants them as a fabric that takes requests first come, first served
// would, whatever order the host runs threads in. A ring slot freed in a cycle is free for a transfer issued in
// that cycle. With a VCD the issuer waits in model time, so DMA_issue is high from a transfer's dispatch until its
// issue and the ring counters change when the rings do.
#pragma once

#include <deque>

#include "sim/in_order_unit.h"

namespace allocsim::sim {

class DmaIssuer : public sc_core::sc_module, public InOrderUnit<DmaIssuer> {
 public:
  // `in`: the DMA engine's instruction queue; `rings`: the queues' rings, grown by the top before a job starts
  // serving them.
  DmaIssuer(sc_core::sc_module_name name, Shared& shared, Fifo& in, std::deque<Fifo>& rings);
  sc_core::sc_event start;  // the top notifies it when a job begins
  void prepare();           // before a job starts: empty rings, the first queue next, the clock at the job's start

 private:
  friend class InOrderUnit<DmaIssuer>;
  // The issuer's view of a ring: the transfers on it, oldest first, with the cycle each frees its slot.
  struct RingEntry {
    uint64_t end;
    const Instruction* inst;
  };
  void serve();
  // Takes the FIFO's head (in `slot`) and issues it: waits for its producers' ends unless Shared::no_value_waits.
  void step(uint32_t slot);
  std::deque<Fifo>& rings_;
  std::vector<RingFifo<RingEntry>> issued_;  // per ring
  uint32_t rounds_ = 1;  // the queues taken round robin
  uint32_t next_ = 0;    // the next transfer's queue
  // clock_ (InOrderUnit): the last issue
  uint64_t fixed_ = 0;   // TimingTable::dmaFixedCycles
};

}  // namespace allocsim::sim
