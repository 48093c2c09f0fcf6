// Sanitizer defaults of every fuzz binary (the libFuzzer targets and the replay programs; fuzz/CMakeLists.txt links
// this file into each), so a campaign, CI's replay ctests and ClusterFuzzLite run alike. ASAN_OPTIONS in the
// environment still overrides them. Without AddressSanitizer nothing calls this function.

// quarantine_size_mb, thread_local_quarantine_size_kb: a freed block stays poisoned (so a use after free is caught)
// until this many bytes were freed after it (1 MB globally, after 64 KB in the thread's own cache). An allocator
// target's execution allocates and frees about 360 KB (heaptrack, coloring_driver's corpus of 64-byte inputs: 1,168
// blocks per execution), so a block freed by an execution stays poisoned through the rest of it and about two more.
// ASan's default, 256 MB, made every execution allocate memory the process had not touched for a while: page faults
// and cache misses took half the time of an execution (lsa_driver, one process: 217 executions/s with 256 MB, 467 with
// 16 MB, peak RSS 424 -> 106 MB). At 16 MB the recycled blocks still came back colder than the 1 MB L2 cache: 88 % of
// `__asan::Allocator::Allocate`'s samples were the load of the new block's header, and Allocate alone was 13.6 % of
// coloring_driver's CPU. 1 MB + 64 KB: 1.14x the executions per CPU second of 16 MB (coloring_driver, 10,000 runs
// from the same corpus and seed, three interleaved pairs; docs/fuzzing.md, fifteenth round).
//
// malloc_context_size: the frames ASan records for every allocation and free (default 30), to print where a block
// was allocated and freed when a bad access is found. Recording them (unwinding, hashing into the stack depot) was
// 12-16 % of an allocator target's CPU time at 30 frames (perf: StackDepotBase::Put, Unwind), the targets allocating
// about a thousand blocks per execution, and still 11.5 % at 10; at 2 it is 2.7 % (no unwinding: the allocator's
// frame and its caller's; docs/fuzzing.md, fourth round). What is caught is unchanged and the bad access's own stack
// is printed in full; a report's "allocated by" and "freed by" stacks show two frames. Not fewer: at 0 or 1
// LeakSanitizer reports no leak at all (it needs the allocation's caller). A finding reproduces from its file: rerun
// it with ASAN_OPTIONS=malloc_context_size=30 for the whole allocation and free stacks.
//
// allocator_release_to_os_interval_ms=-1: ASan's allocator gave its free pages back to the kernel every few seconds
// (madvise), and the next executions faulted them in again: 749 madvise calls in 3,000 coloring_driver executions
// (strace -c), 2.4 % of its samples in madvise and more in the page faults after it (perf). Kept, they are reused;
// the process's RSS stays at its peak (libFuzzer's -rss_limit_mb still bounds it). What is caught is unchanged.
//
// detect_stack_use_after_return=0: on by default since clang 15 (a function's locals live on a "fake stack" in the
// heap, poisoned when it returns, so that a reference to a returned function's locals is caught), it cost 1.2x of an
// allocator target's CPU time (coloring_driver's 64-byte corpus replayed three times: 3.57 and 3.64 CPU s with it
// against 2.95 and 3.07 without; dma_opt 2.48 and 2.21 against 2.08 and 2.10; docs/fuzzing.md, seventeenth round):
// each call of a function with an addressed local takes a frame from the fake stack and poisons its shadow. Off
// while fuzzing; on again in the replays that CI and a campaign's end run over every corpus input
// (fuzz/CMakeLists.txt, fuzz/run_campaign.sh: ASAN_OPTIONS in the environment wins), so that each path the
// campaigns reach is run once with it. Never on in the sim target, which runs the SystemC model: SystemC switches
// coroutine stacks without telling ASan, and the sim target died on every kernel with a SEGV in sim/simulate.cpp.
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
// pthread_getattr_np for the runtime alone). CI's best_fit replay reported that block once, under load: 184 bytes in
// `__pthread_attr_extension` and `pthread_attr_setaffinity_np` (2026-12-03; 30 replays under the same load did not
// show it again). Most likely a leak check ran while libFuzzer's RSS-limit thread, which it starts with the process,
// was still starting: a thread not yet registered has no stack to scan. A program that keeps such an attribute gives
// the same report, which these lines silence; a leak of anything else is still reported.
extern "C" __attribute__((visibility("default"), used)) const char* __lsan_default_suppressions() {
  return "leak:__pthread_attr_extension\nleak:pthread_attr_setaffinity_np\n";
}
