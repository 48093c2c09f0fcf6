#include "sim/calendar.h"

#include <algorithm>

namespace allocsim::sim {

uint64_t ReservationCalendar::reserve(uint64_t now, uint64_t earliest, uint64_t length) {
  // Windows are disjoint and sorted by start, so by end too: the ended ones are a prefix.
  while (head_ < booked_.size() && booked_[head_].end <= now) ++head_;
  if (head_ >= 32 && head_ * 2 >= booked_.size()) {
    booked_.erase(booked_.begin(), booked_.begin() + ptrdiff_t(head_));
    head_ = 0;
  }
  if (length == 0) return earliest;
  // Nothing booked ends after `earliest` (bookings are disjoint and sorted, so the last ends last): the window
  // starts there and is the last one. The common case, and it needs no search.
  if (head_ == booked_.size() || booked_.back().end <= earliest) {
    booked_.push_back(Window{earliest, earliest + length});
    return earliest;
  }
  const auto first = booked_.begin() + ptrdiff_t(head_);
  auto byStart = [](const Window& w, uint64_t t) { return w.start < t; };
  uint64_t start = earliest;
  // The booking that starts before `start` may still cover it.
  auto it = std::lower_bound(first, booked_.end(), start + 1, byStart);  // the first starting after `start`
  if (it != first && std::prev(it)->end > start) start = std::prev(it)->end;
  // Walk forward until the gap before the next booking is long enough.
  for (it = std::lower_bound(first, booked_.end(), start, byStart); it != booked_.end() && it->start < start + length;
       ++it)
    start = std::max(start, it->end);
  booked_.insert(it, Window{start, start + length});
  return start;
}

}  // namespace allocsim::sim
