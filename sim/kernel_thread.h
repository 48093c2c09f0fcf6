// The one thread that runs the SystemC kernel (sim/simulate.h). SystemC's kernel is one per process and not
// thread-safe, and its coroutines switch stacks in a way AddressSanitizer cannot follow: once a thread has run the
// kernel, every later exception thrown on that thread is reported as a stack error (a false positive,
// google/sanitizers#189). Tests, properties, fuzz targets and the allocator harness throw and catch freely, so
// the kernel runs on a thread of its own that throws nothing, and callers on any thread wait for it.
#pragma once

#include <functional>

namespace allocsim::sim {

// Runs `job` on the kernel thread, one job at a time, and returns when it has finished. `job` must not throw
// (catch inside it and hand the exception back, as simulate() does).
void onKernelThread(const std::function<void()>& job);

}  // namespace allocsim::sim
