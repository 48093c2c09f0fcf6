#include "alloc/exact/exact_search.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <numeric>
#include <tuple>

#include "ir/plant.h"

namespace allocsim {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t roundUp(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

bool rowsOverlap(uint32_t a, uint32_t an, uint32_t b, uint32_t bn) { return a < b + bn && b < a + an; }

// The time limit ran out while the search was set up (ExactSolver::State).
struct SetupTimeout {};

// The setup's deadline and progress line: check() throws SetupTimeout once the deadline has passed, after telling the
// progress line what is being built (called every few thousand units of work).
struct SetupLimit {
  Clock::time_point deadline;
  const ProgressFn* progress = nullptr;
  void check(const char* phase, uint64_t done) const {
    reportProgress(progress, phase, done, "buffers");
    if (Clock::now() > deadline) throw SetupTimeout();
  }
};

// First fit in a given order: each item at the lowest aligned offset, over its allowed rows, that conflicts with
// nothing placed before it; pinned items first, where they are pinned. Unbounded: the height may exceed the
// capacity. `overlaps[i]`: the items live at a common position with item i (the search's table), so an item costs
// its overlaps, not every item placed before it.
std::vector<ExactPlacement> firstFit(const ExactProblem& p, const std::vector<uint32_t>& order,
                                     const std::vector<std::vector<uint32_t>>& overlaps, const SetupLimit& limit) {
  const size_t n = p.items.size();
  std::vector<ExactPlacement> pl(n);
  // What the placed items occupy, one record per item, so that a look at a neighbour is one memory access, not
  // three (its item, its placement, whether it is placed yet).
  struct Taken {
    uint64_t lo = 0, hi = 0;  // offsets [lo, hi)
    uint32_t row = 0, rows = 0;
    bool placed = false;
  };
  std::vector<Taken> taken(n);
  auto place = [&](uint32_t i, ExactPlacement at) {
    pl[i] = at;
    taken[i] = {at.offset, at.offset + p.items[i].size, at.row, p.items[i].rows, true};
  };
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (uint32_t i = 0; i < n; ++i)
    if (p.items[i].fixed_offset) place(i, {p.items[i].starts[0], *p.items[i].fixed_offset});
  uint32_t done = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    // The order jumps about the items: what the next ones read is fetched ahead, in two steps (their item and
    // overlap list, then what those point to), so that the cache misses overlap instead of following each other.
    if (k + 8 < order.size()) {
      __builtin_prefetch(&p.items[order[k + 8]]);
      __builtin_prefetch(&overlaps[order[k + 8]]);
    }
    if (k + 4 < order.size()) {
      __builtin_prefetch(p.items[order[k + 4]].starts.data());
      for (uint32_t j : overlaps[order[k + 4]]) __builtin_prefetch(&taken[j]);
    }
    const uint32_t i = order[k];
    const ExactItem& it = p.items[i];
    if (it.fixed_offset) continue;
    if (++done % 1024 == 0) limit.check("exact search setup: first fit", done);
    ExactPlacement best{it.starts[0], UINT64_MAX};
    for (uint32_t start : it.starts) {
      busy.clear();
      for (uint32_t j : overlaps[i]) {
        const Taken& t = taken[j];
        if (t.placed && rowsOverlap(start, it.rows, t.row, t.rows)) busy.push_back({t.lo, t.hi});
      }
      std::sort(busy.begin(), busy.end());
      uint64_t off = 0;
      for (auto [lo, hi] : busy) {
        if (off + it.size <= lo) break;
        off = std::max(off, roundUp(hi, it.align));
      }
      if (off < best.offset) best = {start, off};
    }
    place(i, best);
  }
  return pl;
}

// One preorder key per letter, larger first (minimalloc's PreorderingComparator): W width, A area, T total.
struct PreorderKeys {
  uint64_t width = 0, area = 0, total = 0, size = 0;
  uint64_t runs = 0, run_area = 0;  // the width and area in normalized positions (runs of starts and ends)
};

uint64_t preorderKey(const PreorderKeys& k, char letter) {
  switch (letter) {
    case 'W': return k.width;
    case 'A': return k.area;
    case 'T': return k.total;
    case 'Z': return k.size;
    case 'R': return k.runs;
    case 'B': return k.run_area;
  }
  return 0;
}

void preorder(const std::vector<PreorderKeys>& keys, const std::string& letters, std::vector<uint32_t>& order) {
  order.resize(keys.size());
  // The order: each letter's key, larger first, ties ending on the index. A total order, so std::sort gives
  // stable_sort's order without its temporary buffer (a heap allocation per call).
  if (keys.size() >= 1024 && letters.size() <= 3) {
    // Many items: sorted as rows of their own keys, side by side, rather than indices that look their keys up
    // (a cache miss per comparison once the keys outgrow the cache). The same order.
    struct Row {
      uint64_t k[3];
      uint32_t index;
    };
    std::vector<Row> rows(keys.size());
    for (uint32_t i = 0; i < keys.size(); ++i) {
      rows[i].index = i;
      for (size_t l = 0; l < 3; ++l) rows[i].k[l] = l < letters.size() ? preorderKey(keys[i], letters[l]) : 0;
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      if (a.k[0] != b.k[0]) return a.k[0] > b.k[0];
      if (a.k[1] != b.k[1]) return a.k[1] > b.k[1];
      if (a.k[2] != b.k[2]) return a.k[2] > b.k[2];
      return a.index < b.index;
    });
    for (size_t i = 0; i < rows.size(); ++i) order[i] = rows[i].index;
    return;
  }
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    for (char c : letters) {
      const uint64_t x = preorderKey(keys[a], c), y = preorderKey(keys[b], c);
      if (x != y) return x > y;
    }
    return a < b;
  });
}

