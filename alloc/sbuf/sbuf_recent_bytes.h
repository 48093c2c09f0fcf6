// After select: keep a tensor off the bytes that a tensor freed just before it in the same loop, when that costs no
// SBUF bytes.
//
// Two tensors whose live ranges do not overlap may share bytes, and select places a tensor only among the
// rectangles of the tensors it interferes with. Inside a loop, that often puts a tensor on the bytes of one whose
// last reader has only just been issued: the store moving a finished tile out, the last read of the other buffer of
// a double-buffered pair. On the machine the new tensor's first write must then wait for that reader to end (a
// write-after-read dependence), which serializes the iterations the kernel's buffers were there to overlap.
//
// For each tensor in order of its first position whose live range lies in a loop (the outermost around its first
// position), its recent occupants are the placed tensors whose ranges lie in the same loop's body and end before
// its range starts (earlier in the same iteration) or start after it ends (late in the iteration before, around the
// back edge), nearest first by positions around the loop, the kRecentOccupants nearest. When its rectangle overlaps
// one of them, it moves to the position the heuristic's placement policy picks among its interfering neighbours,
// its recent occupants and the selection's ceiling: per partition, the high-water mark the selection already has
// (sbuf_footprint.h). If no such position avoids every recent occupant, the farther half is dropped from the list,
// and so on down to the nearest one alone; if none avoids even that, the tensor stays. The ceiling keeps every move
// within bytes the selection already occupies, so the footprint never grows and nothing spills that did not before;
// only tensors this colorer places move (fixed ones stay, and so do spill code's stand-ins, which the DMA
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

// Moves nodes of `s` as above and returns how many moved; `order` is the linear order of the liveness `g` was built
// from. The caller recomputes the selection's footprint and score (scoreSbufSelection).
uint32_t keepRecentBytesApart(const Program& p, const SbufGraph& g, const LinearOrder& order, SbufPolicy policy,
                              SbufSelection& s);

}  // namespace allocsim
