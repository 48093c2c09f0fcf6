// Mutations of a valid allocated program (docs/verification.md): small corruptions of the kind an allocator bug
// makes — a placement shifted, a PSUM tensor moved to another bank, two registers' physical numbers swapped, a
// register moved to another lane, an inserted spill/reload dropped, a DRAM spill slot shifted. The property
// suites feed mutants to the three oracles and make them check each other (tests/verify/mutation_test.cpp).
//
// Every mutation keeps the program inside the machine: placements stay in bounds, SBUF offsets stay multiples of
// sbuf-align and base partitions multiples of sbuf-partition-quantum, PSUM tensors stay bank-aligned, registers
// keep all their lanes inside the register file. So a mutant breaks value flow (or nothing), never a static rule.
// Pinned tensors are never moved: that is a different fault (placement's "pinned-moved"), shown by
// corpus/broken/pinned_moved.nki.txt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "ir/program.h"

namespace allocsim {

struct Mutation {
  enum Kind { ShiftSbuf, ShiftPsumBank, SwapRegisters, MoveRegister, DropInserted, ShiftDram };
  Kind kind = ShiftSbuf;
  std::string description;  // e.g. "ShiftSbuf: 'a' @p0+0 -> @p4+256"
  // For the moving kinds (all but DropInserted): after the move, what moved shares no byte, bank or lane with any
  // other placed tensor or register of its space — whatever their lifetimes. Such a mutant is still a correct
  // allocation, and no oracle may flag it.
  bool into_free_space = false;
};
const char* mutationKindName(Mutation::Kind k);
constexpr int kMutationKinds = 6;

// A source of decisions: a value in [0, n) (n == 0 counts as 1). Lets RapidCheck or a fuzzer drive the mutator.
using Below = std::function<uint64_t(uint64_t)>;

// Applies one mutation of `kind`, or returns nullopt (and leaves the program unchanged) when the program has
// nothing that kind can change (no PSUM tensor, fewer than two registers, no inserted instruction, ...).
std::optional<Mutation> mutate(Program& allocated, Mutation::Kind kind, const Below& below);
// Tries the kinds in an order drawn from `below` and applies the first that can change something.
std::optional<Mutation> mutate(Program& allocated, const Below& below);
// The same, with decisions drawn from a splitmix64 stream seeded by `seed` (deterministic on every platform).
std::optional<Mutation> mutate(Program& allocated, uint64_t seed);
std::optional<Mutation> mutate(Program& allocated, Mutation::Kind kind, uint64_t seed);

}  // namespace allocsim
