// The in-place write checker of optlevel 7 (the production allocator, "Optlevel-7 SMT allocation — NOT a solver"):
// Unroll::check_in_place re-materializes every MemoryLocation at its exact (space, address, bank, partition,
// pinned) tuple and asserts that the placement succeeds — a self-consistency check of a fixed assignment, not a
// solver.
//
// Here: every tensor and register is re-placed, in program order of its first definition (the start of its live
// range, alloc/liveness.h; never-live items last, in declaration order), into an occupancy model of its space.
// A placement fails when it is out of bounds or misaligned (SBUF byte offset a multiple of sbuf_align, base
// partition of sbuf_partition_quantum; PSUM whole banks; registers whole lanes), when a placed-on-chip or pinned
// item has no placement, or when it overlaps an item already in the model whose live range interferes with its
// own (alloc/liveness.h `interferes`, the allocators' own rule; the SBUF colorer's spill stand-ins — `!reload`
// SBUF tensors first written (not read) and mentioned in one loop body only — live from first to last mention,
// as that colorer assumes: alloc/sbuf/sbuf_live_ranges.h). DRAM tensors take part when they have a placement
// (spill slots): byte ranges within dram_limit. Registers follow the REG colorer's two rules
// (alloc/reg/reg_live_pieces.h): a spilled loop register is live at the two ends of its body only, and a `mov`
// whose source's range ends where its destination's begins lets the two share lanes.
#pragma once

#include "ir/program.h"

namespace allocsim {

// The production assert text; every failure message starts with it.
extern const char kInPlaceFailure[];  // "smt allocation fails in-place write checker"

struct InPlaceOptions {
  // false: items without a placement are skipped instead of failing (O7 checks the input's fixed placements
  // before allocating the rest).
  bool require_placed = true;
};

// Returns normally when every placement re-places; otherwise throws AllocError at the failing item's
// declaration: "smt allocation fails in-place write checker: sbuf tensor 'b' @p0+0 (partitions 0..7, bytes
// 0..255) overlaps sbuf tensor 'a' @p0+128 (partitions 0..7, bytes 128..383) while both are live (linear
// positions 3..5 and 1..4)", or names the bound it breaks.
void checkInPlace(const Program& allocated, const InPlaceOptions& opts = {});

}  // namespace allocsim
