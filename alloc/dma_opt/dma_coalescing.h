// Coalescing (the production allocator, internal_dma_coalescing @0x9654f0): merge DMAs whose bytes abut within each
// partition into one wider descriptor, under the production allocator's legality, read on allocsim's program model:
//   - single producer -> consumer chain: the DMAs follow each other directly in one body and copy between the same
//     source tensor and the same destination tensor (two different tensors);
//   - isFullAccess: the merged view is exactly the union of the two views (no gap, no overlap);
//   - IsContiguous on real addresses: each view is one constant element run per partition, over the same
//     partitions, and the second starts where the first ends on both sides (the same tensor at one placement,
//     so abutting elements are abutting bytes);
//   - the element ceiling, the sanity limit and the alignment gate (dma_opt_limits.h), and the per-partition byte
//     budget of the arch model (tooLargeForCoalescing: a byte cap the production allocator reads from the
//     per-arch model; Arch::dma_coalesce_bytes, arch key dma-coalesce-bytes, its INFERRED value documented in
//       ir/arch.cpp);
//   - not across a loop boundary: both in the same body;
//   - the merged read is legal: it reads exactly the elements the two DMAs read.
// The MemoryMergeTracker (merge_tracker.h) joins each abutting pair; every set becomes one !coalesced DMA at the
// first member's position.
//
// The production allocator merges two whole memlocs into a combined one (allocate_no_check) and re-points consumers
// onto it; the verifier reads an inserted tensor element for element as the one tensor it copies, so a tile holding two
// tensors' values cannot be written down. allocsim therefore merges the views of one tensor pair — the pieces a
// spill writer reloads separately, one per view an instruction reads.
#pragma once

#include <cstdint>

#include "alloc/dma_opt/dma_opt_limits.h"
#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

// Returns how many DMAs were merged away. Renumbers the program.
uint32_t coalesceDmas(Program& p, DmaOptInstance instance, const DmaOptLimits& limits);

}  // namespace allocsim
