// Fuzz target for the linear-scan allocator end to end (alloc/lsa/lsa_allocator.h through the optlevel driver):
// bytes -> well-formed tiny program -> allocate at O8 or -O6 --allocator lsa (chosen by the input) ->
// well-formedness + the three oracles. AllocError (nothing live can be spilled) is a legal outcome; a crash, an
// InputError on a checked program, or any finding is a bug.
#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  // On the real tiny machine, its 4 SP registers included (the REG colorer spills registers).
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  DriverOptions o;
  o.optlevel = in.knob % 2 ? 8 : 6;
  if (o.optlevel == 6) o.allocator = "lsa";
  DriverResult r;
  try {
    r = allocate(in.program, o);
  } catch (const AllocError&) {
    return 0;
  }
  fuzz::requireCorrect("lsa_driver", in.program, r.program, in.poison_seed);
  return 0;
}
