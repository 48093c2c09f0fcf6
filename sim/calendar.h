// A reservation calendar for a shared resource (the DMA fabric): requests book a window [start, start + length)
// at the earliest free time at or after the time they ask for, and a later request may take an earlier gap
// (unlike a busy-until stamp, which grants in host order and can be wrong by a factor). Windows that ended before `now` are forgotten, so its size is bounded by what is booked ahead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace allocsim::sim {

class ReservationCalendar {
 public:
  // Books the first free window of `length` cycles starting at or after `earliest`; returns its start.
  // `now` is the current time (every booking ending at or before it is dropped first).
  uint64_t reserve(uint64_t now, uint64_t earliest, uint64_t length);
  void clear() { booked_.clear(), head_ = 0; }
  size_t bookings() const { return booked_.size() - head_; }

 private:
  struct Window {
    uint64_t start, end;
  };
  // Disjoint windows by start from head_ on (a sorted array: a few dozen windows are booked ahead, and a tree
  // allocated a node per booking). Windows before head_ have ended; they are dropped in bulk.
  std::vector<Window> booked_;
  size_t head_ = 0;
};

}  // namespace allocsim::sim