std::vector<uint32_t> preorder(const std::vector<PreorderKeys>& keys, const std::string& letters) {
  std::vector<uint32_t> order;
  preorder(keys, letters, order);
  return order;
}

// The live ranges renumbered so that each maximal run of starts (no end between them) shares one position, and
// each run of ends too: which items overlap is unchanged, and there is one cross section per run of starts. The
// preorders' widths stay in the caller's positions (program order is the time axis the lifetimes are measured on).
ExactProblem normalized(const ExactProblem& p) {
  ExactProblem q = p;
  // Every segment's ends (the one [first, last] of an item without segments), by reference into q.
  std::vector<uint32_t*> ends;
  std::vector<std::tuple<uint32_t, int, uint32_t>> events;  // (position, 0 = start / 1 = end, index into ends)
  events.reserve(2 * p.items.size());
  for (ExactItem& it : q.items) {
    auto add = [&](uint32_t& first, uint32_t& last) {
      events.push_back({first, 0, uint32_t(ends.size())});
      ends.push_back(&first);
      events.push_back({last, 1, uint32_t(ends.size())});
      ends.push_back(&last);
    };
    if (it.segments.empty()) add(it.first, it.last);
    else
      for (auto& [first, last] : it.segments) add(first, last);
  }
  std::sort(events.begin(), events.end());  // at one position, starts first: both are live there
  uint32_t coord = 0;
  int prev = 0;
  for (auto [pos, kind, e] : events) {
    if (kind == 0 && prev == 1) ++coord;
    *ends[e] = coord;
    prev = kind;
  }
  for (ExactItem& it : q.items)
    if (!it.segments.empty()) it.first = it.segments.front().first, it.last = it.segments.back().second;
  return q;
}

enum class Outcome : uint8_t { Found, NotFound, Aborted, Timeout };


