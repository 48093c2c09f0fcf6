// The one definition of a correct allocation. An allocated program is correct when, in this order:
//   1. it is well-formed (ir/check.h): docs/format.md's rules hold, e.g. no spill DMA inside an open accumulation
//      group, whatever the data would come out as;
//   2. it implements the program the allocator was given (verify/implements_input.h), when that program is known:
//      the program recovered from it is the input (or, for an input that is itself an allocation, the program the
//      input stands for), declaration for declaration and instruction for instruction, on the same machine;
//      without this an empty program would pass the oracles against itself;
//   3. the oracles can run it (an InputError of theirs, e.g. a view out of bounds on the physical storage, is a
//      defect of the allocation, not of the tool);
//   4. the equivalence, symbolic and placement oracles find nothing (verify/verify.h, docs/verification.md).
// The first step that fails decides the verdict, and the later ones do not run. `allocsim verify` and
// `alloc --verify`, the harness, the fuzz targets, the properties and the tests all ask this function, so they
// agree on what correct means; each presents the verdict its own way.
//
// Modelled on checkers that return typed results rather than strings (a register allocator's checker error enum,
// a memory-layout validator's result code): code tests `Verdict::defect` and `Finding::kind`, never message text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/program.h"
#include "verify/verify.h"

namespace allocsim {

enum class Defect : uint8_t {
  None,        // correct
  IllFormed,   // step 1: `diagnostics` are the checker's
  NotTheInput, // step 2: `mismatch` says what differs first (or `diagnostics` hold an inconsistent provenance)
  CannotRun,   // step 3: `diagnostics` are the oracle's InputError
  Findings,    // step 4: `report.findings`, typed (verify/finding.h FindingKind)
};
// "ill-formed", "not-the-input", "cannot-run", "findings"; "ok" for None.
const char* defectName(Defect d);

struct CorrectnessOptions {
  // Seeds, step budget and progress of the oracles, and `original`: the program the allocated one must stand for
  // (recovered instruction for instruction, and the equivalence oracle's reference). Without it the reference is
  // recovered from the allocated program alone.
  VerifyOptions verify;
  // The program the allocator was given, when the caller has it: checked by step 2, and the oracles' original
  // unless `verify.original` names another.
  const Program* input = nullptr;
  // Step 1 was already done on this very program (a loaded file is checked as it is read): skip it.
  bool well_formed_known = false;
};

struct Verdict {
  Defect defect = Defect::None;
  std::vector<Diagnostic> diagnostics;  // IllFormed, CannotRun, and NotTheInput from an inconsistent provenance
  std::string mismatch;                 // NotTheInput: what differs first, in words
  VerifyReport report;                  // the oracles' report (findings empty unless defect == Findings)
  bool ok() const { return defect == Defect::None; }
};

Verdict checkAllocation(const Program& allocated, const CorrectnessOptions& opts = {});

// What is wrong, for a test or property failure message: the diagnostics or every finding, located in `file`
// (the allocated program's name); a line saying what differs for NotTheInput; empty when the verdict is ok.
std::string describeDefect(const Verdict& v, const std::string& file);

}  // namespace allocsim
