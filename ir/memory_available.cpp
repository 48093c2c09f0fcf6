#include "ir/memory_available.h"

#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <new>
#include <sstream>

namespace allocsim {
namespace {

// A field of /proc/self/status ("VmSize:") in bytes, or 0.
uint64_t statusBytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string key;
  uint64_t kb = 0;
  while (in >> key) {
    if (key == field && in >> kb) return kb * 1024;
    std::getline(in, key);
  }
  return 0;
}

uint64_t mappedBytes() { return statusBytes("VmSize:"); }

uint64_t memAvailableBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  while (in >> key) {
    if (key == "MemAvailable:" && in >> kb) return kb * 1024;
    std::getline(in, key);
  }
  return UINT64_MAX;
}

// cgroup v2: memory.max ("max" when unlimited) less memory.current.
uint64_t cgroupLeft() {
  std::ifstream max_in("/sys/fs/cgroup/memory.max"), cur_in("/sys/fs/cgroup/memory.current");
  std::string max_text;
  uint64_t max = 0, cur = 0;
  if (!(max_in >> max_text) || max_text == "max" || !(cur_in >> cur)) return UINT64_MAX;
  std::istringstream(max_text) >> max;
  return max > cur ? max - cur : 0;
}

}  // namespace

MemoryAvailable memoryAvailable() {
  MemoryAvailable m;
  auto consider = [&](uint64_t bytes, const char* what) {
    if (bytes < m.bytes) m.bytes = bytes, m.limited_by = what;
  };
  const uint64_t mapped = mappedBytes();
  rlimit rl{};
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur > mapped ? rl.rlim_cur - mapped : 0, "the address-space limit (ulimit -v)");
  if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    consider(rl.rlim_cur > mapped ? rl.rlim_cur - mapped : 0, "the data-size limit (ulimit -d)");
  consider(cgroupLeft(), "the control group's memory limit");
  consider(memAvailableBytes(), "the memory the system has available");
  return m;
}

uint64_t peakResidentBytes() { return statusBytes("VmHWM:"); }

namespace {
std::atomic<uint64_t> failedAllocation{0};
std::atomic<bool> measuring{false};
MemoryAvailable atFailure;  // what there was when the allocation failed (the report comes after the stack unwound)
bool atFailureKnown = false;
}  // namespace

uint64_t failedAllocationBytes() { return failedAllocation.load(std::memory_order_relaxed); }

void noteFailedAllocation(uint64_t bytes) {
  failedAllocation.store(bytes, std::memory_order_relaxed);
  if (measuring.exchange(true)) return;  // an allocation of the measurement itself failed
  try {
    atFailure = memoryAvailable();
    atFailureKnown = true;
  } catch (const std::bad_alloc&) {
    atFailureKnown = false;
  }
  measuring.store(false);
}

std::string outOfMemoryDetail() {
  const MemoryAvailable m = atFailureKnown ? atFailure : memoryAvailable();
  std::string out = " (";
  if (uint64_t asked = failedAllocationBytes()) out += "asked for " + formatBytes(asked) + "; ";
  if (uint64_t peak = peakResidentBytes()) out += "holding " + formatBytes(peak) + " at the peak; ";
  if (m.bytes == UINT64_MAX) return out + "no limit known)";
  return out + "this process can get " + formatBytes(m.bytes) + " more: " + m.limited_by + ")";
}

std::string formatBytes(uint64_t bytes) {
  static const char* const units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1000 && u < 6) v /= 1000, ++u;
  char buf[32];
  if (u == 0) std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)bytes);
  else std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace allocsim
