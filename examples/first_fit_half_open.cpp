// The example allocator with the half-open live-range bug as a command: first_fit_half_open [IN [OUT]] (examples/interval_first_fit.h).
#include "harness/allocator_main.h"
#include "interval_first_fit.h"

int main(int argc, char** argv) {
  example::IntervalFirstFit allocator(example::LiveEnd::Exclusive);
  return allocsim::allocatorMain(allocator, argc, argv);
}