// The depth-first search (see the header). State changes are logged and undone on the way back, so a node costs
// O(items + sections x rows), with no allocation once the arenas have grown.
class Search {
 public:
  // `widths`: each item's live span in the caller's positions (the preorders' W), before normalization.
  // Throws SetupTimeout when the limit's deadline passes while the tables are built.
  Search(const ExactProblem& p, const std::vector<uint64_t>& widths, const SetupLimit& limit) : p_(p) {
    const uint32_t n = uint32_t(p.items.size());
    // Sections: one per distinct first position (of a segment); an item covers the sections whose position it is
    // live at: one range of them, or one per segment. sec_lo_, sec_hi_: the hull of its ranges.
    for (const ExactItem& it : p.items) forEachExactSegment(it, [&](uint32_t first, uint32_t) { section_pos_.push_back(first); });
    std::sort(section_pos_.begin(), section_pos_.end());
    section_pos_.erase(std::unique(section_pos_.begin(), section_pos_.end()), section_pos_.end());
    sections_ = uint32_t(section_pos_.size());
    sec_lo_.resize(n);
    sec_hi_.resize(n);
    section_items_.resize(sections_);
    range_base_.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const ExactItem& it = p.items[i];
      sec_lo_[i] = uint32_t(std::lower_bound(section_pos_.begin(), section_pos_.end(), it.first) - section_pos_.begin());
      sec_hi_[i] = uint32_t(std::upper_bound(section_pos_.begin(), section_pos_.end(), it.last) - section_pos_.begin());
      if (it.segments.empty()) {
        ranges_.push_back({sec_lo_[i], sec_hi_[i]});
      } else {
        for (const auto& [first, last] : it.segments)
          ranges_.push_back(
              {uint32_t(std::lower_bound(section_pos_.begin(), section_pos_.end(), first) - section_pos_.begin()),
               uint32_t(std::upper_bound(section_pos_.begin(), section_pos_.end(), last) - section_pos_.begin())});
      }
      range_base_[i + 1] = uint32_t(ranges_.size());
      forEachSection(i, [&](uint32_t s) { section_items_[s].push_back(i); });
      if (i % 4096 == 0) limit.check("exact search setup: sections", i);
    }
    // Time overlaps, by a sweep over first positions.
    overlaps_.resize(n);
    std::vector<uint32_t> by_first(n);
    std::iota(by_first.begin(), by_first.end(), 0u);
    std::sort(by_first.begin(), by_first.end(), [&](uint32_t a, uint32_t b) { return p.items[a].first < p.items[b].first; });
    uint64_t work = 0;
    const bool touching_apart = ALLOCSIM_PLANT("exact_touching_items_apart");
    for (size_t x = 0; x < n; ++x) {
      for (size_t y = x + 1; y < n && (touching_apart ? p.items[by_first[y]].first < p.items[by_first[x]].last
                                                      : p.items[by_first[y]].first <= p.items[by_first[x]].last);
           ++y) {
        if ((++work & 0xffff) == 0) limit.check("exact search setup: overlaps", x);
        const ExactItem &a = p.items[by_first[x]], &b = p.items[by_first[y]];
        if ((!a.segments.empty() || !b.segments.empty()) && !exactLiveTogether(a, b)) continue;
        overlaps_[by_first[x]].push_back(by_first[y]);
        overlaps_[by_first[y]].push_back(by_first[x]);
      }
    }
    start_base_.resize(n + 1);
    for (uint32_t i = 0; i < n; ++i) start_base_[i + 1] = start_base_[i] + uint32_t(p.items[i].starts.size());
    one_row_ = p.rows == 1;
    stamp_.assign(sections_, 0);
    keys_.resize(n);
    std::vector<uint64_t> sec_total(sections_, 0);
    for (uint32_t i = 0; i < n; ++i)
      forEachSection(i, [&](uint32_t s) { sec_total[s] += p.items[i].size * p.items[i].rows; });
    for (uint32_t i = 0; i < n; ++i) {
      const ExactItem& it = p.items[i];
      keys_[i].width = widths[i];
      keys_[i].size = it.size * it.rows;
      keys_[i].area = keys_[i].size * keys_[i].width;
      keys_[i].runs = uint64_t(it.last - it.first) + 1;
      keys_[i].run_area = keys_[i].size * keys_[i].runs;
      forEachSection(i, [&](uint32_t s) { keys_[i].total = std::max(keys_[i].total, sec_total[s]); });
    }
  }

  const std::vector<PreorderKeys>& keys() const { return keys_; }
  const std::vector<std::vector<uint32_t>>& overlaps() const { return overlaps_; }
  uint64_t nodes() const { return nodes_; }
  // A new solve: its deadline, and its node count from 0 (the capacity is p_'s, set by the owner).
  void restart(Clock::time_point deadline) {
    deadline_ = deadline;
    nodes_ = 0;
  }
  void setProgress(const ProgressFn* progress, std::string phase) {
    progress_ = progress;
    progress_phase_ = std::move(phase);
  }
  const std::vector<ExactPlacement>& solution() const { return solution_; }

  Outcome run(const std::string& letters, uint64_t node_limit) {
    const uint32_t n = uint32_t(p_.items.size());
    letters_ = letters;
    preorder(keys_, letters, order_);
    rank_.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r) rank_[order_[r]] = r;
    placed_.assign(n, 0);
    pos_.assign(n, {});
    minoff_.assign(start_base_[n], 0);
    for (uint32_t i = 0; i < n; ++i)
      if (p_.items[i].fixed_offset) minoff_[start_base_[i]] = *p_.items[i].fixed_offset;
    if (one_row_) {
      floor_.assign(sections_, 0);
      total_.assign(sections_, 0);
      for (uint32_t i = 0; i < n; ++i) forEachSection(i, [&](uint32_t s) { total_[s] += p_.items[i].size; });
      lowest_.assign(sections_, UINT64_MAX);
      for (uint32_t s = 0; s < sections_; ++s) recomputeLowest(s);
    } else {
      top_.assign(size_t(sections_) * p_.rows, 0);
      total_.assign(sections_, 0);
      for (uint32_t i = 0; i < n; ++i)
        forEachSection(i, [&](uint32_t s) { total_[s] += p_.items[i].size * p_.items[i].rows; });
    }
    cuts_.assign(sections_, 0);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t b = sec_lo_[i]; b + 1 < sec_hi_[i]; ++b) ++cuts_[b];
    minoff_log_.clear();
    sec_log_.clear();
    cands_.clear();
    solution_.assign(n, {});
    nodes_left_ = node_limit;
    if (!check(0, 0, sections_)) return Outcome::NotFound;
    return solveParts(0, sections_, order_);
  }

 private:
  struct Cand {
    uint64_t off;
    uint32_t rank;
    uint32_t item;
    uint32_t k;  // index into the item's starts
  };

  // 1-D: the lowest offset an unplaced item of section s can still take (UINT64_MAX: none left). Recomputed only
  // when the item that held the minimum moved up or was placed.
  void recomputeLowest(uint32_t s) {
    // Offsets only grow and items only leave, so the minimum cannot fall below lowest_[s]: an unplaced item still
    // there ends the scan.
    uint64_t low = UINT64_MAX;
    for (uint32_t j : section_items_[s])
      if (!placed_[j]) {
        const uint64_t m = minoff_[start_base_[j]];
        if (m == lowest_[s]) return;
        low = std::min(low, m);
      }
    if (low != lowest_[s]) {
      sec_log_.push_back({uint32_t(2 * sections_ + s), lowest_[s]});
      lowest_[s] = low;
    }
  }

  void markIfLowest(uint32_t j, uint64_t old) {
    forEachSection(j, [&](uint32_t s) {
      if (lowest_[s] == old && stamp_[s] != epoch_) {
        stamp_[s] = epoch_;
        touched_.push_back(s);
      }
    });
  }

  // Calls f(s) for each section item i is live at.
  template <class F>
  void forEachSection(uint32_t i, F&& f) const {
    for (uint32_t k = range_base_[i]; k < range_base_[i + 1]; ++k)
      for (uint32_t s = ranges_[k].first; s < ranges_[k].second; ++s) f(s);
  }

  // Inference over the sections [lo, hi) of the part being searched.
  bool check(uint64_t cur, uint32_t lo, uint32_t hi) const {
    const uint64_t cap = p_.capacity;
    if (one_row_) {
      for (uint32_t s = lo; s < hi; ++s)
        if (std::max({cur, floor_[s], total_[s] ? lowest_[s] : 0}) + total_[s] > cap) return false;
      return true;
    }
    for (uint32_t s = lo; s < hi; ++s) {
      if (total_[s] == 0) continue;
      uint64_t avail = 0;
      const uint64_t* top = &top_[size_t(s) * p_.rows];
      for (uint32_t r = 0; r < p_.rows; ++r) avail += cap - std::min(cap, std::max(cur, top[r]));
      if (avail < total_[s]) return false;
    }
    return true;
  }

  // Places item i at start k, offset off; returns false when a pinned item can no longer be placed.
  bool place(uint32_t i, uint32_t k, uint64_t off, bool& hatless) {
    const ExactItem& it = p_.items[i];
    const uint32_t row = it.starts[k];
    const uint64_t top = off + it.size;
    placed_[i] = 1;
    pos_[i] = {row, off};
    hatless = true;
    bool ok = true;
    ++epoch_;
    touched_.clear();
    for (uint32_t j : overlaps_[i]) {
      if (placed_[j]) continue;
      hatless = false;
      const ExactItem& o = p_.items[j];
      const uint64_t v = ALLOCSIM_PLANT("exact_minimum_offset_unaligned") ? top : roundUp(top, o.align);
      for (uint32_t kk = 0; kk < o.starts.size(); ++kk) {
        if (!rowsOverlap(row, it.rows, o.starts[kk], o.rows)) continue;
        uint64_t& m = minoff_[start_base_[j] + kk];
        if (m >= v) continue;
        minoff_log_.push_back({start_base_[j] + kk, m});
        if (one_row_) markIfLowest(j, m);
        m = v;
        if (o.fixed_offset && v > *o.fixed_offset) ok = false;
      }
    }
    if (one_row_) markIfLowest(i, minoff_[start_base_[i]]);
    forEachSection(i, [&](uint32_t s) {
      if (one_row_) {
        sec_log_.push_back({s, floor_[s]});
        floor_[s] = std::max(floor_[s], top);
        total_[s] -= it.size;
      } else {
        uint64_t* tops = &top_[size_t(s) * p_.rows];
        for (uint32_t r = row; r < row + it.rows; ++r)
          if (tops[r] < top) {
            sec_log_.push_back({uint32_t(sections_ + size_t(s) * p_.rows + r), tops[r]});
            tops[r] = top;
          }
        total_[s] -= it.size * it.rows;
      }
    });
    for (uint32_t s : touched_) recomputeLowest(s);
    return ok;
  }

  void unplace(uint32_t i, size_t minoff_mark, size_t sec_mark) {
    const ExactItem& it = p_.items[i];
    while (sec_log_.size() > sec_mark) {
      auto [idx, old] = sec_log_.back();
      sec_log_.pop_back();
      if (idx < sections_) floor_[idx] = old;
      else if (one_row_) lowest_[idx - 2 * sections_] = old;
      else top_[idx - sections_] = old;
    }
    while (minoff_log_.size() > minoff_mark) {
      auto [idx, old] = minoff_log_.back();
      minoff_log_.pop_back();
      minoff_[idx] = old;
    }
    forEachSection(i, [&](uint32_t s) { total_[s] += it.size * (one_row_ ? 1 : it.rows); });
    placed_[i] = 0;
  }

  // Dynamic decomposition (minimalloc's): where no unplaced item is live across the boundary of two sections, the
  // items on either side no longer constrain each other, so each side is searched on its own (a failure on one
  // side does not make the search enumerate the other side again). `items` are in preorder.
  Outcome solveParts(uint32_t lo, uint32_t hi, const std::vector<uint32_t>& items) {
    uint32_t start = lo;
    for (uint32_t b = lo; b < hi; ++b) {
      if (b + 1 < hi && cuts_[b] != 0) continue;
      // This depth's scratch: `part` is the items of the nodes below, so each depth of parts has its own.
      if (depth_ == parts_.size()) parts_.emplace_back();
      PartScratch& scratch = parts_[depth_];
      std::vector<uint32_t>& sub = scratch.sub;
      sub.clear();
      for (uint32_t i : items)
        if (!placed_[i] && sec_lo_[i] <= b && start < sec_hi_[i]) sub.push_back(i);
      if (!sub.empty()) {
        // The part's own preorder, as minimalloc's SubSolve does: T is the largest remaining total of its sections.
        std::vector<PreorderKeys>& keys = scratch.keys;
        std::vector<uint32_t>& saved = scratch.saved;
        keys.resize(sub.size());
        saved.resize(sub.size());
        for (size_t x = 0; x < sub.size(); ++x) {
          const uint32_t i = sub[x];
          keys[x] = keys_[i];
          keys[x].total = 0;
          forEachSection(i, [&](uint32_t s) {
            if (start <= s && s <= b) keys[x].total = std::max(keys[x].total, total_[s]);
          });
          saved[x] = rank_[i];
        }
        std::vector<uint32_t>& order = scratch.order;
        std::vector<uint32_t>& part = scratch.part;
        preorder(keys, letters_, order);
        part.resize(sub.size());
        for (size_t x = 0; x < order.size(); ++x) {
          part[x] = sub[order[x]];
          rank_[part[x]] = uint32_t(x);
        }
        ++depth_;
        const Outcome o = node(0, 0, start, b + 1, part);
        --depth_;
        for (size_t x = 0; x < sub.size(); ++x) rank_[sub[x]] = saved[x];
        if (o != Outcome::Found) return o;
      }
      start = b + 1;
    }
    return Outcome::Found;
  }

  Outcome node(uint64_t cur, uint32_t last_rank, uint32_t lo, uint32_t hi, const std::vector<uint32_t>& items) {
    if (nodes_left_ == 0) return Outcome::Aborted;
    --nodes_left_;
    if ((++nodes_ & 255) == 0) {
      if (Clock::now() > deadline_) return Outcome::Timeout;
      reportProgress(progress_, progress_phase_.c_str(), nodes_, "nodes");
    }
    // First the lowest top any unplaced item can reach: a candidate at or above it is dominated (see the header), so
    // only the ones below it are collected and sorted.
    uint64_t min_height = UINT64_MAX;
    bool any = false;
    for (uint32_t i : items) {
      if (placed_[i]) continue;
      any = true;
      const ExactItem& it = p_.items[i];
      uint64_t lowest_top = UINT64_MAX;
      for (uint32_t k = 0; k < it.starts.size(); ++k)
        lowest_top = std::min(lowest_top, minoff_[start_base_[i] + k] + it.size);
      if (lowest_top > p_.capacity) return Outcome::NotFound;  // offsets only grow: this item can no longer be placed
      if (!it.fixed_offset) min_height = std::min(min_height, lowest_top);
    }
    if (!any) return Outcome::Found;
    const size_t base = cands_.size();
    for (uint32_t i : items) {
      if (placed_[i]) continue;
      const uint32_t r = rank_[i];
      const ExactItem& it = p_.items[i];
      for (uint32_t k = 0; k < it.starts.size(); ++k) {
        const uint64_t off = minoff_[start_base_[i] + k];
        if (off >= min_height || off + it.size > p_.capacity) continue;
        if (off < cur || (off == cur && r < last_rank)) continue;
        cands_.push_back({off, r, i, k});
      }
    }
    std::sort(cands_.begin() + long(base), cands_.end(), [](const Cand& a, const Cand& b) {
      return a.off != b.off ? a.off < b.off : a.rank != b.rank ? a.rank < b.rank : a.k < b.k;
    });
    Outcome result = Outcome::NotFound;
    for (size_t c = base; c < cands_.size(); ++c) {
      const Cand cand = cands_[c];
      const uint32_t i = cand.item;
      const size_t minoff_mark = minoff_log_.size(), sec_mark = sec_log_.size();
      bool hatless = false;
      Outcome out = Outcome::NotFound;
      const bool ok = place(i, cand.k, cand.off, hatless);
      solution_[i] = pos_[i];
      bool split = false;
      for (uint32_t b = sec_lo_[i]; b + 1 < sec_hi_[i]; ++b) split = --cuts_[b] == 0 || split;
      if (ok && check(cand.off, lo, hi))
        out = split ? solveParts(lo, hi, items) : node(cand.off, cand.rank, lo, hi, items);
      for (uint32_t b = sec_lo_[i]; b + 1 < sec_hi_[i]; ++b) ++cuts_[b];
      unplace(i, minoff_mark, sec_mark);
      if (out != Outcome::NotFound) {
        result = out;
        break;
      }
      if (hatless) break;
    }
    cands_.resize(base);
    return result;
  }

  const ExactProblem& p_;
  Clock::time_point deadline_;
  uint32_t sections_ = 0;
  bool one_row_ = true;
  std::vector<uint32_t> section_pos_, sec_lo_, sec_hi_, start_base_;
  // Item i's sections: the ranges [first, second) of ranges_ from range_base_[i] to range_base_[i + 1].
  std::vector<uint32_t> range_base_;
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;
  std::vector<std::vector<uint32_t>> section_items_, overlaps_;
  std::vector<PreorderKeys> keys_;

  std::string letters_;
  std::vector<uint32_t> order_, rank_;
  std::vector<char> placed_;
  std::vector<ExactPlacement> pos_, solution_;
  std::vector<uint64_t> minoff_, floor_, lowest_, top_, total_;
  std::vector<std::pair<uint32_t, uint64_t>> minoff_log_, sec_log_;
  std::vector<Cand> cands_;
  std::vector<uint32_t> stamp_, touched_, cuts_;
  uint32_t epoch_ = 0;
  // solveParts' vectors, one set per depth of nested parts (a deque: a deeper one added keeps these in place).
  struct PartScratch {
    std::vector<uint32_t> sub, saved, order, part;
    std::vector<PreorderKeys> keys;
  };
  std::deque<PartScratch> parts_;
  size_t depth_ = 0;
  uint64_t nodes_left_ = 0, nodes_ = 0;
  const ProgressFn* progress_ = nullptr;
  std::string progress_phase_;
};

}  // namespace

