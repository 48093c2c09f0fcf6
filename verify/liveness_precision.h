// How precise the static liveness is (the precision figure of `allocsim alloc -v`): the most SBUF bytes per partition
// and PSUM banks live at one point by the allocators' live ranges (alloc/liveness.h, over linear positions and, where
// a range says so, the iterations of a loop: LiveSum) against the same maxima by the dynamic liveness the interpreter
// observes (verify/dynamic_liveness.h, over steps). A tensor counts whole while it is live in either. Static >=
// dynamic whenever the static ranges are sound (they contain the dynamic ones); static / dynamic = 1 is exact.
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/linear_order.h"
#include "ir/program.h"

namespace allocsim {

struct LivenessPrecision {
  uint64_t static_sbuf_bytes = 0;   // per partition
  uint64_t dynamic_sbuf_bytes = 0;
  uint64_t static_psum_banks = 0;
  uint64_t dynamic_psum_banks = 0;
  // The static maxima with every position of a segment live on every iteration (addOverSegments): what a placement,
  // which holds for every iteration, needs by the ranges (alloc/liveness.h, "Iterations").
  uint64_t any_iteration_sbuf_bytes = 0;
  uint64_t any_iteration_psum_banks = 0;

  // With PrecisionOptions::positional: the dynamic liveness folded onto the linear positions (a tensor is live at a
  // position when it is live at some step that executes it), the maxima over positions. No liveness over the linear
  // order can be below these: positional < static means some range is wider than the data needs, positional >
  // dynamic that tensors live at one position in different iterations of its loops (one position stands for all).
  uint64_t positional_sbuf_bytes = 0;
  uint64_t positional_psum_banks = 0;

  double sbufRatio() const { return dynamic_sbuf_bytes ? double(static_sbuf_bytes) / double(dynamic_sbuf_bytes) : 1; }
  double psumRatio() const { return dynamic_psum_banks ? double(static_psum_banks) / double(dynamic_psum_banks) : 1; }
};

struct PrecisionOptions {
  bool positional = false;  // also the positional maxima (one more run of the program)
};

// Runs the program once (input seed 1), twice with `positional`. Throws InputError when it cannot run (ir/interp.h).
LivenessPrecision livenessPrecision(const Program& p, const PrecisionOptions& o = {});

// The linear position (alloc/linear_order.h) each step of one run of `p` (input seed 1) executes: an instruction's
// position, a loop iteration's header; step 0 (the program start) is position 0. The order must be p's.
std::vector<uint32_t> stepPositions(const Program& p, const LinearOrder& order);

}  // namespace allocsim
