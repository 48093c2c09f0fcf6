// Partial-DMA (the production allocator, partial_DMA_access @0x95a7f0, get_memory_location_used_range): shrink an
// over-broad inserted DMA to the sub-range of its destination that is ever read.
//
// The used range of a destination tensor R is the hull (rows x elements) of every view of R that any
// instruction other than the DMA reads; a view with a register term or a second dimension makes it all of R.
// When that hull is a strict part of what the DMA writes, the DMA is narrowed to it (destination and source by
// the same amount) and marked !partial. Descriptor-count minimization: fewer rows, shorter runs, fewer bytes.
//
// Which inserted DMAs are over-broad on allocator output: the spill writers reload exactly the view each
// instruction reads (alloc/instruction_stand_ins.h), so a reload never is; but a save writes the view its writer
// wrote, usually the whole tensor, and the slot's reloads may read only part of it (a tensor written whole and
// read later over a sub-range only: gen --dma-patterns "over-broad"). R is then the spill slot, its readers the
// reloads, and the save shrinks to the union of what they reload. A reload into a stand-in is handled alike
// (a hand-written or other allocator's whole-tile reload read over a sub-range).
//
// The production allocator also mints a smaller memloc and re-points the consumers onto it. allocsim's verifier reads
// an inserted tensor element for element as the tensor it copies (docs/verification.md), so the slot or tile keeps
// its shape and placement; only the DMA shrinks, and the bytes outside the used range are never written by it nor read.
#pragma once

#include <cstdint>

#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

// Returns how many DMAs were narrowed. Renumbers the program.
uint32_t shrinkPartialDmas(Program& p, DmaOptInstance instance);

}  // namespace allocsim
