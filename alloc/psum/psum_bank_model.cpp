#include "alloc/psum/psum_bank_model.h"

#include "alloc/alloc_error.h"
#include "ir/plant.h"

namespace allocsim {

uint64_t psumBanksOf(const Arch& arch, const Tensor& t) {
  if (arch.psum_bank_bytes == 0) return 0;
  if (ALLOCSIM_PLANT("psum_banks_round_down")) return std::max<uint64_t>(1, t.bytesPerPartition() / arch.psum_bank_bytes);
  return psumBankCount(arch, t);  // divideCeil, as getPsumBankNum
}

void requirePsumFits(const Arch& arch, const Tensor& t) {
  uint64_t banks = psumBanksOf(arch, t);
  if (arch.psum_bank_bytes == 0 || banks > arch.psum_banks)
    throw AllocError(t.loc, psumTooBigMessage(t.name, banks, arch.psum_banks));
}

}  // namespace allocsim
