// The geometric degree test of the SBUF colorer (the production allocator, simplify, contrasted with PSUM's additive
// bank test: SBUF's K = possible_placements - sum of impact[Hj, Hi] x (span_i + span_j - 1)). Ours, in that spirit,
// counted in candidate positions on the arch's placement grid:
//
//   rows(i)   = floor((P - h_i) / q) + 1          legal base partitions (multiples of the start quantum q)
//   cols(i)   = floor((S - w_i) / a) + 1          legal byte offsets (multiples of the alignment a)
//   possible_placements(i) = rows(i) x cols(i)
//
//   impact(i, j) = min(rows(i), ceil((h_i + h_j - 1) / q)) x min(cols(i), ceil((w_i + w_j - 1) / a))
//
// A neighbour j placed anywhere covers the candidate starts of i whose rectangle would meet j's: partition
// starts in an open window of h_i + h_j - 1 partitions (the vertical impact of the two heights) times offsets in
// one of w_i + w_j - 1 bytes (the span term), at most ceil(L / step) grid points in a window of L. So
//
//   K(i) = possible_placements(i) - sum over neighbours j of impact(i, j)
//
// and K(i) > 0 means i finds a free grid position wherever its neighbours sit: i is trivially colorable. The
// test is sound because select searches every grid position (first fit over all bands and all aligned gaps).
#pragma once

#include <cstdint>

#include "alloc/sbuf/sbuf_interference.h"
#include "ir/arch.h"

namespace allocsim {

uint64_t sbufPossiblePlacements(const Arch& arch, const SbufNode& i);

// The candidate positions of `i` that a neighbour `j` can block (not symmetric: clamped to i's grid).
uint64_t sbufImpact(const Arch& arch, const SbufNode& i, const SbufNode& j);

// K(i) with all of i's neighbours present.
int64_t sbufFreePlacements(const Arch& arch, const SbufGraph& g, uint32_t i);

}  // namespace allocsim
