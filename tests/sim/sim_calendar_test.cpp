// The DMA fabric's reservation calendar (sim/calendar.h) against a plain timeline of busy cycles: every request
// gets the first window of its length at or after the cycle it asks for that no earlier booking covers, a later
// request may take an earlier gap, and forgetting the windows that ended changes nothing for requests made later.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "sim/calendar.h"

namespace allocsim {
namespace {

// The reference: every cycle of every booking, kept forever.
uint64_t firstFree(std::vector<bool>& busy, uint64_t earliest, uint64_t length) {
  for (uint64_t start = earliest;; ++start) {
    if (start + length > busy.size()) busy.resize(start + length + 64, false);
    bool free = true;
    for (uint64_t c = start; c < start + length && free; ++c) free = !busy[c];
    if (!free) continue;
    for (uint64_t c = start; c < start + length; ++c) busy[c] = true;
    return start;
  }
}

TEST(SimCalendar, GrantsTheFirstFreeWindowLikeATimelineOfBusyCycles) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    sim::ReservationCalendar calendar;
    std::vector<bool> busy;
    std::vector<uint64_t> ends;  // of every booking made
    uint64_t now = 0;
    for (int i = 0; i < 400; ++i) {
      now += rng() % 6;  // time moves forward; requests ask for now or later, as the DMA issuer's do
      const uint64_t earliest = now + rng() % 40;
      const uint64_t length = rng() % 5 == 0 ? 0 : 1 + rng() % 25;
      const uint64_t expected = length == 0 ? earliest : firstFree(busy, earliest, length);
      ASSERT_EQ(calendar.reserve(now, earliest, length), expected) << "seed " << seed << " request " << i;
      if (length) ends.push_back(expected + length);
      // It keeps exactly the bookings that have not ended by `now`: bounded by what is booked ahead.
      const size_t ahead = size_t(std::count_if(ends.begin(), ends.end(), [&](uint64_t e) { return e > now; }));
      ASSERT_EQ(calendar.bookings(), ahead) << "seed " << seed << " request " << i;
    }
  }
}

TEST(SimCalendar, ALaterRequestTakesAnEarlierGap) {
  sim::ReservationCalendar calendar;
  EXPECT_EQ(calendar.reserve(0, 0, 10), 0u);    // [0, 10)
  EXPECT_EQ(calendar.reserve(0, 20, 10), 20u);  // [20, 30)
  EXPECT_EQ(calendar.reserve(0, 5, 10), 10u);   // the gap [10, 20) fits exactly
  EXPECT_EQ(calendar.reserve(0, 5, 1), 30u);    // nothing free before 30
  EXPECT_EQ(calendar.reserve(31, 31, 4), 31u);  // everything before 31 has ended
}

}  // namespace
}  // namespace allocsim
