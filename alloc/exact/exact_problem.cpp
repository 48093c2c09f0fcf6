#include "alloc/exact/exact_problem.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace allocsim {

bool exactLiveTogether(const ExactItem& a, const ExactItem& b) {
  if (!(a.first <= b.last && b.first <= a.last)) return false;
  if (a.segments.empty() && b.segments.empty()) return true;
  // Both lists ascending: a merge.
  const std::vector<std::pair<uint32_t, uint32_t>> one_a{{a.first, a.last}}, one_b{{b.first, b.last}};
  const auto& sa = a.segments.empty() ? one_a : a.segments;
  const auto& sb = b.segments.empty() ? one_b : b.segments;
  for (size_t x = 0, y = 0; x < sa.size() && y < sb.size();) {
    if (sa[x].first <= sb[y].second && sb[y].first <= sa[x].second) return true;
    if (sa[x].second < sb[y].second) ++x;
    else ++y;
  }
  return false;
}

bool exactConflict(const ExactItem& a, const ExactPlacement& pa, const ExactItem& b, const ExactPlacement& pb) {
  const bool time = exactLiveTogether(a, b);
  const bool rows = pa.row < pb.row + b.rows && pb.row < pa.row + a.rows;
  const bool bytes = pa.offset < pb.offset + b.size && pb.offset < pa.offset + a.size;
  return time && rows && bytes;
}

std::string exactViolation(const ExactProblem& p, const std::vector<ExactPlacement>& pl) {
  if (pl.size() != p.items.size()) return "placement count differs from item count";
  // The first conflict partner of each item (the least later index): only pairs live at a common position can
  // conflict, so a sweep over first positions visits those pairs and no others.
  const size_t n = p.items.size();
  std::vector<size_t> partner(n, SIZE_MAX), by_first(n);
  std::iota(by_first.begin(), by_first.end(), size_t(0));
  std::sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) { return p.items[a].first < p.items[b].first; });
  for (size_t x = 0; x < n; ++x)
    for (size_t y = x + 1; y < n && p.items[by_first[y]].first <= p.items[by_first[x]].last; ++y) {
      const size_t i = std::min(by_first[x], by_first[y]), j = std::max(by_first[x], by_first[y]);
      if (j < partner[i] && exactConflict(p.items[i], pl[i], p.items[j], pl[j])) partner[i] = j;
    }
  for (size_t i = 0; i < n; ++i) {
    const ExactItem& it = p.items[i];
    const std::string name = "item " + std::to_string(i);
    if (pl[i].offset + it.size > p.capacity) return name + " ends beyond the capacity";
    if (pl[i].row + it.rows > p.rows) return name + " ends beyond the last row";
    if (pl[i].offset % it.align != 0) return name + " is misaligned";
    if (std::find(it.starts.begin(), it.starts.end(), pl[i].row) == it.starts.end())
      return name + " starts at a row it may not start at";
    if (it.fixed_offset && *it.fixed_offset != pl[i].offset) return name + " is pinned elsewhere";
    if (partner[i] != SIZE_MAX) return name + " conflicts with item " + std::to_string(partner[i]);
  }
  return "";
}

uint64_t exactRowBlock(const ExactProblem& p) {
  uint64_t g = std::max<uint32_t>(p.rows, 1);
  for (const ExactItem& it : p.items)
    for (uint32_t s : it.starts) g = std::gcd(g, uint64_t(s));
  return g;
}

uint64_t exactAreaBound(const ExactProblem& p, uint64_t block, uint64_t area) {
  const uint64_t blocks = (std::max<uint32_t>(p.rows, 1) + block - 1) / block;
  return (area + blocks - 1) / blocks;
}

uint64_t exactLowerBound(const ExactProblem& p) {
  // Rows come in blocks of g, g dividing every allowed start and the row count (SBUF: the partition quantum). An item
  // starts at a block boundary, so it holds the first row of every block it touches, ceil(rows / g) of them, and two
  // items live together at one offset cannot both hold a block's first row: the area in whole blocks bounds the
  // height over the ceil(row count / g) blocks. g = 1 is the plain area bound; one block (every item starting at row
  // 0) is the peak live size.
  const uint64_t g = exactRowBlock(p);
  std::vector<std::pair<uint32_t, int64_t>> events;  // (position, +area at first / -area after last)
  uint64_t largest = 0;
  for (const ExactItem& it : p.items) {
    const int64_t area = int64_t(exactBlockArea(it, g));
    forEachExactSegment(it, [&](uint32_t first, uint32_t last) {
      events.push_back({first, area});
      events.push_back({last + 1, -area});
    });
    largest = std::max(largest, it.size);
  }
  std::sort(events.begin(), events.end(), [](auto a, auto b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;  // ends first at one position
  });
  int64_t live = 0, peak = 0;
  for (auto [pos, d] : events) {
    live += d;
    peak = std::max(peak, live);
  }
  return std::max(largest, exactAreaBound(p, g, uint64_t(peak)));
}

uint64_t exactHeight(const ExactProblem& p, const std::vector<ExactPlacement>& pl) {
  uint64_t h = 0;
  for (size_t i = 0; i < p.items.size() && i < pl.size(); ++i) h = std::max(h, pl[i].offset + p.items[i].size);
  return h;
}

}  // namespace allocsim
