// The SBUF interference graph (the production allocator, build, "same time-overlap interference as SBUF"). Nodes are
// the SBUF tensors: the ones this colorer places (no placement yet) and the fixed ones (already placed, pinned or not:
// obstacles that keep their rectangle). Two nodes interfere when their live ranges (sbuf_live_ranges.h) share a
// position. Geometry plays no part in the edge rule, only in the degree test (sbuf_degree.h) and in select.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/interference_edges.h"
#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

// A node's rectangle holds the bytes its instructions touch: a tile array whose every mention names tiles by
// constant offsets (NKI's `buf{0}` and `buf{1}` written out, and each value live-range splitting cut from one, which
// names a single tile) leaves the bytes no instruction reaches dead for its whole life. The rectangle spans the
// mentioned bytes only, from `lead` bytes after the tensor's start to `trail` bytes before its end: another tensor
// live with it may take the dead bytes (the placement oracle checks liveness per byte, docs/verification.md), and
// a load into one buffer of a multi-buffer tensor no longer lands on the bytes its other buffer's readers still
// need. The tensor's placement is the rectangle's offset less `lead`; the tensor, trail included, stays within
// SBUF, and the high-water marks count the trail (the peak is where the tensor ends).
struct SbufNode {
  TensorId tensor = kNone;
  uint32_t partitions = 0;  // height of the rectangle
  uint64_t bytes = 0;       // width: the mentioned bytes per partition (the tensor's, when all are mentioned)
  uint64_t lead = 0;        // the tensor's bytes per partition before the rectangle (a multiple of sbuf-align)
  uint64_t trail = 0;       // and after it
  LiveRange range;
  bool fixed = false;  // already placed in the input: pre-colored, never moved or spilled
  double cost = 0;     // spill cost in cycles (sbuf_costs.h); +inf = un-spillable
  bool rehome = false;  // spilling it moves the tensor itself to DRAM (sbuf_costs.h); else stand-ins

  uint64_t area() const { return uint64_t(partitions) * bytes; }
  uint64_t tensorBytes() const { return lead + bytes + trail; }  // the tensor's bytes per partition
  uint64_t tensorArea() const { return uint64_t(partitions) * tensorBytes(); }
};

struct SbufGraph {
  std::vector<SbufNode> nodes;                    // in TensorId order
  InterferenceEdges neighbours;  // by node, ascending node index, symmetric
  std::vector<uint32_t> node_of;                  // by TensorId: node index, kNone for other tensors
  // By node (or empty): the other buffers of its tile array, which it never shares bytes with whenever they live
  // (sbuf_tile_split.h): the nodes of tensors copying the same tensor, or copied from it, whose rectangles hold
  // other tiles. A kernel declares several buffers for one loop's tiles so that a load into one overlaps the
  // reads of another; placed apart they rotate as declared, while other tensors may still use a buffer's bytes
  // where it is dead.
  std::vector<std::vector<uint32_t>> siblings;
  uint64_t total_demand = 0;  // sum of the tensors' areas (partitions x bytes) of the nodes with a live range
  uint64_t max_live = 0;      // max over positions of the tensors' areas live there (whole tensors, as the
                              // verifier's max-live counts them; the rectangles may hold less)
};

// `live` must be sbufLiveness(p, ...) (or computeLiveness(p)).
SbufGraph buildSbufGraph(const Program& p, const Liveness& live);

// By tensor: the bytes per partition [lo, hi) of the rectangle SbufNode would give an unplaced SBUF tensor of `p`
// (lo rounded down to sbuf-align): the hull of its mentions when every one has a constant offset, else the whole
// tensor. What checkers of a placement take a tensor's bytes to be (alloc/in_place.h), as the colorer does.
std::vector<std::pair<uint64_t, uint64_t>> sbufMentionedBytes(const Program& p);

// The max-live of `p`'s SBUF tensors under `live`, whole tensors: the most area (partitions x bytes per partition:
// SbufGraph::max_live) and the most bytes per partition (each tensor's counted on every partition, as the
// verifier's max-live per partition counts them, verify/liveness_precision.h) live at one position.
struct SbufMaxLive {
  uint64_t area = 0;
  uint64_t per_partition = 0;
};
SbufMaxLive sbufMaxLive(const Program& p, const Liveness& live);

// SBUF capacity in bytes (partitions x bytes per partition).
uint64_t sbufCapacity(const Arch& arch);

// the production allocator's demand metric for SB, computed like PSUM's (NUM_PSUM_BANKS / total_bank_demand):
// capacity / total demand, as a percentage — below 100 means the tensors together ask for more than SBUF holds. 100
// when there is no demand.
double sbufDemandPercent(const Arch& arch, const SbufGraph& g);

}  // namespace allocsim
