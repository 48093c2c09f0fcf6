// Dead-store removal (as in the production allocator: load_merging's dual removeRedundantWrites, and
// extra_save_removal): drop an inserted DMA whose destination is an inserted tensor (a spill slot, a stand-in) when
// nothing reads the bytes it writes before they are overwritten or the program ends ("saves never read again").
//
// From the DMA onward in its body: a read of any byte it wrote keeps it; a later instruction of the same body
// (not a loop, which may run zero times) that overwrites all of them kills it. At the end of a loop body the next
// iteration and everything after the loop may still read: the whole outermost enclosing loop counts as reading
// after it, then the scan goes on after that loop.
#pragma once

#include <cstdint>

#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

// Removes the dead DMAs the instance owns; returns how many. Renumbers the program.
uint32_t removeDeadStores(Program& p, DmaOptInstance instance);

}  // namespace allocsim
