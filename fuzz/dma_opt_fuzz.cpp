// Fuzz target for the DMA optimization (alloc/dma_opt/, the production allocator's DMAOptimization): bytes ->
// well-formed tiny program (0-60 % of its statements DMA patterns, gen/gen_dma_patterns.cpp) -> one of two checks,
// chosen by the input (so that a finding reproduces from its file), at level 1 or 2 (also chosen by the input):
// - the pass alone: allocated at O1, O2, O3, O6 or O7 with --gca-dma-optlevel 0 (the DMAs as the allocators left
//   them), then both instances on the allocated program. The result must be well-formed, pass the three oracles
//   against the original, stand for the same program (the recovered reference is unchanged), and never execute
//   more DMAs, descriptors or bytes than before;
// - the pass between the allocators: the same level through the driver, whose result must pass the oracles.
// An input runs one of them, not both: each is an allocation and the oracles, and running the second on every other
// input took a third of the target's CPU time for the same checks; one bit of
// the input away, the other check runs on the same program. AllocError is a legal outcome.
#include "alloc/alloc_error.h"
#include "alloc/dma_opt/both_instances.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "fuzz/fuzz_program.h"
#include "verify/reference.h"

using namespace allocsim;

namespace {

std::string traffic(const DmaTraffic& t) {
  return std::to_string(t.instructions) + " dma instructions, executed " + std::to_string(t.executed) + ", " +
         std::to_string(t.descriptors) + " descriptors, " + std::to_string(t.bytes) + " bytes";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  // On the real tiny machine.
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in, fuzz::tinyFuzzArch(), /*max_dma_patterns=*/60))
    return 0;  // a repeat of a case this process ran
  static const int kLevels[] = {1, 2, 3, 6, 7};
  DriverOptions o;
  o.verbosity = in.traced() ? 2 : 0;  // the per-round records on some inputs (fuzz/fuzz_program.h)
  o.optlevel = kLevels[in.knob % 5];
  const int dma_level = 1 + int((in.knob / 5) % 2);
  // The SBUF colorer's exact packing candidate on one input in about three (knob / 20 is 0-12): the pass sees
  // colored, spilled programs either way, and the search was an eighth of this target's CPU time.
  o.sbuf_packing = (in.knob / 20) % 4 == 0;
  // One SBUF heuristic (and PSUM order) alone on half of the inputs (FuzzProgram::sbufHeuristic): the pass then sees
  // the spills of all 16, and that allocation is one fixpoint instead of best-of-7 or 16.
  o.sbuf_heuristic = in.sbufHeuristic();
  if (o.sbuf_heuristic && o.optlevel != 7) o.psum_heuristic = in.psumHeuristic();  // O7 has no PSUM pass
  // O7 runs no PSUM coloring pass (alloc/driver.h): its PSUM placements come with the input.
  const bool piped = (in.knob / 10) % 2 == 0;  // knob % 5 chose the optlevel, (knob / 5) % 2 the level
  o.gca_dma_optlevel = piped ? dma_level : 0;
  DriverResult base;
  try {
    base = allocate(o.optlevel == 7 ? allocatePsum(in.program, PsumOptions{}).program : in.program, o);
  } catch (const AllocError&) {
    return 0;  // with the pass between the allocators, the SBUF colorer sees other DMAs; it may still not fit
  }
  if (piped) {
    fuzz::requireCorrect("dma_opt", in.program, base.program, in.poison_seed);
    return 0;
  }
  const Program p = optimizeDmasBothInstances(base.program, dma_level).program;
  fuzz::requireCorrect("dma_opt", in.program, p, in.poison_seed);
  if (!(referenceProgram(p).program == referenceProgram(base.program).program))
    fuzz::reportBug("dma_opt", "the optimized program stands for another program", in.program, &p,
                    printProgram(referenceProgram(p).program));
  const DmaTraffic before = measureDmaTraffic(base.program), after = measureDmaTraffic(p);
  if (after.instructions > before.instructions || after.executed > before.executed ||
      after.descriptors > before.descriptors || after.bytes > before.bytes)
    fuzz::reportBug("dma_opt", "the DMA optimization increased DMA traffic", in.program, &p,
                    "before: " + traffic(before) + "\nafter:  " + traffic(after));
  return 0;
}
