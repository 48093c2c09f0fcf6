// A DMA queue (a unit of the core model, sim/top.h): serves its ring of descriptor chains in order. The issuer
// decided each transfer's window on the fabric when it issued it (sim/dma_issuer.h); the queue moves the transfer's
// bytes once its producers have written them and its destination's older readers and writers are done (the order
// of the values; their times are the window), and frees its ring slot at its end.
#pragma once

#include <string>

#include "sim/shared.h"

namespace allocsim::sim {

// Not an sc_module: SystemC makes no module once elaboration has ended, and a program's machine names its number
// of queues when a job starts. Its thread is a dynamic process.
// What a queue does at a transfer's end (the record in `slot`, on queue `q`): moves its bytes, counts it, traces it
// and finishes its record. The queue calls it from its thread; when the data path is skipped
// (Shared::no_value_waits), the issuer calls it when it issues the transfer.
void endTransfer(Shared& s, uint32_t q, uint32_t slot);

class DmaQueue {
 public:
  // Made while a job runs (the top makes as many as the program's machine has queues), so it serves that job at
  // once.
  DmaQueue(const std::string& name, Shared& shared, uint32_t queue, Fifo& ring);
  sc_core::sc_event start;  // the top notifies it when a job begins

 private:
  void serve();
  Shared& s_;
  const uint32_t queue_;
  Fifo& ring_;
};

}  // namespace allocsim::sim
