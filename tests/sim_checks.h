// Shared by the simulator tests: the simulated run against the interpreter on the same physical storage.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>

#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "ir/program.h"
#include "sim/simulate.h"

namespace allocsim {

// Index of the first operand hash or output that differs between the two runs; -1 when they agree.
inline int64_t firstDisagreement(const InterpResult& sim, const InterpResult& ref) {
  const size_t n = std::min(sim.reads.size(), ref.reads.size());
  for (size_t i = 0; i < n; ++i)
    if (!(sim.reads[i] == ref.reads[i])) return int64_t(i);
  if (sim.reads.size() != ref.reads.size() || sim.outputs != ref.outputs || sim.steps != ref.steps) return int64_t(n);
  return -1;
}

inline InterpResult interpretPhysical(const Program& allocated, uint64_t poison_seed) {
  PhysicalStorage storage(allocated, poison_seed);
  InterpOptions o;
  return interpret(allocated, storage, o);
}

inline sim::SimResult expectSimulatorMatchesInterpreter(const Program& allocated, uint64_t poison_seed,
                                                        sim::SimOptions opts = {}) {
  opts.poison_seed = poison_seed;
  sim::SimResult s = sim::simulate(allocated, opts);
  InterpResult ref = interpretPhysical(allocated, poison_seed);
  EXPECT_EQ(firstDisagreement(s.exec, ref), -1);
  EXPECT_GT(s.stats.cycles, 0u);
  return s;
}

}  // namespace allocsim
