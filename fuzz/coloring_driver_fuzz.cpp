// Fuzz target for the coloring pipeline (PSUM colorer, then SBUF colorer with spilling to DRAM, then register
// colorer) through the optlevel driver: bytes -> well-formed tiny program -> allocate at O1, O2, O3 or O6 (chosen by
// the input) -> well-formedness + the three oracles; then the result is re-allocated at O7 (fixed assignment) and
// (DMA optimization off) must come back byte-identical and pass the in-place write checker. AllocError is a legal
// outcome.
// On half of the inputs the colorers run one heuristic each (DriverOptions::sbuf_heuristic / psum_heuristic, chosen
// by the input) instead of the level's best-of-n: best-of-n hands on only the winner, so the oracles would never
// see what the other heuristics make of a program (16 SBUF, 4 PSUM), and a wrong placement that loses is a bug
// waiting for the program on which it wins.
#include <cstdio>
#include <cstring>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  // On the real tiny machine (4 SP registers): the REG colorer spills registers.
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  static const int kLevels[] = {1, 2, 3, 6};
  DriverOptions o;
  o.optlevel = kLevels[in.knob % 4];
  if ((in.knob / 4) % 2 == 1) {
    o.sbuf_heuristic = uint32_t(in.knob / 8) % kSbufHeuristicCount;
    o.psum_heuristic = in.psumHeuristic();
  }
  // A finding's first line says how the command line reproduces the allocation (no heap block: runs every input).
  char target[96];
  std::snprintf(target, sizeof target, "coloring_driver (allocsim alloc -O%d", o.optlevel);
  if (o.sbuf_heuristic)
    std::snprintf(target + std::strlen(target), sizeof target - std::strlen(target),
                  " --sbuf-heuristic %u --psum-heuristic %u", *o.sbuf_heuristic, *o.psum_heuristic);
  std::snprintf(target + std::strlen(target), sizeof target - std::strlen(target), ")");
  DriverResult r;
  try {
    r = allocate(in.program, o);
  } catch (const AllocError&) {
    return 0;
  }
  fuzz::requireCorrect(target, in.program, r.program, in.poison_seed);

  // O7 re-places what it is given; its DMA optimization is off, because a second run of that pass may still remove
  // a reload the first one left (dma_opt_fuzz checks the pass itself;
  // tests/alloc/fixed_assignment_replay_test.cpp has such a case).
  DriverOptions fixed;
  fixed.optlevel = 7;
  fixed.gca_dma_optlevel = -1;
  DriverResult again;
  try {
    again = allocate(r.program, fixed);
  } catch (const AllocError& e) {
    fuzz::reportBug(target, "O7 rejects a placement the driver produced", in.program, &r.program, e.what());
  }
  // Printed text is what must be identical; equal programs print the same, so only unequal ones are printed.
  if (!(again.program == r.program) && printProgram(again.program) != printProgram(r.program))
    fuzz::reportBug(target, "O7 does not reproduce the placements", in.program, &r.program,
                    printProgram(again.program));
  return 0;
}
