// A picture of an allocation (`allocsim show`, `allocsim verify --svg`): an SVG document with
//   - SBUF over time: x = position in the allocators' linear order (alloc/linear_order.h), y = byte offset within
//     a partition; each placed tensor is a box over its live range (alloc/liveness.h) and its bytes, labelled
//     with its partition range (boxes on disjoint partitions may share bytes, so they are translucent);
//   - PSUM banks over time, each tensor a box over its banks;
//   - the SBUF floorplan (partitions x bytes) at the position of peak SBUF use;
//   - inserted spill / reload tensors with dashed outlines, spill stores (v) and reloads (^) marked on the time
//     axis, and a finding's storage and time in red.
// Every tensor box is a <g class="tensor" data-tensor="NAME" data-space="sbuf|psum"> holding one <rect> and a
// <title> that states the exact placement and live range, so the picture can be read by a program too.
#pragma once

#include <string>

#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim::cli {

struct SvgOptions {
  std::string title;                 // shown on top (usually the file name)
  const Finding* finding = nullptr;  // drawn in red: its region (overlaps) and its instruction's position
};

// `p` is an allocated program: tensors without placements are left out (and counted in the header line).
std::string allocationSvg(const Program& p, const SvgOptions& opts = {});

}  // namespace allocsim::cli
