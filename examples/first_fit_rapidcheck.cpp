// The example allocators as RapidCheck properties (harness/rapidcheck_allocator.h): the correct one holds, and the
// one with the half-open live-range bug is caught and shrunk by RapidCheck. Exit code 0 when both come out so.
#include <cstdio>

#include "harness/rapidcheck_allocator.h"
#include "interval_first_fit.h"

int main() {
  const allocsim::Arch tiny = *allocsim::archPreset("tiny");
  const bool correct_holds = rc::check("interval first fit is correct", [&] {
    example::IntervalFirstFit a(example::LiveEnd::Inclusive);
    allocsim::rc_allocator::requireCorrect(a, *allocsim::rc_allocator::genProgram(tiny));
  });
  std::puts("--- the half-open variant must fail:");
  const bool buggy_holds = rc::check("half-open interval first fit is correct", [&] {
    example::IntervalFirstFit a(example::LiveEnd::Exclusive);
    allocsim::rc_allocator::requireCorrect(a, *allocsim::rc_allocator::genProgram(tiny));
  });
  return correct_holds && !buggy_holds ? 0 : 1;
}
