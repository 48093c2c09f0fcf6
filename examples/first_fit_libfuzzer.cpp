// The correct example allocator as a libFuzzer target (harness/libfuzzer_allocator.h), built with clang only:
//   ./first_fit_libfuzzer -max_total_time=60 corpus_dir/
#include "harness/libfuzzer_allocator.h"
#include "interval_first_fit.h"

namespace {
struct CorrectFirstFit : example::IntervalFirstFit {
  CorrectFirstFit() : IntervalFirstFit(example::LiveEnd::Inclusive) {}
};
}  // namespace

ALLOCSIM_LIBFUZZER_ALLOCATOR(CorrectFirstFit)
