// Fuzz target: bytes -> program generator (tiny machine) -> allocator -> the three oracles (DESIGN.md section
// 5). The bytes are the generator's decisions (gen/choices.h ByteChoices), so every input is a well-formed
// program and libFuzzer's mutations explore program shapes. Any finding is an allocator or oracle bug: the
// program, its allocation and the findings are printed, then the target aborts.
//
// The allocator is chosen at build time: -DALLOCSIM_FUZZ_ALLOCATOR=<function> (a `Program f(const Program&)`
// that throws AllocError when it cannot fit) with -DALLOCSIM_FUZZ_ALLOCATOR_HEADER='"alloc/....h"'; the
// default is placeGreedy. When it cannot fit, the target falls back to placeNoReuse, so that the oracles still
// run on every input that fits the machine at all.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/no_reuse.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/print.h"
#include "verify/verify.h"

#ifndef ALLOCSIM_FUZZ_ALLOCATOR
#define ALLOCSIM_FUZZ_ALLOCATOR placeGreedy
#define ALLOCSIM_FUZZ_ALLOCATOR_HEADER "alloc/greedy_placer.h"
#endif
#include ALLOCSIM_FUZZ_ALLOCATOR_HEADER

using namespace allocsim;

namespace {

[[noreturn]] void report(const char* what, const Program& p, const Program* allocated, const std::string& detail) {
  std::fprintf(stderr, "alloc_pipeline: %s\n--- program\n%s", what, printProgram(p).c_str());
  if (allocated) std::fprintf(stderr, "--- allocated\n%s", printProgram(*allocated).c_str());
  std::fprintf(stderr, "--- findings\n%s", detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteChoices choices(data, size);
  GenOptions opts;
  opts.arch = *archPreset("tiny");
  opts.size = uint32_t(choices.range(1, 24));
  opts.pressure = uint32_t(choices.range(25, 300));
  // The poison seed comes from the input too, so a crash reproduces from its file alone.
  const uint64_t poison = 1 + choices.below(UINT64_MAX - 1);
  const Program p = generateProgram(choices, opts);

  Program allocated;
  try {
    allocated = ALLOCSIM_FUZZ_ALLOCATOR(p);
  } catch (const AllocError&) {
    try {
      allocated = placeNoReuse(p);
    } catch (const AllocError&) {
      return 0;  // does not fit the machine without reuse either: nothing to verify
    }
  }
  VerifyOptions vo;
  vo.original = &p;
  vo.poison_seed = poison;
  VerifyReport r;
  try {
    r = verifyAllocated(allocated, vo);
  } catch (const InputError& e) {
    // The generator bounds a program's work, so a run that fails is the allocation's fault.
    report("the allocated program cannot run", p, &allocated, e.format("allocated"));
  }
  if (!r.ok()) {
    std::string detail;
    for (const Finding& f : r.findings) detail += f.format("allocated");
    report("the oracles found a bug", p, &allocated, detail);
  }
  return 0;
}
