#include "verify/program_ids.h"

namespace allocsim {

void renumberDeclarations(Program& p, const std::vector<TensorId>& tensor_to, const std::vector<RegId>& register_to) {
  std::vector<Tensor> tensors;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    if (tensor_to[t] == kNone) continue;
    if (tensors.size() <= tensor_to[t]) tensors.resize(tensor_to[t] + 1);
    tensors[tensor_to[t]] = std::move(p.tensors[t]);
  }
  // An inserted tensor names the tensor it copies: that reference moves too (or goes, with the tensor).
  for (Tensor& t : tensors)
    if (t.copy_of != kNone) t.copy_of = t.copy_of < tensor_to.size() ? tensor_to[t.copy_of] : kNone;
  std::vector<Register> registers;
  for (RegId r = 0; r < p.registers.size(); ++r) {
    if (register_to[r] == kNone) continue;
    if (registers.size() <= register_to[r]) registers.resize(register_to[r] + 1);
    registers[register_to[r]] = std::move(p.registers[r]);
  }
  p.tensors = std::move(tensors);
  p.registers = std::move(registers);
  forEachReference(p.body, [&](TensorId& t) { t = tensor_to[t]; }, [&](RegId& r) { r = register_to[r]; });
  p.renumber();
}

void dropUnusedDeclarations(Program& p) {
  std::vector<bool> tensor_used(p.tensors.size()), register_used(p.registers.size());
  forEachReference(p.body, [&](TensorId& t) { if (t < tensor_used.size()) tensor_used[t] = true; },
                   [&](RegId& r) { if (r < register_used.size()) register_used[r] = true; });
  std::vector<TensorId> tensor_to(p.tensors.size(), kNone);
  std::vector<RegId> register_to(p.registers.size(), kNone);
  TensorId nt = 0;
  RegId nr = 0;
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (tensor_used[t]) tensor_to[t] = nt++;
  for (RegId r = 0; r < p.registers.size(); ++r)
    if (register_used[r]) register_to[r] = nr++;
  renumberDeclarations(p, tensor_to, register_to);
}

}  // namespace allocsim
