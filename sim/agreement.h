// Did the simulator compute what the reference interpreter computes on the same allocated program? The simulator
// shares the interpreter's element code, so any difference is a scoreboard, ordering or storage bug in sim/ (or
// an allocation whose meaning depends on timing): `allocsim run`, `allocsim trace` and the fuzz-allocator harness
// all ask this one question the same way.
#pragma once

#include <optional>
#include <string>

#include "ir/interp.h"
#include "ir/program.h"

namespace allocsim::sim {

// "line 12 `copy c, acc`" for the instruction with Instruction::id `id` (empty when none has it).
std::string instructionById(const Program& p, uint32_t id);

// The first difference between the simulated run and the interpreter's run of the same allocated program with
// the same seeds (operand hash at an instruction, the number of steps, or an output tensor), as one line; nullopt
// when they agree.
std::optional<std::string> simulatorDisagreement(const Program& p, const InterpResult& sim, const InterpResult& ref);

}  // namespace allocsim::sim
