// The body of a libFuzzer target for an in-process Allocator (the macro is in
// harness/libfuzzer_allocator.h): the fuzzer's bytes are the program generator's decisions (gen/choices.h
// ByteChoices), the program goes through the allocator and every check of harness/check_output.h, and a failure
// is shrunk (harness/shrink.h) and printed before the target aborts, so the crash report holds a minimal program.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/allocator.h"
#include "ir/arch.h"

namespace allocsim {

struct FuzzTargetOptions {
  Arch arch = *archPreset("tiny");
  double shrink_seconds = 20;
};

// Returns 0 (libFuzzer's "keep going"); aborts on a failure after printing it to standard error.
int fuzzAllocatorOneInput(Allocator& allocator, const uint8_t* data, size_t size, const FuzzTargetOptions& opts = {});

}  // namespace allocsim
