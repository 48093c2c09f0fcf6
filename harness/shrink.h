// Delta debugging of a failing program: the smallest program, found greedily, on which the
// allocator still fails with the same kind of finding. Candidates remove instructions (chunks, halving the
// chunk size down to one, as ddmin does), unwrap loops and cut their trip counts, drop output flags and unused
// declarations, shrink tensor shapes and simplify constants and operations. Every candidate is kept
// well-formed (ir/check.h) and keeps at least one instruction before the allocator sees it: a shrunk reproducer is
// a valid input.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/program.h"

namespace allocsim {

struct ShrinkOptions {
  uint32_t max_attempts = 4000;  // candidates handed to the predicate
  double max_seconds = 120;
};

struct ShrinkResult {
  Program program;
  uint32_t attempts = 0;   // candidates the predicate ran on
  uint32_t accepted = 0;   // of which still failed (each one a step)
  uint32_t rejected_ill_formed = 0;  // candidates dropped before the predicate
  double seconds = 0;
  bool budget_exhausted = false;
};

// `stillFails` runs the allocator on a candidate: true when it fails with the same kind.
ShrinkResult shrinkProgram(const Program& failing, const std::function<bool(const Program&)>& stillFails,
                           const ShrinkOptions& opts = {});

// Instructions, a loop counting as one plus its body.
size_t instructionCount(const Program& p);

// The smallest well-formed program on `arch`: one SBUF element set to 0. An allocator that fails on it fails on
// every input, and shrinking has nothing to find.
Program smallestProgram(const Arch& arch);

}  // namespace allocsim
