// What one run of an allocator on one program came to: passed, refused (exit code 3 /
// AllocatorRefusal: counted, never a failure), or failed with a finding kind. The kind is what shrinking keeps
// (harness/shrink.h): a smaller program counts only if it fails with the same kind.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "verify/correct.h"
#include "verify/finding.h"

namespace allocsim {

enum class CaseStatus : uint8_t { Pass, Refused, Fail };
const char* caseStatusName(CaseStatus s);

// What kind of failure a run showed, typed: how the allocator itself failed, which step of the correctness check
// (verify/correct.h) its output failed, which oracle found what (verify/finding.h), or how the simulated run of the
// output went wrong. Code compares kinds; name() is what reports and failure files print, and it never changes.
struct FailureKind {
  enum class Class : uint8_t {
    None,
    Crash,               // "crash": killed by a signal
    Exception,           // "exception": an in-process allocator threw
    ExitCode,            // "exit-code": an exit code other than 0 and 3, or the command could not start
    Timeout,             // "timeout"
    HugeOutput,          // "huge-output": more output than its cap (harness/subject.h)
    NoOutput,            // "no-output": exit code 0 and nothing written
    Unparsable,          // "unparsable": the output is not a program
    Defect,              // defectName(defect): "ill-formed", "not-the-input", "cannot-run"
    Finding,             // "ORACLE:KIND": an oracle finding ("placement:overlap", "symbolic:clobber", ...)
    SimulatorCannotRun,  // "simulator:cannot-run"
    SimulatorDisagrees,  // "simulator:disagrees": the simulated outputs or operand hashes are not the interpreter's
    SimulatorTiming,     // "simulator:timing": the model's timing is not the timing oracle's
  };
  Class what = Class::None;
  allocsim::Defect defect = allocsim::Defect::None;  // Class::Defect
  Oracle oracle = Oracle::Placement;                 // Class::Finding
  FindingKind finding = FindingKind::Overlap;        // Class::Finding

  static FailureKind of(Class c) { return FailureKind{c}; }
  static FailureKind ofDefect(allocsim::Defect d) { return FailureKind{Class::Defect, d}; }
  static FailureKind ofFinding(Oracle o, FindingKind k) {
    return FailureKind{Class::Finding, allocsim::Defect::Findings, o, k};
  }
  bool none() const { return what == Class::None; }
  std::string name() const;
  friend bool operator==(const FailureKind&, const FailureKind&) = default;
};
std::ostream& operator<<(std::ostream& os, const FailureKind& k);  // the name

struct CaseOutcome {
  CaseStatus status = CaseStatus::Pass;
  // For a failure, the primary kind: "crash" (killed by a signal), "exception" (in-process), "exit-code"
  // (an exit code other than 0 and 3), "timeout", "huge-output" (more output than its cap, harness/subject.h),
  // "no-output" (exit code 0 and nothing written), "unparsable" (the output is not a program), "ill-formed"
  // (the output breaks docs/format.md's well-formedness), "not-the-input" (the program recovered from the
  // output is not the input), "cannot-run" (the oracles reject it as bad input), or "ORACLE:KIND" for an
  // oracle finding ("equivalence:clobber", "symbolic:clobber", "placement:overlap", ...): FailureKind's names.
  FailureKind kind;
  // Every failure kind this run showed (the primary one first): each oracle's finding kinds, root first (the
  // placement oracle's, then the symbolic, then the equivalence oracle's: an overlap explains wrong values).
  std::vector<FailureKind> kinds;
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
  bool showsKind(const FailureKind& k) const;
};

// The seeds a run's checks use, derived from the case so that a failure reproduces; and whether the last check,
// the simulator (harness/simulated_run.h), runs.
struct CheckSeeds {
  uint64_t input_seed = 1;
  uint64_t poison_seed = 1;
  bool simulate = true;
};

}  // namespace allocsim
