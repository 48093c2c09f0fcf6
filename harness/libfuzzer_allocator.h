// A libFuzzer target for your allocator in one line (README "Fuzz your own allocator"):
//
//   #include "harness/libfuzzer_allocator.h"
//   #include "my_allocator.h"
//   ALLOCSIM_LIBFUZZER_ALLOCATOR(MyAllocator)          // MyAllocator : allocsim::Allocator, default-constructible
//
// Build with clang: -fsanitize=fuzzer (plus address,undefined), link allocsim::harness. The fuzzer's bytes are the
// generator's decisions, so libFuzzer's own input minimisation also shrinks the program; on a failure the target
// prints a shrunk program and aborts (harness/fuzz_one_input.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/fuzz_one_input.h"

#define ALLOCSIM_LIBFUZZER_ALLOCATOR(AllocatorType)                                  \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {          \
    static AllocatorType allocator;                                                  \
    return allocsim::fuzzAllocatorOneInput(allocator, data, size);                   \
  }