uint64_t exactTableBytes(const ExactProblem& p) {
  const size_t n = p.items.size();
  std::vector<uint32_t> firsts(n), lasts(n);
  for (size_t i = 0; i < n; ++i) firsts[i] = p.items[i].first, lasts[i] = p.items[i].last;
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<uint32_t> sections = firsts;
  sections.erase(std::unique(sections.begin(), sections.end()), sections.end());
  // Sum over the items of #{values <= last} - #{values < first} for the sorted `values`: the items starting within
  // an item's range (each overlapping pair counted from at least one side), and the sections it covers. Both sums
  // in one merge each, the firsts and lasts being sorted.
  auto inRanges = [&](const std::vector<uint32_t>& values) {
    uint64_t upto = 0, below = 0;
    size_t j = 0;
    for (uint32_t l : lasts) {
      while (j < values.size() && values[j] <= l) ++j;
      upto += j;
    }
    j = 0;
    for (uint32_t f : firsts) {
      while (j < values.size() && values[j] < f) ++j;
      below += j;
    }
    return upto - below;
  };
  const uint64_t pairs = inRanges(firsts), memberships = inRanges(sections);
  // Each overlapping pair is two entries of the overlap lists, each membership one of a section's list; per item
  // a few dozen words of keys, ranks, positions and first-fit placements; per section a list and its sums.
  return 4 * (2 * pairs + memberships) + 256 * uint64_t(n) + 64 * uint64_t(sections.size());
}

