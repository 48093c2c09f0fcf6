// What allocator tests check of an allocation: that it is correct (verify/correct.h checkAllocation, the one
// definition the command line, the harness, the fuzz targets and the properties use too), and the figures of an
// allocation report.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "tests/common/sim_checks.h"
#include "verify/correct.h"

namespace allocsim {

// checkAllocation of `allocated` against `input`, the program the allocator was given, with the poison pattern
// `poison_seed` (0: one from the clock).
inline Verdict verdictAgainst(const Program& input, const Program& allocated, uint64_t poison_seed) {
  CorrectnessOptions check;
  check.input = &input;
  check.verify.poison_seed = poison_seed;
  return checkAllocation(allocated, check);
}

// `input` allocated by the driver with `o`; nothing when the allocator refuses it (an AllocError).
inline std::optional<DriverResult> allocatedUnlessRefused(const Program& input, const DriverOptions& o) {
  try {
    return allocate(input, o);
  } catch (const AllocError&) {
    return std::nullopt;
  }
}

// `input` allocated by the driver at `level`, everything else default.
inline Program allocatedAt(const Program& input, uint32_t level) {
  DriverOptions o;
  o.optlevel = level;
  return allocate(input, o).program;
}

// `allocated` must be a correct allocation of `input`, the program the allocator was given: well-formed,
// implementing it, and passing the three oracles against it. Every defect fails the test (named by `what`); so
// does an oracle that did not run.
inline void expectCorrectAllocation(const Program& input, const Program& allocated, const std::string& what,
                              uint64_t poison_seed) {
  const Verdict v = verdictAgainst(input, allocated, poison_seed);
  EXPECT_TRUE(v.ok()) << what << ": " << describeDefect(v, what);
  if (v.defect == Defect::None || v.defect == Defect::Findings) {
    for (const OracleRun& o : v.report.oracles) EXPECT_TRUE(o.ran) << what;
  }
}

// The same for an allocation whose input is not at hand (a hand allocation, a pass's intermediate): the reference
// is recovered from the allocated program itself.
inline void expectCorrectAllocation(const Program& allocated, const std::string& what, uint64_t poison_seed) {
  CorrectnessOptions check;
  check.verify.poison_seed = poison_seed;
  const Verdict v = checkAllocation(allocated, check);
  EXPECT_TRUE(v.ok()) << what << ": " << describeDefect(v, what);
}

// Generated tiny programs (seeds 1 to `seeds`, `size` statements) that contain a construct (`count` > 0): each allocates at
// O2, passes all three oracles against the original, and the simulator gives the interpreter's bits. Refusals are
// the allocators' business (bench/reg_quality counts them): skipped here, so callers bound `verified` from below.
struct GeneratedChecks {
  uint32_t with = 0;      // programs that contain the construct
  uint32_t verified = 0;  // of those, allocated at O2 and checked
};
// `conditionals`: GenOptions::conditionals.
inline GeneratedChecks checkGeneratedPrograms(uint32_t size, const std::function<uint32_t(const Program&)>& count,
                                              uint32_t conditionals = 0, uint64_t seeds = 100) {
  GeneratedChecks out;
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    SeededChoices c(seed);
    GenOptions g{*archPreset("tiny"), size, 80};
    g.conditionals = conditionals;
    const Program p = generateProgram(c, g);
    if (count(p) == 0) continue;
    ++out.with;
    DriverOptions o;
    o.optlevel = 2;
    const std::optional<DriverResult> r = allocatedUnlessRefused(p, o);
    if (!r) continue;
    expectCorrectAllocation(p, r->program, "seed " + std::to_string(seed), seed);
    expectSimulatorMatchesInterpreter(r->program, seed);
    ++out.verified;
  }
  return out;
}

// A count for checkGeneratedPrograms: the instructions of a program, in loops and blocks too, for which
// `has(program, instruction)` holds.
inline std::function<uint32_t(const Program&)> instructionsWhere(
    std::function<bool(const Program&, const Instruction&)> has) {
  return [has = std::move(has)](const Program& p) {
    uint32_t n = 0;
    forEachInstruction(p.body, [&](const Instruction& i) { n += has(p, i); });
    return n;
  };
}

// `input` allocated by the driver at each of `levels`: each allocation is correct (poison pattern `poison_seed`) and
// the simulator computes what the interpreter computes on it.
inline void expectEveryLevelCorrectAndSimulated(const Program& input, std::initializer_list<uint32_t> levels,
                                                uint64_t poison_seed) {
  for (uint32_t level : levels) {
    DriverOptions o;
    o.optlevel = level;
    const DriverResult r = allocate(input, o);
    expectCorrectAllocation(input, r.program, "O" + std::to_string(level), poison_seed);
    SCOPED_TRACE("O" + std::to_string(level));
    expectSimulatorMatchesInterpreter(r.program, poison_seed);
  }
}

}  // namespace allocsim
