// Not a fuzz target: the probe of fuzz/leak_check_test.sh, which checks that skipping repeats (fuzz/seen_programs.h,
// fuzz/execution_heap.h) leaves libFuzzer's per-input leak check working. It runs what every allocator target runs
// before its work (an ExecutionHeap, then decodeNewCase: decodeProgram and ranBefore) and then loses a heap block
// when the input starts with 'L'. libFuzzer reruns such an input (the run left a block) and asks LeakSanitizer only if the rerun leaves one
// too: if ranBefore skipped the rerun as a repeat, no per-input leak report (and no leak- artifact) would follow.
#include <cstdint>
#include <cstring>

#include "fuzz/execution_heap.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

namespace {
int* volatile lost = nullptr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;
  if (size > 0 && data[0] == 'L') {
    lost = new int[16];
    std::memset(lost, 1, 16 * sizeof(int));
    lost = nullptr;  // the only pointer to the block: a leak
  }
  return 0;
}
