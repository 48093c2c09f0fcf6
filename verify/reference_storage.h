// The equivalence oracle's reference storage when the reference runs on the allocated program's own original
// instructions (InterpOptions::source_only; verify/reference.h runsOnAllocatedInstructions): one private buffer per
// reference tensor and one value per reference register, as the recovered program's run has them, reached through
// the allocated program's ids: each inserted tensor or register is read as the one it holds. The run then gives the
// recovered program's values and operand hashes without a copy of its instructions (a million-instruction program
// held once, not twice).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/storage.h"
#include "verify/reference.h"

namespace allocsim {

class ReferenceStorage : public Storage {
 public:
  // `ref` (referenceProgram of `allocated`) must outlive the storage.
  ReferenceStorage(const Program& allocated, const ReferenceProgram& ref);

  uint8_t* row(TensorId t, uint32_t partition) override { return private_.row(tensor(t), partition); }
  uint64_t readReg(RegId r) override { return private_.readReg(reg(r)); }
  void writeReg(RegId r, uint64_t v) override { private_.writeReg(reg(r), v); }
  // The reference tensor goes when every allocated tensor that holds it has been released: its value is needed as
  // long as one of them can still be named.
  void release(TensorId t) override;

 private:
  TensorId tensor(TensorId t) const;  // std::out_of_range for an id that holds no reference tensor
  RegId reg(RegId r) const;

  const ReferenceProgram& ref_;
  PrivateStorage private_;
  std::vector<uint32_t> holders_;  // by reference TensorId: the allocated tensors holding it, not yet released
  std::vector<bool> released_;     // by allocated TensorId
};

}  // namespace allocsim
