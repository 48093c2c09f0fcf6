// The three oracles on one allocated program (docs/verification.md). Step 4 of what a correct allocation is:
// callers ask verify/correct.h checkAllocation, which runs this after the checks that must come first.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ir/progress.h"
#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim {

struct VerifyOptions {
  uint64_t input_seed = 1;
  uint64_t poison_seed = 0;  // 0 = pick one from the clock (VerifyReport::poison_seed says which)
  // The unallocated input, when known: the program recovered from the allocated one must match it instruction
  // for instruction, the equivalence oracle runs it as the reference, and pinned placements must be kept.
  // Without it the reference is recovered from the allocated program alone (VerifyReport::reference says so).
  const Program* original = nullptr;
  uint64_t max_steps = 50'000'000;
  const ProgressFn* progress = nullptr;  // each oracle's run, as ir/progress.h says
  // Run the symbolic oracle. Off only where a caller samples the costliest oracle (the fuzz targets run it on one
  // input in kFuzzLimits.symbolic_every); its OracleRun then says it did not run.
  bool symbolic = true;
};

struct OracleRun {
  Oracle oracle = Oracle::Equivalence;
  bool ran = false;
  double seconds = 0;
  size_t findings = 0;
};

struct VerifyReport {
  std::vector<Finding> findings;  // equivalence's first, then symbolic's, then placement's
  std::array<OracleRun, 3> oracles;  // in that order
  uint64_t poison_seed = 0;          // the one used (never 0)
  bool against_original = false;     // the reference was the given original, not recovered from the allocated

  bool ok() const { return findings.empty(); }
  // The oracle's findings, in order (empty when it found nothing).
  std::vector<const Finding*> of(Oracle o) const;
};

// Runs equivalence, symbolic and placement. Throws InputError when the program cannot be run at all (see each
// oracle's header): that is bad input, not a verification failure.
VerifyReport verifyAllocated(const Program& allocated, const VerifyOptions& opts = {});

// A poison seed that differs from run to run (never 0).
uint64_t clockPoisonSeed();

}  // namespace allocsim
