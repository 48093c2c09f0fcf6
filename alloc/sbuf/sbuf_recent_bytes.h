// After select: keep a tensor off the bytes that a tensor freed just before it in the same loop, when that costs no
// SBUF bytes.
//
// Two tensors whose live ranges do not overlap may share bytes, and select places a tensor only among the
// rectangles of the tensors it interferes with. Inside a loop, that often puts a tensor on the bytes of one whose
// last reader has only just been issued: the store moving a finished tile out, the last read of the other buffer of
// a double-buffered pair. On the machine the new tensor's first write must then wait for that reader to end (a
// write-after-read dependence), which serializes the iterations the kernel's buffers were there to overlap.
//
// For each tensor in order of its first position whose live range lies in a loop, its recent occupants are the
// placed tensors it may take bytes over there, nearest first by how recently they were last read
// (alloc/recent_occupants.h), the kRecentOccupants nearest. When its rectangle overlaps one of them, it moves to the
// place that avoids the longest list of its nearest occupants: among the positions the heuristic's placement policy
// finds beside its interfering neighbours and below the ceiling, the ones whose bytes were last read longest ago
// (rotating buffers, as production allocators keep DMA and compute overlapping). Occupants freed at the same
// distance are avoided together or not at all; when no position avoids even the nearest, the tensor stays.
//
// The ceiling keeps every move within the bytes the selection already reaches, so the peak never grows and
// nothing spills that did not before:
// - SbufCeiling::Partition, per partition the selection's high-water mark: the footprint (sbuf_footprint.h) and
//   with it the score never grow. The colorer applies it to every selection before best-of-N compares them.
// - SbufCeiling::Peak, on every partition the highest of those marks (the SBUF peak): a tensor of a few partitions
//   may move to partitions that the tall tensors leave free below the peak, which raises the footprint but never
//   the peak. The colorer applies it to the winning selection only, after best-of-N chose it on its footprint.
// Only tensors this colorer places move (fixed ones stay, and so do spill code's stand-ins, which the DMA
// optimization finds redundant where they are), and only when select placed every node.
#pragma once

#include <cstdint>

#include "alloc/linear_order.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_placement_policy.h"
#include "alloc/sbuf/sbuf_select.h"
#include "ir/program.h"

namespace allocsim {

// How many of the latest recent occupants a tensor is kept off at most: bounds the work per tensor.
inline constexpr uint32_t kRecentOccupants = 64;

enum class SbufCeiling : uint8_t { Partition, Peak };

// Moves nodes of `s` as above and returns how many moved; `order` is the linear order of the liveness `g` was built
// from. The caller recomputes the selection's footprint and score (scoreSbufSelection).
uint32_t keepRecentBytesApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                              SbufCeiling ceiling, SbufSelection& s);

// The load headroom's limit for `pct` percent: (100 + pct)% of the graph's max-live (SbufGraph::max_live, the area
// live at one position) spread over every partition, rounded up to whole bytes. The max-live of the colorer's own
// ranges, and counted by area: a tensor on some partitions adds its bytes on those only, so the limit never exceeds
// (100 + pct)% of any placement's least peak, which is at least the max-live area over the partitions. (Summing each
// live tensor's bytes per partition as if it spanned every partition overstates that floor, and the limit with it,
// by the bytes of every short tensor live at the max-live.)
uint64_t loadHeadroomLimit(const Arch& arch, const SbufGraph& g, uint32_t pct);

// Load headroom: the same pass, with the ceiling raised on every partition to `limit` bytes (loadHeadroomLimit) (at most the partition's
// size; nothing moves when the selection's peak already reaches it), moving only the destinations of loads (SBUF
// tensors a DMA writes from DRAM). Where every byte below the peak is taken again within an iteration, a load's
// destination can avoid the bytes a compute instruction has only just read only above the peak: a load waits there
// for no reader, and the instruction that needs it not for the transfer's latency behind that reader. The peak
// grows to at most `limit`. Returns how many moved.
uint32_t keepLoadsApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                        uint64_t limit, SbufSelection& s);

}  // namespace allocsim
