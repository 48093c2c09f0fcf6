// Partial-DMA (seed 000 partial_DMA_access @0x95a7f0, get_memory_location_used_range): shrink an over-broad
// inserted load to the sub-range of its destination that is ever read.
//
// The used range of a destination tensor R is the hull (rows x elements) of every view of R that any
// instruction other than the load reads; a view with a register term or a second dimension makes it all of R.
// When that hull is a strict part of what the load writes, the load is narrowed to it (destination and source by
// the same amount) and marked !partial. Descriptor-count minimization: fewer rows, shorter runs, fewer bytes.
//
// The seed also mints a smaller memloc and re-points the consumers onto it. allocsim's verifier reads an inserted
// tensor element for element as the tensor it copies (docs/verification.md), so the tile keeps its shape and
// placement; only the DMA shrinks.
#pragma once

#include <cstdint>

#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

// Returns how many DMAs were narrowed. Renumbers the program.
uint32_t shrinkPartialDmas(Program& p, DmaOptInstance instance);

}  // namespace allocsim
