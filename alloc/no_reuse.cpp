#include "alloc/no_reuse.h"

#include "alloc/first_fit_placer.h"
#include "alloc/psum/psum_bank_model.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

std::string sbufCapacity(const Arch& a) {
  return "SBUF has " + std::to_string(uint64_t(a.sbuf_partitions) * a.sbuf_bytes) + " (" +
         std::to_string(a.sbuf_partitions) + " partitions x " + std::to_string(a.sbuf_bytes) + " bytes)";
}

}  // namespace

Program placeNoReuse(const Program& p) {
  FirstFitPolicy policy;
  policy.tensor_key = [](TensorId) { return uint64_t(0); };
  policy.register_key = [](RegId) { return uint64_t(0); };
  policy.tensors_conflict = [](TensorId t, TensorId u) {
    return !(ALLOCSIM_PLANT("no_reuse_next_tensor_shares") && t == u + 1);
  };
  policy.registers_conflict = [](RegId, RegId) { return true; };
  policy.tensor_shortage = [&p](TensorId t) {
    const Tensor& x = p.tensors[t];
    uint64_t demand = 0;
    if (x.space == Space::Sbuf) {
      for (const Tensor& u : p.tensors)
        if (u.space == Space::Sbuf) demand += uint64_t(u.partitions) * u.bytesPerPartition();
      return " without reuse: no free " + std::to_string(x.partitions) + "-partition x " +
             std::to_string(x.bytesPerPartition()) + "-byte rectangle; all sbuf tensors need " +
             std::to_string(demand) + " bytes (partitions x bytes per partition), " + sbufCapacity(p.arch);
    }
    for (const Tensor& u : p.tensors)
      if (u.space == Space::Psum) demand += psumBanksOf(p.arch, u);
    return " without reuse: all psum tensors need " + std::to_string(demand) + " banks, PSUM has " +
           std::to_string(p.arch.psum_banks);
  };
  policy.register_shortage = [&p](RegId) {
    uint64_t demand = 0;
    for (const Register& r : p.registers) demand += r.lanes();
    return " without reuse: all registers need " + std::to_string(demand) + " lanes, the machine has " +
           std::to_string(p.arch.sp_registers);
  };
  return placeFirstFit(p, policy);
}

}  // namespace allocsim
