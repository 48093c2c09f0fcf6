// What one run of an allocator on one program came to: passed, refused (exit code 3 /
// AllocatorRefusal: counted, never a failure), or failed with a finding kind. The kind is what shrinking keeps
// (harness/shrink.h): a smaller program counts only if it fails with the same kind.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allocsim {

enum class CaseStatus : uint8_t { Pass, Refused, Fail };
const char* caseStatusName(CaseStatus s);

struct CaseOutcome {
  CaseStatus status = CaseStatus::Pass;
  // For a failure, the primary kind: "crash" (killed by a signal), "exception" (in-process), "exit-code"
  // (an exit code other than 0 and 3), "timeout", "huge-output" (more output than its cap, harness/subject.h),
  // "no-output" (exit code 0 and nothing written), "unparsable" (the output is not a program), "ill-formed"
  // (the output breaks docs/format.md's well-formedness), "not-the-input" (the program recovered from the
  // output is not the input), "cannot-run" (the oracles reject it as bad input), or "ORACLE:KIND" for an
  // oracle finding ("equivalence:clobber", "symbolic:clobber", "placement:overlap", ...).
  std::string kind;
  // Every failure kind this run showed (the primary one first): each oracle's finding kinds, root first (the
  // placement oracle's, then the symbolic, then the equivalence oracle's: an overlap explains wrong values).
  std::vector<std::string> kinds;
  std::string message;  // one line
  std::string detail;   // diagnostics or findings, several lines
  std::string output;   // what the allocator printed as its result (the allocated program text)
  std::vector<uint32_t> involved;  // the tensors (of the output) the first finding is about
  std::string placements;          // their declarations in the output, one a line: where the allocator put them
  std::string log;      // its standard error, or the refusal / exception message
  int exit_code = 0;    // external commands: the exit code, or -signal when killed
  double seconds = 0;   // time the allocator took
  bool simulated = false;  // the output ran on the simulator and agreed with the interpreter (harness/simulated_run.h)
  uint64_t cycles = 0;     // ... in this many simulated cycles

  bool failed() const { return status == CaseStatus::Fail; }
  // True when this run fails with `kind` among its kinds: what a shrinking candidate must keep.
  bool showsKind(const std::string& k) const;
};

// The seeds a run's checks use, derived from the case so that a failure reproduces; and whether the last check,
// the simulator (harness/simulated_run.h), runs.
struct CheckSeeds {
  uint64_t input_seed = 1;
  uint64_t poison_seed = 1;
  bool simulate = true;
};

}  // namespace allocsim
