// Whether a fuzz target's last execution freed every heap block it allocated: what libFuzzer's leak check looks at.
// After an execution that allocated more blocks than it freed, libFuzzer runs the same input once more
// (Fuzzer::TryDetectingAMemoryLeak) and asks LeakSanitizer for a leak only if that run does too; so that run must do
// the execution's work again, whereas an input identical to the one before it for another reason (a mutation that
// changed nothing) is a case the process just ran, which SeenPrograms skips.
//
// Counted by the sanitizer allocator's hooks (__sanitizer_install_malloc_and_free_hooks, the interface libFuzzer counts
// with), on the thread that runs the target. Without a sanitizer allocator (a gcc replay build) nothing is counted and
// every execution is taken to have left blocks: the input just run always runs again,.
// Each target constructs an ExecutionHeap first thing in LLVMFuzzerTestOneInput, so it spans what libFuzzer's count
// spans: the whole callback, locals' destructors included.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                                         void (*free_hook)(const volatile void*))
    __attribute__((weak));

namespace allocsim::fuzz {

class ExecutionHeap {
 public:
  ExecutionHeap() : mallocs_(counts().mallocs), frees_(counts().frees) { (void)hooksInstalled(); }
  ~ExecutionHeap() {
    previous() = !hooksInstalled() || counts().mallocs - mallocs_ > counts().frees - frees_;
  }
  ExecutionHeap(const ExecutionHeap&) = delete;
  ExecutionHeap& operator=(const ExecutionHeap&) = delete;

  // Whether the execution before the current one left heap blocks (true before the first, and without hooks).
  static bool previousLeftBlocks() { return previous(); }

 private:
  struct Counts {
    uint64_t mallocs = 0;
    uint64_t frees = 0;
  };
  // Per thread: the hooks run on every allocation of every thread, and a shared counter would need an atomic add on
  // each (about 900 per coloring_driver execution).
  static Counts& counts() {
    static thread_local Counts c;
    return c;
  }
  static bool& previous() {
    static bool left = true;
    return left;
  }
  static void onMalloc(const volatile void*, size_t) { ++counts().mallocs; }
  static void onFree(const volatile void*) { ++counts().frees; }
  static bool hooksInstalled() {
    static const bool installed =
        __sanitizer_install_malloc_and_free_hooks && __sanitizer_install_malloc_and_free_hooks(onMalloc, onFree) != 0;
    return installed;
  }

  uint64_t mallocs_;
  uint64_t frees_;
};

}  // namespace allocsim::fuzz