const char* exactStatusName(ExactStatus s) {
  switch (s) {
    case ExactStatus::Fit: return "fit";
    case ExactStatus::NoFit: return "no fit";
    case ExactStatus::Unknown: return "unknown";
  }
  return "?";
}

// What does not depend on the capacity is built once per problem: the normalized problem, the search's tables and
// the first-fit placements (sbuf_packing.h asks for a ladder of capacities on one problem).
struct ExactSolver::State {
  State(const ExactProblem& original, const SetupLimit& limit)
      : p(normalized(original)), lower_bound(exactLowerBound(p)), search(p, widthsOf(original), limit) {
    // Best first fit over the preorders and plain size order: a fit at once when one is easy, else the fallback.
    // Out of time after one of them: the best so far (the search then stops at once).
    for (const char* h : {"Z", "WAT", "TAW", "TWA"}) {
      std::vector<ExactPlacement> pl;
      try {
        pl = firstFit(p, preorder(search.keys(), h), search.overlaps(), limit);
      } catch (const SetupTimeout&) {
        if (best.empty()) throw;
        break;
      }
      if (best.empty() || exactHeight(p, pl) < exactHeight(p, best)) {
        best = std::move(pl);
        best_name = std::string("first fit (") + h + ")";
      }
    }
    best_height = exactHeight(p, best);
  }
  static std::vector<uint64_t> widthsOf(const ExactProblem& original) {
    std::vector<uint64_t> widths;
    widths.reserve(original.items.size());
    for (const ExactItem& it : original.items) widths.push_back(uint64_t(it.last - it.first) + 1);
    return widths;
  }

