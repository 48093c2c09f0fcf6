// Liveness per byte, for the tensors the placement oracle suspects (verify/placement.cpp). Two tensors whose
// footprints intersect and whose live sets meet may still never hold live data in the same byte at the same time:
// a tile array whose second tile is dead while another tensor uses its bytes, a tensor whose first elements were
// read for the last time before the tensor placed over them is written. Such an allocation is correct (every read
// finds the value it expects), so the oracle asks, for each suspect pair, whether some physical byte of the
// intersection is live in both at one step.
//
// Liveness of one element is that of a tensor (verify/dynamic_liveness.h), element by element: live over [w, r]
// for each read at step r of the value written at step w (an element never written reads garbage "written" at
// r), a write at w makes it live at w, inputs are written at step 0, outputs are live from their last write to the
// end. Intervals stay closed, so a result written over a byte its own instruction reads in another tensor is still
// an overlap. Only the elements lying in some suspect intersection are tracked.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/program.h"
#include "verify/dynamic_liveness.h"
#include "verify/footprint.h"
#include "verify/live_intervals.h"

namespace allocsim {

// Two placed tensors of one space and the intersection of their footprints (verify/placement.cpp's units: SBUF
// bytes x partitions, PSUM banks, DRAM bytes).
struct SuspectPair {
  TensorId a = kNone, b = kNone;
  Footprint region;
};

// Where two tensors hold live data in the same byte first.
struct ByteConflict {
  CommonStep when;           // the first common step; .a is the element of `a`'s interval, .b that of `b`
  uint64_t partition = 0;    // the physical byte: SBUF/PSUM partition (0 in DRAM)
  uint64_t byte = 0;         // SBUF byte in the partition, PSUM byte from the first bank's start, DRAM byte
  uint32_t a_partition = 0;  // the elements of a and b that hold it
  uint64_t a_element = 0;
  uint32_t b_partition = 0;
  uint64_t b_element = 0;
};

// Per pair, in order: the first byte conflict, or nullopt when no byte of the intersection is live in both at any
// one step. Throws InputError when the program cannot run (ir/interp.h) or the bookkeeping would pass
// opts.max_tracking_bytes (the caller then keeps the tensor-level verdict).
std::vector<std::optional<ByteConflict>> byteConflicts(const Program& p, const std::vector<SuspectPair>& pairs,
                                                       const LivenessOptions& opts);

}  // namespace allocsim
