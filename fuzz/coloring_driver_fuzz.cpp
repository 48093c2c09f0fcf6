// Fuzz target for the coloring pipeline (PSUM colorer, then SBUF colorer with spilling to DRAM, then register
// colorer) through the optlevel driver: bytes -> well-formed tiny program -> allocate at O1, O2, O3 or O6 (chosen by
// the input) -> well-formedness + the three oracles; then the result is re-allocated at O7 (fixed assignment) and
// (DMA optimization off) must come back byte-identical and pass the in-place write checker. AllocError is a legal
// outcome.
#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The real tiny machine (4 SP registers): the REG colorer spills registers.
  static const Arch arch = fuzz::fuzzArch({});
  fuzz::FuzzProgram in = fuzz::decodeProgram(data, size, arch);
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  static const int kLevels[] = {1, 2, 3, 6};
  DriverOptions o;
  o.optlevel = kLevels[in.knob % 4];
  DriverResult r;
  try {
    r = allocate(in.program, o);
  } catch (const AllocError&) {
    return 0;
  }
  fuzz::requireCorrect("coloring_driver", in.program, r.program, in.poison_seed);

  // O7 re-places what it is given; its DMA optimization is off, because a second run of that pass may still remove
  // a reload the first one left (dma_opt_fuzz checks the pass itself; docs/fuzzing.md, "Findings").
  DriverOptions fixed;
  fixed.optlevel = 7;
  fixed.gca_dma_optlevel = -1;
  DriverResult again;
  try {
    again = allocate(r.program, fixed);
  } catch (const AllocError& e) {
    fuzz::reportBug("coloring_driver", "O7 rejects a placement the driver produced", in.program, &r.program, e.what());
  }
  // Printed text is what must be identical; equal programs print the same, so only unequal ones are printed.
  if (!(again.program == r.program) && printProgram(again.program) != printProgram(r.program))
    fuzz::reportBug("coloring_driver", "O7 does not reproduce the placements", in.program, &r.program,
                    printProgram(again.program));
  return 0;
}
