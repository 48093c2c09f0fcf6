// Fuzz target for the PSUM colorer (modelled on the production allocator's): bytes -> well-formed program on a tiny machine
// whose SBUF and register file are made large, so that only PSUM is under pressure -> allocatePsum -> the rest placed
// by placeGreedy with the PSUM banks frozen -> well-formedness + the three oracles; the same input allocated twice
// must give the same bytes. AllocError (e.g. "PSUM cannot hold ...") is a legal outcome.
// On half of the inputs the colorer runs one of its four orders alone (PsumOptions::only_heuristic, from the poison
// seed's hash): best-of-n hands on only the winner, and this way the oracles check what each order makes of a program.
// SBUF 3x tiny: large enough for the spill slots, and 96 KiB in all, under the 128 KiB above which ASan maps and
// unmaps every allocation (at 4x, the storage of each execution's equivalence run cost a map, an unmap and their
// TLB flushes: a fifth of the CPU time).
#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/psum/psum_allocator.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

namespace {

Program placeRestKeepingPsum(const Program& psumPlaced) {
  Program pinned = psumPlaced;
  for (Tensor& t : pinned.tensors)
    if (t.space == Space::Psum) t.pinned = true;
  Program out = placeGreedy(pinned);
  for (size_t i = 0; i < out.tensors.size(); ++i) out.tensors[i].pinned = psumPlaced.tensors[i].pinned;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  static const Arch arch = fuzz::fuzzArch({{"sp-registers", "64"}, {"sbuf-bytes", "12288"}});
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in, arch)) return 0;  // a repeat of a case this process ran
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  PsumOptions o;
  if ((in.knob & 1) == 1) o.only_heuristic = in.psumHeuristic();
  PsumResult first;
  try {
    first = allocatePsum(in.program, o);
  } catch (const AllocError&) {
    return 0;
  }
  PsumResult again = allocatePsum(in.program, o);
  // Equal programs print the same bytes: only unequal ones are printed to compare.
  if (!(again.program == first.program) && printProgram(again.program) != printProgram(first.program))
    fuzz::reportBug("psum_colorer", "allocation is not deterministic", in.program, &first.program,
                    printProgram(again.program));
  Program placed;
  try {
    placed = placeRestKeepingPsum(first.program);
  } catch (const AllocError&) {
    return 0;  // the greedy SBUF placer (no spilling) cannot fit the spill slots: not the colorer's fault
  }
  fuzz::requireCorrect("psum_colorer", in.program, placed, in.poison_seed);
  return 0;
}
