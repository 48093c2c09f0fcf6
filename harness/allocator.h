// The in-process allocator interface: a user's allocator as a C++ object, program in,
// allocated program out. The harness (harness/campaign.h), the libFuzzer target template
// (harness/libfuzzer_allocator.h) and the RapidCheck property template (harness/rapidcheck_allocator.h) all
// drive an Allocator; an allocator that is a separate program is driven through harness/external_command.h
// instead, with the same checks.
#pragma once

#include <stdexcept>
#include <string>

#include "ir/program.h"

namespace allocsim {

// Thrown by Allocator::allocate when the program does not fit the machine: the in-process form of exit code 3.
// A refusal is counted, never a failure (the harness cannot know whether a better allocator would fit it).
class AllocatorRefusal : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns `input` allocated: every SBUF and PSUM tensor and every register placed, inserted spill / reload /
  // copy items marked with their origin (docs/verification.md). Any other exception than AllocatorRefusal is a
  // failure of the allocator ("exception").
  virtual Program allocate(const Program& input) = 0;
};

}  // namespace allocsim
