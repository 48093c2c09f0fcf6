// The verb table. Each verb lives in its own tools/verb_<name>.cpp.
#include "tools/verbs.h"

namespace allocsim::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"fmt", "parse, check and print a program in canonical form", runFmt},
      {"interp", "run a program on the reference interpreter; hash (or dump) its outputs", runInterp},
      {"gen", "print a random well-formed program (--seed S --size N --pressure P --arch A)", runGen},
      {"verify", "check an allocated program with the equivalence, symbolic and placement oracles", runVerify},
      {"alloc", "allocate a program at an optlevel (-O N) and print the allocated program", runAlloc},
      {"show", "draw an allocated program's placements over time as SVG (-o map.svg)", runShow},
      {"fuzz-allocator", "fuzz any allocator command with generated programs; shrink each failure (-- CMD ARGS)",
       runFuzzAllocator},
      {"run", "allocate, simulate on the SystemC model, check against the interpreter; cycles and stalls", runRun},
      {"trace", "simulate and write the engine and DMA queue timelines (--vcd FILE, --perfetto FILE)", runTrace},
      {"import", "write the program of a minimalloc problem (import minimalloc FILE.csv)", runImport},
      {"export", "write an allocated imported program as minimalloc's solution CSV, checked by its rules", runExport},
      {"solve", "place a minimalloc problem by the exact search, on its own times (solve minimalloc FILE.csv)",
       runSolve},
      {"nki", "trace an NKI kernel written in Python (KERNEL.py --kernel NAME --arg ...) into a program", runNki},
      {"demo", "allocate, verify and run a bundled kernel end to end: start here", runDemo},
  };
  return table;
}

}  // namespace allocsim::cli
