// Making and reading single placements in the placer tests (tests/alloc/no_reuse_test.cpp,
// tests/alloc/greedy_placer_test.cpp), which compare exact positions the same way.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// Each named tensor has exactly the placement given.
inline void expectPlacements(const Program& p, const std::vector<std::pair<std::string, Placement>>& expected) {
  for (const auto& [name, placement] : expected) EXPECT_EQ(placementOf(p, name), placement) << name;
}

// Each named register has the lane given.
inline void expectLanes(const Program& p, const std::vector<std::pair<std::string, uint32_t>>& expected) {
  for (const auto& [name, lane] : expected) EXPECT_EQ(physOf(p, name), lane) << name;
}

}  // namespace allocsim::testing_placed
