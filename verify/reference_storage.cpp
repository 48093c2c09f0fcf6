#include "verify/reference_storage.h"

#include <stdexcept>

namespace allocsim {

ReferenceStorage::ReferenceStorage(const Program& allocated, const ReferenceProgram& ref)
    : ref_(ref), private_(ref.program), holders_(ref.program.tensors.size(), 0), released_(allocated.tensors.size(), false) {
  for (TensorId t = 0; t < allocated.tensors.size() && t < ref.tensor.size(); ++t)
    if (ref.tensor[t] != kNone) ++holders_[ref.tensor[t]];
}

TensorId ReferenceStorage::tensor(TensorId t) const {
  if (t >= ref_.tensor.size() || ref_.tensor[t] == kNone)
    throw std::out_of_range("ReferenceStorage: the tensor holds no reference tensor");
  return ref_.tensor[t];
}

RegId ReferenceStorage::reg(RegId r) const {
  if (r >= ref_.registers.size() || ref_.registers[r] == kNone)
    throw std::out_of_range("ReferenceStorage: the register holds no reference register");
  return ref_.registers[r];
}

void ReferenceStorage::release(TensorId t) {
  if (t >= ref_.tensor.size() || ref_.tensor[t] == kNone || t >= released_.size() || released_[t]) return;
  released_[t] = true;
  const TensorId r = ref_.tensor[t];
  if (holders_[r] > 0 && --holders_[r] == 0) private_.release(r);
}

}  // namespace allocsim
