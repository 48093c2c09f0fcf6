#include "alloc/copy_tensor.h"

#include <functional>
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

namespace {

uint64_t nameHash(const std::string& name) {
  const uint64_t h = std::hash<std::string>{}(name);
  return h == 0 ? 1 : h;
}

}  // namespace

TakenNames::TakenNames(const Program& p) : p_(p) {
  size_t size = 16;
  while (size < 2 * (p.tensors.size() + p.registers.size() + 8)) size *= 2;
  slots_.assign(size, 0);
  for (const Tensor& t : p.tensors) insertHash(nameHash(t.name));
  for (const Register& r : p.registers) insertHash(nameHash(r.name));
}

void TakenNames::insertHash(uint64_t h) {
  if (2 * (used_ + 1) > slots_.size()) {  // at most half full: short probes
    std::vector<uint64_t> old = std::move(slots_);
    slots_.assign(old.size() * 2, 0);
    used_ = 0;
    for (uint64_t x : old)
      if (x != 0) insertHash(x);
  }
  const size_t mask = slots_.size() - 1;
  for (size_t i = size_t(h) & mask;; i = (i + 1) & mask) {
    if (slots_[i] == h) return;  // two names, one hash: one entry stands for both
    if (slots_[i] == 0) {
      slots_[i] = h;
      ++used_;
      return;
    }
  }
}

bool TakenNames::contains(const std::string& name) const {
  const uint64_t h = nameHash(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = size_t(h) & mask; slots_[i] != 0; i = (i + 1) & mask)
    if (slots_[i] == h) return p_.findTensor(name) != kNone || p_.findRegister(name) != kNone;
  return false;
}

void TakenNames::add(const std::string& name) { insertHash(nameHash(name)); }

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
