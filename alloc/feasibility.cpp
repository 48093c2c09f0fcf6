#include "alloc/feasibility.h"

#include <algorithm>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/operand_effects.h"
#include "alloc/psum/psum_bank_model.h"

namespace allocsim {
namespace {

template <typename T>
std::vector<T> distinct(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

class Feasibility {
 public:
  explicit Feasibility(const Program& p) : p_(p) {}

  void walk(const std::vector<Instruction>& body) {
    for (const Instruction& inst : body) {
      if (inst.op == Op::Loop) {
        if (inst.rd < p_.registers.size()) registers(inst, {inst.rd});
        walk(inst.body);
        continue;
      }
      operandEffects(p_, inst, fx_);
      std::vector<RegId> regs = fx_.reg_reads;
      regs.insert(regs.end(), fx_.reg_writes.begin(), fx_.reg_writes.end());
      registers(inst, distinct(regs));
      std::vector<TensorId> writes;
      for (const TensorWrite& w : fx_.tensor_writes) writes.push_back(w.tensor);
      storage(inst, distinct(fx_.tensor_reads), "reads");
      storage(inst, distinct(writes), "writes");
      // Its sources and its destination together: a result is never written over a source it is still reading
      // (the placement oracle counts the last read and the write at one step as simultaneous).
      writes.insert(writes.end(), fx_.tensor_reads.begin(), fx_.tensor_reads.end());
      storage(inst, distinct(writes), "reads and writes");
    }
  }

 private:
  std::string names(const std::vector<uint32_t>& ids, bool regs) const {
    std::string s;
    for (size_t k = 0; k < ids.size() && k < 8; ++k)
      s += (k ? ", " : "") + (regs ? p_.registers[ids[k]].name : p_.tensors[ids[k]].name);
    if (ids.size() > 8) s += ", ...";
    return s;
  }

  void registers(const Instruction& inst, const std::vector<RegId>& regs) const {
    uint64_t lanes = 0;
    for (RegId r : regs) lanes += p_.registers[r].lanes();
    if (lanes > p_.arch.sp_registers)
      // The REG colorer's own words first (what it would say after the colorers ran), then why.
      throw AllocError(inst.loc, "cannot allocate registers since spilling candidates are not enough: " +
                                     std::string(opName(inst.op)) + " names registers of " + std::to_string(lanes) +
                                     " lanes (" + names(regs, true) + "), and the machine has " +
                                     std::to_string(p_.arch.sp_registers) +
                                     " SP registers: they must all be in registers while it runs, so no "
                                     "register allocation exists");
  }

  void storage(const Instruction& inst, const std::vector<TensorId>& tensors, const char* how) const {
    uint64_t sbuf = 0, psum = 0;
    std::vector<TensorId> in_sbuf, in_psum;
    const uint64_t sbuf_area = uint64_t(p_.arch.sbuf_partitions) * p_.arch.sbuf_bytes;
    for (TensorId t : tensors) {
      const Tensor& x = p_.tensors[t];
      const uint64_t area = uint64_t(x.partitions) * x.bytesPerPartition(), banks = psumBanksOf(p_.arch, x);
      // A tensor too big on its own is the allocators' capacity guard's to report, in their words.
      if (x.space == Space::Sbuf && area > sbuf_area) return;
      if (x.space == Space::Psum && banks > p_.arch.psum_banks) return;
      if (x.space == Space::Sbuf) sbuf += area, in_sbuf.push_back(t);
      if (x.space == Space::Psum) psum += banks, in_psum.push_back(t);
    }
    if (sbuf > sbuf_area)
      throw AllocError(inst.loc, std::string(opName(inst.op)) + " " + how + " SBUF tensors of " +
                                     std::to_string(sbuf) + " bytes in all (" + names(in_sbuf, false) +
                                     "), all resident while it runs, and the SBUF holds " +
                                     std::to_string(sbuf_area) + " (" + std::to_string(p_.arch.sbuf_partitions) +
                                     " partitions x " + std::to_string(p_.arch.sbuf_bytes) +
                                     " bytes): no allocation exists");
    if (psum > p_.arch.psum_banks)
      throw AllocError(inst.loc, std::string(opName(inst.op)) + " " + how + " PSUM tensors of " +
                                     std::to_string(psum) + " banks in all (" + names(in_psum, false) +
                                     "), all resident while it runs, and the PSUM has " +
                                     std::to_string(p_.arch.psum_banks) + " banks: no allocation exists");
  }

  const Program& p_;
  OperandEffects fx_;
};

}  // namespace

void requireFeasible(const Program& p) { Feasibility(p).walk(p.body); }

}  // namespace allocsim
