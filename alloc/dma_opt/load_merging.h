// Redundant-DMA removal (the production allocator, DMAOptimization "Redundant-removal", load_merging @0x9534e0, and
// its dual for writes, reload_for_save_optimization): a DMA Y whose data is already where it would put it.
//
// Y is redundant after an earlier DMA X of the same body (never across a loop boundary) when, with nothing
// writing either side of X in between, Y copies a sub-range of one side of X onto the matching sub-range of the
// other side (same_src: the same source tensor and view; same_sb_dst: the identical destination bytes):
//   - a reload after a reload of the same slot view into the same bytes (load_merging's merge_load);
//   - a reload after the save that wrote the slot from the same bytes;
//   - a save after the reload that filled the tile from that slot, or after a save of the same tile
//     (reload_for_save_optimization: a save of a value the slot already holds).
// Y is removed; when its destination is another stand-in of the same value at the same placement, Y's readers are
// re-pointed onto X's tile (merge_load). Never a DMA into a pinned tensor (!out_pinned). With `transform` (the
// --gca-dma-optlevel 2 step), a reload whose data is resident at other on-chip bytes becomes an on-chip `copy`
// from there (transform_load: an InstTensorCopy re-applies Y's view onto X's tile) when the IO -> Internal cost
// model (dma_opt_limits.h) accepts it.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/dma_opt/dma_opt_events.h"
#include "alloc/dma_opt/dma_opt_limits.h"
#include "alloc/dma_opt/dma_scope.h"

namespace allocsim {

struct RedundancyStats {
  uint32_t loads_removed = 0;   // reloads (destination not a spill slot)
  uint32_t saves_removed = 0;   // saves into a spill slot
  uint32_t copies = 0;          // reloads turned into on-chip copies
  uint32_t renamed = 0;         // stand-ins merged onto an earlier tile
};

enum class RedundancyKind : uint8_t { Loads, Saves };

// One sweep over every body; removes (or transforms) the redundant DMAs of `kind` the instance owns. Cost-model
// lines go to `report` when verbosity > 0. Renumbers the program.
RedundancyStats removeRedundantDmas(Program& p, DmaOptInstance instance, RedundancyKind kind, bool transform,
                                    const DmaOptLimits& limits, std::vector<DmaOptEvent>* log);

}  // namespace allocsim
