#include "harness/fuzz_one_input.h"

#include <cstdio>
#include <cstdlib>

#include "gen/choices.h"
#include "gen/generate.h"
#include "harness/campaign.h"
#include "harness/shrink.h"
#include "harness/subject.h"
#include "ir/print.h"

namespace allocsim {

int fuzzAllocatorOneInput(Allocator& allocator, const uint8_t* data, size_t size, const FuzzTargetOptions& opts) {
  ByteChoices choices(data, size);
  GenOptions g;
  g.arch = opts.arch;
  g.size = uint32_t(choices.range(1, 30));
  g.pressure = uint32_t(choices.range(25, 300));
  const CheckSeeds seeds = seedsFor(1 + choices.below(1u << 30));
  const Program program = generateProgram(choices, g);
  InProcessSubject subject(allocator, "in-process allocator");
  const CaseOutcome outcome = subject.run(program, seeds);
  if (!outcome.failed()) return 0;
  ShrinkOptions so;
  so.max_seconds = opts.shrink_seconds;
  CaseOutcome last = outcome;
  ShrinkResult shrunk = shrinkProgram(program, [&](const Program& candidate) {
    CaseOutcome o = subject.run(candidate, seeds);
    if (!o.showsKind(outcome.kind)) return false;
    last = o;
    return true;
  }, so);
  std::fprintf(stderr,
               "allocator failure: %s: %s\n--- shrunk input (%zu instructions; the fuzzer's input had %zu)\n%s"
               "--- details\n%s--- allocator output\n%s--- seeds: input %llu, poison %llu\n",
               last.kind.name().c_str(), last.message.c_str(), instructionCount(shrunk.program), instructionCount(program),
               printProgram(shrunk.program).c_str(), last.detail.c_str(), last.output.c_str(),
               (unsigned long long)seeds.input_seed, (unsigned long long)seeds.poison_seed);
  std::abort();
}

}  // namespace allocsim
