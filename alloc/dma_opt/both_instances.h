// Both instances of the DMA optimization back to back, dma_optimization_psum then dma_optimization_sb, on a program
// that is already allocated: how the tests, the properties and the fuzz target run the pass on its own (the driver
// runs each instance after its own allocator instead, alloc/driver.h).
#pragma once

#include "alloc/dma_opt/dma_optimization.h"
#include "ir/program.h"

namespace allocsim {

struct DmaOptBothResult {
  Program program;
  // The two instances' counters summed; `pre` is the PSUM instance's, `post` the SB instance's (the whole effect);
  // `ran` when either ran.
  DmaOptStats stats;
};

// At --gca-dma-optlevel `level` (-1..2); throws OptionError for another level, as optimizeDmas does.
DmaOptBothResult optimizeDmasBothInstances(Program p, int level);

}  // namespace allocsim
