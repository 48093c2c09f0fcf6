// The placement problem the exact allocator solves (alloc/exact/exact_search.h), stripped of the program: items
// with a live range, a size along the offset axis, an alignment, and a band of rows they span. SBUF: rows =
// partitions, offsets = bytes, an item may start at any allowed row (the partition start quantum); PSUM: one row,
// offsets = banks. A pinned item has one allowed start and a fixed offset. This is minimalloc's problem (one row,
// google/minimalloc) extended to 2-D bands, alignment and pinned placements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace allocsim {

struct ExactItem {
  uint64_t size = 0;   // along the offset axis (bytes or banks), >= 1
  uint64_t align = 1;  // the offset is a multiple of this
  uint32_t first = 0;  // live over positions [first, last], inclusive (alloc/liveness.h)
  uint32_t last = 0;
  // Empty: live at every position of [first, last]. Otherwise live only within these [first, last] segments,
  // ascending, disjoint, non-empty, with first and last their hull (the search over the conflicts certain at one step,
  // alloc/exact/exact_allocator.h, where a tensor is certainly live at steps that are not one run).
  std::vector<std::pair<uint32_t, uint32_t>> segments;
  uint32_t rows = 1;                    // rows spanned, starting at one of `starts`
  std::vector<uint32_t> starts = {0};   // allowed first rows, ascending, non-empty
  std::optional<uint64_t> fixed_offset;  // pinned: placed at (starts[0], *fixed_offset)
};

struct ExactProblem {
  std::vector<ExactItem> items;
  uint64_t capacity = 0;  // offsets + size <= capacity
  uint32_t rows = 1;      // row count (start + rows <= this for every start)
};

struct ExactPlacement {
  uint32_t row = 0;
  uint64_t offset = 0;
  bool operator==(const ExactPlacement&) const = default;
};

// Calls f(first, last) for each segment the item is live over (the one [first, last] when it has no segments).
template <class F>
void forEachExactSegment(const ExactItem& it, F&& f) {
  if (it.segments.empty()) f(it.first, it.last);
  else
    for (const auto& [first, last] : it.segments) f(first, last);
}

// Whether two items are live at a common position.
bool exactLiveTogether(const ExactItem& a, const ExactItem& b);

// Two items conflict when they are live at a common position, share a row and share an offset.
bool exactConflict(const ExactItem& a, const ExactPlacement& pa, const ExactItem& b, const ExactPlacement& pb);

// Every item inside the capacity and rows, aligned, on an allowed start, pinned items where pinned, no two in
// conflict. Returns "" or the first violation (the search's own results are checked with it in the tests).
std::string exactViolation(const ExactProblem& p, const std::vector<ExactPlacement>& placements);

// The area bound: max over positions of the live size x rows, divided by the row count (rounded up), and at least
// the largest item; rows counted in whole blocks of the start quantum (the gcd of the allowed starts and the row
// count), since no two items share a block at one offset. No placement fits in a capacity below it.
uint64_t exactLowerBound(const ExactProblem& p);

// The rows of the problem's blocks in that bound: the gcd of every allowed start and the row count.
uint64_t exactRowBlock(const ExactProblem& p);
// What an item takes of the area in that bound: its size times the blocks it touches.
inline uint64_t exactBlockArea(const ExactItem& it, uint64_t block) { return it.size * ((it.rows + block - 1) / block); }
// The bound from a total of block areas live together: divided over the blocks, rounded up.
uint64_t exactAreaBound(const ExactProblem& p, uint64_t block, uint64_t area);

// max offset + size over the items (0 when there are none).
uint64_t exactHeight(const ExactProblem& p, const std::vector<ExactPlacement>& placements);

}  // namespace allocsim
