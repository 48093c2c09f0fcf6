// How precise the static liveness is (the precision figure of `allocsim alloc -v`): the most SBUF bytes per partition
// and PSUM banks live at one point by the allocators' live ranges (alloc/liveness.h, over linear positions) against
// the same maxima by the dynamic liveness the interpreter observes (verify/dynamic_liveness.h, over steps). A tensor
// counts whole while it is live in either. Static >= dynamic whenever the static ranges are sound (they contain the
// dynamic ones); static / dynamic = 1 is exact.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct LivenessPrecision {
  uint64_t static_sbuf_bytes = 0;   // per partition
  uint64_t dynamic_sbuf_bytes = 0;
  uint64_t static_psum_banks = 0;
  uint64_t dynamic_psum_banks = 0;

  double sbufRatio() const { return dynamic_sbuf_bytes ? double(static_sbuf_bytes) / double(dynamic_sbuf_bytes) : 1; }
  double psumRatio() const { return dynamic_psum_banks ? double(static_psum_banks) / double(dynamic_psum_banks) : 1; }
};

// Runs the program once (input seed 1). Throws InputError when it cannot run (ir/interp.h).
LivenessPrecision livenessPrecision(const Program& p);

}  // namespace allocsim
