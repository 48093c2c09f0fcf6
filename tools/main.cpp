#include <cstdlib>
#include <new>

#include "ir/memory_available.h"
#include "tools/cli.h"

// The program's operator new: the default's behaviour (malloc, the new-handler, std::bad_alloc), and the size of a
// request that fails is kept for the out-of-memory report (ir/memory_available.h). The array, nothrow and sized forms
// of the standard library call these two.
void* operator new(std::size_t n) {
  if (n == 0) n = 1;
  for (;;) {
    if (void* p = std::malloc(n)) return p;
    std::new_handler handler = std::get_new_handler();
    if (!handler) {
      allocsim::noteFailedAllocation(n);
      throw std::bad_alloc();
    }
    handler();
  }
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

int main(int argc, char** argv) { return allocsim::cli::run(argc, argv); }
