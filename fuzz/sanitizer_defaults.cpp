// Sanitizer defaults of every fuzz binary (the libFuzzer targets and the replay programs; fuzz/CMakeLists.txt links
// this file into each), so a campaign, CI's replay ctests and ClusterFuzzLite run alike. ASAN_OPTIONS in the
// environment still overrides them. Without AddressSanitizer nothing calls this function.

// quarantine_size_mb, thread_local_quarantine_size_kb: a freed block stays poisoned (so a use after free is caught)
// until this many bytes were freed after it (1 MB globally, after 64 KB in the thread's own cache). An allocator
// target's execution allocates and frees a few hundred KB, so a block freed by an execution stays poisoned through
// the rest of it and a couple more. ASan's default (256 MB) makes every execution allocate memory the process has not
// touched for a while, and the page faults and cache misses then dominate an execution; a quarantine that fits the
// cache keeps the recycled blocks warm.
//
// malloc_context_size: the frames ASan records for every allocation and free (default 30), to print where a block
// was allocated and freed when a bad access is found. Recording them (unwinding, hashing into the stack depot) is a
// large share of an allocator target's CPU time, the targets allocating about a thousand blocks per execution; at 2
// there is no unwinding (the allocator's frame and its caller's). What is caught is unchanged and the bad access's
// own stack is printed in full; a report's "allocated by" and "freed by" stacks show two frames. Not fewer: at 0 or 1
// LeakSanitizer reports no leak at all (it needs the allocation's caller). A finding reproduces from its file: rerun
// it with ASAN_OPTIONS=malloc_context_size=30 for the whole allocation and free stacks.
//
// allocator_release_to_os_interval_ms=-1: ASan's allocator would give its free pages back to the kernel every few
// seconds (madvise), and the next executions would fault them in again. Kept, they are reused; the process's RSS
// stays at its peak (libFuzzer's -rss_limit_mb still bounds it). What is caught is unchanged.
//
// detect_stack_use_after_return=0: on by default since clang 15 (a function's locals live on a "fake stack" in the
// heap, poisoned when it returns, so that a reference to a returned function's locals is caught), it makes each call
// of a function with an addressed local take a frame from the fake stack and poison its shadow, a measurable share
// of an allocator target's CPU time. Off while fuzzing; on again in the replays that CI and a campaign's end run over
// every corpus input (fuzz/CMakeLists.txt, fuzz/run_campaign.sh: ASAN_OPTIONS in the environment wins), so that each
// path the campaigns reach is run once with it. Never on in the sim target, which runs the SystemC model: SystemC
// switches coroutine stacks without telling ASan, which then reports a SEGV in sim/simulate.cpp on every kernel.
//
// external_symbolizer_path: the llvm-symbolizer CMake found (ALLOCSIM_LLVM_SYMBOLIZER), so that a finding's stack has
// function names and lines; clang 19's runtime did not find Debian's /usr/bin/llvm-symbolizer by itself ("invalid
// path to external symbolizer").
#define ALLOCSIM_ASAN_COMMON "quarantine_size_mb=1:thread_local_quarantine_size_kb=64:malloc_context_size=2:allocator_release_to_os_interval_ms=-1"
#define ALLOCSIM_ASAN_UAR ":detect_stack_use_after_return=0"
#ifdef ALLOCSIM_LLVM_SYMBOLIZER
#define ALLOCSIM_ASAN_SYMBOLIZER ":external_symbolizer_path=" ALLOCSIM_LLVM_SYMBOLIZER
#else
#define ALLOCSIM_ASAN_SYMBOLIZER ""
#endif
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return ALLOCSIM_ASAN_COMMON ALLOCSIM_ASAN_UAR ALLOCSIM_ASAN_SYMBOLIZER;
}

// UndefinedBehaviorSanitizer's stacks, symbolized the same way.
extern "C" __attribute__((visibility("default"), used)) const char* __ubsan_default_options() {
  return "print_stacktrace=1" ALLOCSIM_ASAN_SYMBOLIZER;
}

// LeakSanitizer's suppressions. The sanitizer runtime itself reads a starting thread's stack bounds with
// pthread_getattr_np, whose attribute glibc extends with a heap block (pthread_attr_setaffinity_np) until the runtime
// destroys it a moment later; nothing in this project calls either function (the binaries import
// pthread_getattr_np for the runtime alone). A corpus replay on a busy machine can, rarely and not reproducibly,
// report that block as a leak (a few hundred bytes in `__pthread_attr_extension` and `pthread_attr_setaffinity_np`).
// Most likely a leak check ran while libFuzzer's RSS-limit thread, which it starts with the process,
// was still starting: a thread not yet registered has no stack to scan. A program that keeps such an attribute gives
// the same report, which these lines silence; a leak of anything else is still reported.
extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_suppressions() {
  return "leak:__pthread_attr_extension\nleak:pthread_attr_setaffinity_np\n";
}
