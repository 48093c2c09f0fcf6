// Physical footprints and the sweep that finds which of them intersect. A footprint is a rectangle: a range on
// the primary axis (SBUF bytes within a partition, PSUM banks, DRAM bytes, register lanes) times a range of
// partitions (SBUF; one dummy row elsewhere). The sweep sorts by primary start, so it compares only items whose
// primary ranges overlap instead of every pair.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace allocsim {

struct Footprint {
  uint32_t item = 0;   // TensorId or RegId
  uint64_t lo = 0;     // primary range [lo, hi)
  uint64_t hi = 0;
  uint64_t part_lo = 0;  // partition range [part_lo, part_hi)
  uint64_t part_hi = 1;
};

// The intersection of two footprints (empty when they do not intersect).
Footprint intersection(const Footprint& a, const Footprint& b);
bool isEmpty(const Footprint& f);

// Every pair of non-empty footprints that intersect, as indices into `fps` (first < second).
std::vector<std::pair<uint32_t, uint32_t>> intersectingPairs(const std::vector<Footprint>& fps);

}  // namespace allocsim
