// Oracle 1, equivalence (docs/verification.md): the reference program (verify/reference.h) runs on private
// storage, the allocated program on physical storage (ir/physical_storage.h) poisoned from a seed; every original
// instruction must read the same operand values (hash) in both runs, in order, and every DRAM output must be
// bit-identical. The first difference is explained: the instruction, the operand and element (or register), the
// expected and found values, the physical bytes, and the instruction that last wrote them in the physical run.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/progress.h"
#include "verify/finding.h"

namespace allocsim {

struct EquivalenceOptions {
  uint64_t input_seed = 1;
  uint64_t poison_seed = 0;
  uint64_t max_steps = 50'000'000;
  // The unallocated input, when known: the recovered program must match it (verify/original_match.h; a
  // mismatch is the one finding) and the reference run executes it instead of the recovered program.
  const Program* original = nullptr;
  const ProgressFn* progress = nullptr;  // ir/progress.h
};

// Empty = equivalent; otherwise one finding (kind "original-mismatch", "operand-mismatch", "output-mismatch", "trace-mismatch" or
// "runtime-error": the physical run failed where the reference did not, e.g. a clobbered address register).
// Throws InputError if the program cannot run at all: the reference run fails, a tensor or register has no
// placement or lies outside the machine. The reference is not checked for well-formedness here (ir/check.h):
// a program that reads never-written memory compares zeros against poison.
std::vector<Finding> checkEquivalence(const Program& allocated, const EquivalenceOptions& opts = {});

}  // namespace allocsim
