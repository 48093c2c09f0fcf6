// The correct example allocator as a command: first_fit [IN [OUT]] (examples/interval_first_fit.h).
#include "harness/allocator_main.h"
#include "interval_first_fit.h"

int main(int argc, char** argv) {
  example::IntervalFirstFit allocator(example::LiveEnd::Inclusive);
  return allocsim::allocatorMain(allocator, argc, argv);
}
