// A RapidCheck property for your allocator (README "Fuzz your own allocator"). Header only: it
// needs <rapidcheck.h> (Debian: librapidcheck-dev), which the allocsim package does not link for you.
//
//   #include "harness/rapidcheck_allocator.h"
//   rc::check("my allocator is correct", [] {
//     MyAllocator a;
//     allocsim::rc_allocator::requireCorrect(a, *allocsim::rc_allocator::genProgram(*allocsim::archPreset("tiny")));
//   });
//
// Every generator decision is its own RapidCheck value, so RapidCheck's shrinking shrinks the program choice by
// choice (gen/generate.h: a 0 choice means "stop / smallest"); the counterexample is printed as program text.
#pragma once

#include <rapidcheck.h>

#include <string>

#include "gen/choices.h"
#include "gen/generate.h"
#include "harness/campaign.h"
#include "harness/subject.h"
#include "ir/print.h"

namespace allocsim::rc_allocator {

// Decisions drawn from RapidCheck; only usable inside a generator or property.
class RapidCheckChoices : public Choices {
 public:
  uint64_t below(uint64_t n) override { return n <= 1 ? 0 : *rc::gen::inRange<uint64_t>(0, n); }
};

// Programs on `arch`, size 1..30, pressure 25..300 % (above 100 the allocator must spill or refuse).
inline rc::Gen<Program> genProgram(Arch arch) {
  return rc::gen::exec([arch] {
    GenOptions o;
    o.arch = arch;
    o.size = *rc::gen::inRange<uint32_t>(1, 31);
    o.pressure = *rc::gen::inRange<uint32_t>(25, 301);
    RapidCheckChoices choices;
    return generateProgram(choices, o);
  });
}

// The property: the allocator refuses the program (AllocatorRefusal: discarded, so the case does not count) or its
// output passes every check of harness/check_output.h. A failure names the kind and shows program and findings.
inline void requireCorrect(Allocator& allocator, const Program& program, uint64_t seed = 1) {
  InProcessSubject subject(allocator, "rapidcheck");
  const CaseOutcome o = subject.run(program, seedsFor(seed));
  RC_CLASSIFY(o.status == CaseStatus::Refused, "refused");
  RC_PRE(o.status != CaseStatus::Refused);
  if (o.failed()) RC_FAIL(o.kind.name() + ": " + o.message + "\n--- input\n" + printProgram(program) + "--- details\n" + o.detail);
}

}  // namespace allocsim::rc_allocator
