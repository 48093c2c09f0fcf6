// A unit's quantum keeper (Shared::keepQuantum) that reads the kernel's clock only when the unit's clock may be more
// than a quantum ahead of it. SystemC time only moves forward, so the bound taken at the last look (SystemC time
// then plus the quantum) is at most the bound now: a clock within it needs no wait, and any other goes to
// Shared::keepQuantum, which decides on the time now. The waits are keepQuantum's on every clock. A quantum above
// 2^62 cycles (whose sum with the time keepQuantum lets wrap) is not cached: every clock goes to keepQuantum.
#pragma once

#include "sim/shared.h"

namespace allocsim::sim {

class QuantumKeeper {
 public:
  explicit QuantumKeeper(Shared& s) : s_(s) { look(); }
  void keep(uint64_t clock) {
    if (clock <= bound_) return;
    s_.keepQuantum(clock);
    look();
  }

 private:
  void look() {
    constexpr uint64_t kLargest = uint64_t(1) << 62;
    const uint64_t now = s_.now();
    bound_ = s_.quantum <= kLargest && now <= kLargest ? now + s_.quantum : 0;
  }
  Shared& s_;
  uint64_t bound_ = 0;  // SystemC time at the last look plus the quantum; 0: ask every time
};

}  // namespace allocsim::sim
