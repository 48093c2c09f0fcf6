// Fuzz target: bytes -> program generator (tiny machine) -> allocator -> the three oracles. The bytes are the
// generator's decisions (gen/choices.h ByteChoices), so every input is a well-formed program and libFuzzer's
// mutations explore program shapes. Any finding is an allocator or oracle bug: the program, its allocation and the
// findings are printed, then the target aborts.
//
// The allocator is chosen at build time: -DALLOCSIM_FUZZ_ALLOCATOR=<function> (a `Program f(const Program&)`
// that throws AllocError when it cannot fit) with -DALLOCSIM_FUZZ_ALLOCATOR_HEADER='"alloc/....h"'; the
// default is placeGreedy. When it cannot fit, the target falls back to placeNoReuse, so that the oracles still
// run on every input that fits the machine at all.
#include <optional>

#include "fuzz/fuzz_program.h"

#ifndef ALLOCSIM_FUZZ_ALLOCATOR
#define ALLOCSIM_FUZZ_ALLOCATOR placeGreedy
#define ALLOCSIM_FUZZ_ALLOCATOR_HEADER "alloc/greedy_placer.h"
#endif
#include ALLOCSIM_FUZZ_ALLOCATOR_HEADER

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  const std::optional<Program> allocated =
      fuzz::placeOrPlaceApart(in.program, [](const Program& p) { return ALLOCSIM_FUZZ_ALLOCATOR(p); });
  if (!allocated) return 0;  // does not fit the machine without reuse either: nothing to verify
  fuzz::requireCorrect("alloc_pipeline", in.program, *allocated, in.poison_seed);
  return 0;
}
