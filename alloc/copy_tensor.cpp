#include "alloc/copy_tensor.h"

#include <string>
#include <utility>

namespace allocsim {

Tensor spillSlotOf(const Tensor& original, TensorId of, Space space) {
  Tensor slot;
  slot.space = space;
  slot.partitions = original.partitions;
  slot.elements = original.elements;
  slot.tiles = original.tiles;  // so that a tile view retargeted to the slot still prints as one
  slot.dtype = original.dtype;
  slot.origin = Origin::Spill;
  slot.copy_of = of;
  slot.loc = original.loc;
  return slot;
}

Tensor reloadStandInOf(const Program& p, TensorId of) {
  Tensor r = p.tensors[of];
  r.placement.reset();
  r.pinned = false;
  r.origin = Origin::Reload;
  r.copy_of = of;
  return r;
}

TensorId addCopyTensor(Program& p, Tensor copy, const char* suffix, uint32_t& next_id) {
  const std::string base = p.tensors[copy.copy_of].name + suffix;
  std::string name;
  do name = base + std::to_string(next_id++);
  while (p.findTensor(name) != kNone || p.findRegister(name) != kNone);
  copy.name = name;
  p.tensors.push_back(std::move(copy));
  return TensorId(p.tensors.size() - 1);
}

TakenNames::TakenNames(const Program& p) {
  names_.reserve(p.tensors.size() + p.registers.size());
  for (const Tensor& t : p.tensors) names_.insert(t.name);
  for (const Register& r : p.registers) names_.insert(r.name);
}

TensorId addCopyTensor(Program& p, Tensor copy, const char* suffix, uint32_t& next_id, TakenNames& taken) {
  const std::string base = p.tensors[copy.copy_of].name + suffix;
  std::string name;
  do name = base + std::to_string(next_id++);
  while (taken.contains(name));
  taken.add(name);
  copy.name = std::move(name);
  p.tensors.push_back(std::move(copy));
  return TensorId(p.tensors.size() - 1);
}

SourceLoc declarationLoc(const Program& p, TensorId t) {
  const Tensor& x = p.tensors[t];
  if (!x.loc.known() && x.copy_of < p.tensors.size()) return p.tensors[x.copy_of].loc;
  return x.loc;
}

}  // namespace allocsim
