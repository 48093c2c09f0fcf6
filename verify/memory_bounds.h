// What an allocation of a program must take, and what one took: the max-live lower bounds of the input (from the
// allocators' own liveness, alloc/liveness.h, which is per iteration where the views decide it) and the SBUF peak,
// PSUM banks and spill traffic of an allocated program. bench/alloc_quality.cpp's "SBUF peak / bound" and the NKI
// sample kernels' check (tests/corpus/nki_samples_test.cpp: peak <= 1.05 x bound when nothing spills) use these.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

struct MemoryBounds {
  uint64_t sbuf_bytes = 0;  // per partition, the most of: the SBUF area live at one position / partitions (rounded
                            // up); the largest SBUF tensor's bytes per partition; and, for a tensor on fewer
                            // partitions than the machine's, its bytes per partition plus those of the tensors on
                            // every partition live with it. No spill-free allocation fits in less
  uint64_t psum_banks = 0;  // the most PSUM banks live at one position
};

MemoryBounds maxLiveBounds(const Program& input);

struct MemoryUse {
  uint64_t sbuf_peak = 0;         // the highest byte an SBUF placement of a live tensor reaches in a partition
  uint64_t psum_banks = 0;        // distinct banks holding a live PSUM tensor
  uint64_t spill_bytes = 0;       // total bytes of the inserted spill slots (tensors of origin spill), registers' too
  uint64_t spilled_tensors = 0;   // inserted tensors of origin spill or reload holding a tensor's value (SBUF spilled
                                  // to DRAM, PSUM to SBUF): 0 = no tensor spilled
  uint64_t register_slots = 0;    // spill slots of registers (alloc/reg/reg_spill.h): DRAM words, no SBUF
};

// `allocated` must carry placements (an allocator's output).
MemoryUse memoryUse(const Program& allocated);

}  // namespace allocsim
