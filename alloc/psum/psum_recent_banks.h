// After select: keep a tensor off the banks that a tensor freed just before it in the same loop, when free banks
// allow it.
//
// Select gives each tensor the lowest window of banks free of the tensors it interferes with, so inside a loop the
// tensors that follow each other all start at bank 0: a broadcast or matmul result lands in the bank whose previous
// tensor the vector engine is still reading, and on the machine its write waits for that read (a write-after-read
// dependence the kernel's buffers did not ask for). As the production allocators do, this pass rotates such
// tensors through the banks that are free: for each tensor in order of its first position whose live range lies
// in a loop, every base bank whose window is free of its interfering neighbours is scored by its nearest recent
// occupant there (alloc/recent_occupants.h; none at all is best), and the tensor moves to the best-scored base
// when that beats where it is (ties: the lowest base). Nothing that select placed stops fitting and nothing
// spills; the banks used may grow up to the banks PSUM has. Only tensors the colorer places move: pinned ones and
// spill code's stand-ins stay, and only when select placed every node.
#pragma once

#include <cstdint>

#include "alloc/linear_order.h"
#include "alloc/psum/psum_interference.h"
#include "alloc/psum/psum_select.h"
#include "ir/program.h"

namespace allocsim {

// How many of the latest recent occupants a tensor's windows are scored against: bounds the work per tensor.
inline constexpr uint32_t kRecentBankOccupants = 64;

// Moves nodes of `s` as above and returns how many moved; `order` is the linear order of the liveness `g` was built
// from. The caller counts the banks used again (countPsumBanks).
uint32_t keepRecentBanksApart(const Program& p, const PsumGraph& g, const LinearOrder& order, PsumSelection& s);

}  // namespace allocsim
