// How much more memory this process can get, so that a verb refuses an input that needs more (as a located input
// error: which file, which tensor, how much it asks for, how much there is) instead of running into the allocator's
// "out of memory" midway.
#pragma once

#include <cstdint>
#include <string>

namespace allocsim {

struct MemoryAvailable {
  uint64_t bytes = UINT64_MAX;  // the least of the limits below (UINT64_MAX when none is known)
  std::string limited_by;       // which: "the address-space limit (ulimit -v)", "the memory available", ...
};

// The least of: the address-space limit (RLIMIT_AS) less what the process maps now, the data-segment limit
// (RLIMIT_DATA) likewise, the cgroup's memory.max less its memory.current, and the system's MemAvailable.
MemoryAvailable memoryAvailable();

// The process's peak resident memory (VmHWM), 0 when unknown.
uint64_t peakResidentBytes();

// The size of the last allocation that failed, 0 when none is known: the allocsim program's operator new records it
// (tools/main.cpp) before it throws std::bad_alloc, so that an out-of-memory report says how much was asked for.
uint64_t failedAllocationBytes();
void noteFailedAllocation(uint64_t bytes);

// " (asked for 2.05 GB; holding 1.2 GB at the peak; this process can get 1.1 GB more: the address-space limit
// (ulimit -v))": what a late out-of-memory report adds after the place it names, with what could be got when the
// allocation failed.
std::string outOfMemoryDetail();

// "1.9 GB" style (decimal units, three significant digits), for messages.
std::string formatBytes(uint64_t bytes);

}  // namespace allocsim
