// As in the production allocator, "The PSUM bank model": PSUM is a flat array of arch.psum_banks banks of
// arch.psum_bank_bytes bytes per partition, and a tensor occupies a whole number of banks (a bank spans all
// partitions, so the partition count plays no part). getPsumBankNum: liveN = ceil(bytes per partition / bank bytes).
#pragma once

#include <cstdint>

#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

// liveN: the banks `t` occupies. 0 only for a degenerate arch with psum_bank_bytes == 0 (the production allocator's
// "Denominator && Division by zero" assert), which validateArch already rejects.
uint64_t psumBanksOf(const Arch& arch, const Tensor& t);

// The capacity guard of the production live_range (NUM_PSUM_BANKS < liveN): throws AllocError at the tensor's
// declaration with the verbatim "<name> is too big for PSUM, requires N banks with PSUM size M".
void requirePsumFits(const Arch& arch, const Tensor& t);

}  // namespace allocsim
