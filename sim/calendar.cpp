#include "sim/calendar.h"

namespace allocsim::sim {

uint64_t ReservationCalendar::reserve(uint64_t now, uint64_t earliest, uint64_t length) {
  while (!booked_.empty() && booked_.begin()->second <= now) booked_.erase(booked_.begin());
  if (length == 0) return earliest;
  uint64_t start = earliest;
  // The booking that starts before `start` may still cover it.
  auto it = booked_.upper_bound(start);
  if (it != booked_.begin()) {
    auto prev = std::prev(it);
    if (prev->second > start) start = prev->second;
  }
  // Walk forward until the gap before the next booking is long enough.
  for (it = booked_.lower_bound(start); it != booked_.end() && it->first < start + length; ++it)
    start = std::max(start, it->second);
  booked_.emplace(start, start + length);
  return start;
}

}  // namespace allocsim::sim
