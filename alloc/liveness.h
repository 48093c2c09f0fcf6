// Live ranges over the linear order (alloc/linear_order.h), for every tensor and every register.
//
// The rule, as the production allocator computes live ranges (the same for PSUM and SBUF), except step 3:
//
// 1. Anchors. def = the first position that writes the value (the first writer), use = the last position that
//    reads it (the last reader). Inputs are defined at program start; outputs are used at program end. An
//    accumulation group needs nothing special (as the production allocator has it: "its def = first-matmul, use =
//      last-reader live range
//    naturally covers the whole accumulation"): it falls out of first writer / last reader.
//    Our one widening of the production rule: use = the last position that reads *or writes* the value, so that a store
//    after the last read (a dead store) still owns its memory when it writes; otherwise it could clobber a
//    tensor placed there.
// 2. Loop extension (the production allocator's loop variant). Ld, Lu = the loop nests of def and use; common = their
//    longest common prefix. A def deeper than common is anchored at the header of the outermost loop that contains it
//    but not the use: the value may be written in any iteration of that loop, so it is live from the loop's
//    entry. A use deeper than common is anchored at the end of the outermost loop that contains it but not the
//    def: it reads the value in every iteration, so it is live until the loop exits. Hence a value defined
//    before a loop and read inside is live to the loop end, and one defined inside and read after is live
//    from the loop header.
// 3. Back edges of the common loops: a value is extended over a whole common loop only when it is carried around
//    that loop's back edge, i.e. when some iteration reads an element that the same iteration has not written
//    before (the production allocator keeps every loop-carried value live across the whole loop body). A value
//    that every iteration defines before it reads it — column chunks, k-slices, register-indexed tiles written and
//    then read in one iteration — lives per iteration, from its first to its last mention in the body. Decided by
//    alloc/iteration_coverage.h from the views (exact where it answers), after a quick test: a first mention that
//    replaces the whole value on every iteration (a full-view write; a start@first matmul counts only for the
//    loops enclosing its own) carries nothing. Where the views cannot be evaluated (a register the walk does not
//    know, its work budget) the value is treated as carried — the conservative rule — and counted in
//    LivenessStats::undecidable. An accumulation group (start@first ... stop@last in a K-loop) reads in
//    iteration k what iteration k-1 accumulated: carried around the K-loop, per iteration of the loops outside.
//    Registers are whole values: a register is carried unless its first mention is a write.
//    Reads within an instruction come before its writes, so `tt a, a, b` is a read first and carries a.
// Only executed code counts: the body of a loop that never runs (lo >= hi) mentions nothing, so a full write
// in it cannot pass for a kill. A tensor or register never mentioned by executed code has an empty range and
// interferes with nothing. Registers follow the same rule; a loop writes its register at its header and at
// its end (the exit value), so a loop register is live over its whole loop.
// Ranges are inclusive: a tensor read and another written by the same instruction interfere (no in-place
// reuse; placements may overlap partially, so sharing memory there is not safe in general).
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

struct LiveRange {
  uint32_t first = kNone;  // inclusive positions in the linear order; first == kNone: empty
  uint32_t last = 0;
  bool empty() const { return first == kNone; }
  bool contains(uint32_t pos) const { return !empty() && first <= pos && pos <= last; }
  bool operator==(const LiveRange&) const = default;
};

// True when both ranges are non-empty and share a position.
bool interferes(const LiveRange& a, const LiveRange& b);

// How rule 3 was decided, per (tensor, common loop) question asked of the views (registers and quick whole-write
// kills are not counted). `-v` prints them (alloc/driver.cpp).
struct LivenessStats {
  uint32_t per_iteration = 0;  // covered in every iteration: not extended
  uint32_t carried = 0;        // a true loop-carried value: extended over the loop
  uint32_t undecidable = 0;    // the views could not decide: extended (the conservative rule)
  bool operator==(const LivenessStats&) const = default;
};

struct Liveness {
  LinearOrder order;
  LivenessStats stats;
  std::vector<LiveRange> tensors;    // by TensorId
  std::vector<LiveRange> registers;  // by RegId
};

// The order holds pointers into `p`: the result must not outlive it.
Liveness computeLiveness(const Program& p);

}  // namespace allocsim
