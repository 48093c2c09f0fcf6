// Making and reading single placements in the placer tests (tests/alloc/no_reuse_test.cpp,
// tests/alloc/greedy_placer_test.cpp), which compare exact positions the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/program.h"

namespace allocsim::testing_placed {

inline Placement sbufAt(uint32_t partition, uint64_t offset) {
  Placement p;
  p.partition = partition;
  p.offset = offset;
  return p;
}

inline Placement bankAt(uint32_t bank) {
  Placement p;
  p.bank = bank;
  return p;
}

inline std::optional<Placement> placementOf(const Program& p, const std::string& name) {
  return p.tensors.at(p.findTensor(name)).placement;
}

inline uint32_t physOf(const Program& p, const std::string& name) {
  return p.registers.at(p.findRegister(name)).phys.value();
}

}  // namespace allocsim::testing_placed
