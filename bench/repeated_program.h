// A large allocated program made of many copies of a small one, for measuring how the verifier and the
// interpreter scale with program length (bench/verify_scaling.cpp). Copy k renames every tensor and register
// (suffix "_k"), keeps every placement, and runs after copy k-1: the copies' lifetimes are disjoint, so reusing
// the same physical storage is correct exactly when the small program's allocation is.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

// `copies` copies of `p` in sequence (copies >= 1).
Program repeatProgram(const Program& p, uint32_t copies);

// Instructions in the program, loop instructions and their bodies included.
uint64_t instructionCount(const Program& p);

// A generated program on the tiny machine, allocated at -O2, whose three oracles pass; the first seed from
// `seed` that gives one. The base of the scaling family. With `original`, also the generated program it allocates.
Program smallAllocatedProgram(uint64_t seed = 1, Program* original = nullptr);

// A program of about `instructions` instructions (at least one copy): copies of smallAllocatedProgram(). With
// `original`, also the same number of copies of the unallocated program (what `verify --original` takes).
Program scaledAllocatedProgram(uint64_t instructions, Program* original = nullptr);

}  // namespace allocsim