  ExactProblem p;  // normalized; its capacity is the current solve's
  uint64_t lower_bound;
  Search search;   // holds a reference to p
  std::vector<ExactPlacement> best;
  std::string best_name;
  uint64_t best_height = 0;
};

ExactSolver::ExactSolver(const ExactProblem& p, double setup_limit_s, const ProgressFn* progress) {
  const SetupLimit limit{
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(setup_limit_s)),
      progress};
  try {
    state_ = std::make_unique<State>(p, limit);
  } catch (const SetupTimeout&) {
    state_.reset();  // solve() says so
  }
}
ExactSolver::~ExactSolver() = default;

ExactResult ExactSolver::solve(uint64_t capacity, const ExactSearchOptions& o) {
  if (!state_) {
    ExactResult r;
    r.method = "the time limit ran out while the search was set up";
    return r;
  }
  State& st = *state_;
  const ExactProblem& p = st.p;
  st.p.capacity = capacity;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.time_limit_s));
  ExactResult r;
  r.lower_bound = st.lower_bound;
  auto finish = [&](ExactStatus s, const std::vector<ExactPlacement>& pl, std::string method) {
    r.status = s;
    r.placements = pl;
    r.height = exactHeight(p, r.placements);
    r.method = std::move(method);
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
  };
  Search& search = st.search;
  search.restart(deadline);
  const std::vector<ExactPlacement>& best = st.best;
  const std::string& best_name = st.best_name;
  if (!best.empty() && st.best_height <= p.capacity && exactViolation(p, best).empty() && o.greedy_first)
    return finish(ExactStatus::Fit, best, best_name);
  if (p.items.empty()) return finish(ExactStatus::Fit, {}, "nothing to place");
  if (r.lower_bound > p.capacity) return finish(ExactStatus::NoFit, best, "lower bound");
  // minimalloc's three preorders, with widths in the caller's positions, then the same with widths in runs of the
  // normalized positions (R, B): which one leads the search quickly to a fit varies from problem to problem.
  static const char* const heuristics[] = {"WAT", "TAW", "TWA", "RBT", "TBR", "TRB"};
  for (uint64_t limit = p.items.size(); ; ) {
    limit *= 2;
    for (const char* h : heuristics) {
      // The phase's text only when a progress line can print it.
      search.setProgress(o.progress, o.progress ? o.progress_phase + ", preorder " + h + ", node limit " +
                                                      std::to_string(limit)
                                                : std::string());
      const Outcome out = search.run(h, limit);
      r.nodes = search.nodes();
      if (out == Outcome::Found) return finish(ExactStatus::Fit, search.solution(), std::string("search ") + h);
      if (out == Outcome::NotFound) return finish(ExactStatus::NoFit, best, std::string("search ") + h);
      if (out == Outcome::Timeout) return finish(ExactStatus::Unknown, best, best_name);
    }
    if (o.node_budget && search.nodes() >= o.node_budget) return finish(ExactStatus::Unknown, best, best_name);
  }
}

ExactResult solveExact(const ExactProblem& p, const ExactSearchOptions& o) {
  const auto t0 = Clock::now();
  ExactSolver solver(p, o.time_limit_s, o.progress);
  // The setup's time counts against the limit.
  ExactSearchOptions rest = o;
  rest.time_limit_s = std::max(0.0, o.time_limit_s - std::chrono::duration<double>(Clock::now() - t0).count());
  ExactResult r = solver.solve(p.capacity, rest);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace allocsim
