// The DMA optimization's limits and cost-model thresholds: data, in one place (the production allocator,
// DMAOptimization).
//
// Coalescing (internal_dma_coalescing / tooLargeForCoalescing): a merged DMA must stay below the element/byte
// sanity limit 0xBB7 (2999) and within the hard 0x3E8 (1000) element ceiling per partition, move elements of at
// most 8 bytes (the alignment <= 8 gate), and fit the per-partition byte budget, which the production allocator reads
// from the per-arch model: Arch::dma_coalesce_bytes (ir/arch.cpp, dma_coalescing.h).
//
// The IO -> Internal copy cost model (DMACopy_insertion; the production allocator confirms the thresholds 4 / 512 /
// 32, not their roles, which are our reading): turning a reload from DRAM ("IO") into an on-chip copy of a tile that
// is already resident ("Internal") pays off when the DMA ring saves at least 4 descriptors, the copy moves at most
// 512 bytes per partition (past that one DMA beats an engine copy), and the resident tile is kept for at most 32
// instructions (the scratch-pad cost of holding it).
#pragma once

#include <cstdint>

namespace allocsim {

struct DmaOptLimits {
  uint64_t coalesce_sanity_limit = 2999;     // merged elements per partition must stay below this
  uint64_t coalesce_element_ceiling = 1000;  // merged elements per partition, at most
  uint64_t coalesce_max_element_bytes = 8;   // the alignment gate
  uint64_t copy_min_ring_decrease = 4;       // descriptors a reload must cost to be worth an on-chip copy
  uint64_t copy_max_bytes_per_partition = 512;
  uint64_t copy_max_distance = 32;           // instructions between the resident tile's load and the copy
  // How far back (instructions of one body) load merging looks for the DMA that made Y's data resident: a bound
  // on the pass's time, not a production figure.
  uint64_t redundancy_window = 256;
};

inline constexpr DmaOptLimits kDmaOptLimits{};

}  // namespace allocsim
