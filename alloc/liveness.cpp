#include "alloc/liveness.h"

#include <algorithm>
#include <span>
#include <unordered_map>

#include "alloc/conditional_runs.h"
#include "alloc/iteration_coverage.h"
#include "alloc/loop_gaps.h"
#include "alloc/operand_effects.h"

namespace allocsim {

bool LiveRange::contains(uint32_t pos) const {
  if (empty() || pos < first || pos > last) return false;
  if (parts.empty()) return true;
  auto it = std::upper_bound(parts.begin(), parts.end(), pos, [](uint32_t x, const Segment& s) { return x < s.first; });
  return it != parts.begin() && std::prev(it)->last >= pos;
}

void LiveRange::add(Segment s) {
  // Cut the parts of `only` that s meets: s is live on every iteration.
  for (size_t i = 0; i < only.size(); ++i) {
    IterationPart& q = only[i];
    if (q.last < s.first || q.first > s.last) continue;
    if (q.last > s.last) {  // the piece after s stays (and before it, when s lies strictly inside)
      IterationPart after = q;
      after.first = s.last + 1;
      if (q.first < s.first) {
        q.last = s.first - 1;
        only.insert(only.begin() + ptrdiff_t(i) + 1, after);
        ++i;
      } else {
        q = after;
      }
    } else if (q.first < s.first) {
      q.last = s.first - 1;
    } else {
      only.erase(only.begin() + ptrdiff_t(i));
      --i;
    }
  }
  if (empty()) {
    first = s.first;
    last = s.last;
    return;
  }
  if (parts.empty()) parts.push_back({first, last});
  // Insert in order of start, then merge the neighbours it meets or touches.
  auto it = std::upper_bound(parts.begin(), parts.end(), s.first, [](uint32_t x, const Segment& y) { return x < y.first; });
  it = parts.insert(it, s);
  size_t i = size_t(it - parts.begin());
  if (i > 0 && parts[i - 1].last + 1 >= parts[i].first) --i;  // merge into the left neighbour
  size_t j = i + 1;
  while (j < parts.size() && parts[i].last + 1 >= parts[j].first) {
    parts[i].last = std::max(parts[i].last, parts[j].last);
    ++j;
  }
  parts.erase(parts.begin() + ptrdiff_t(i) + 1, parts.begin() + ptrdiff_t(j));
  first = parts.front().first;
  last = parts.back().last;
  if (parts.size() == 1) parts.clear();
}

const IterationPart* LiveRange::partAt(uint32_t pos) const {
  auto it = std::upper_bound(only.begin(), only.end(), pos,
                             [](uint32_t x, const IterationPart& q) { return x < q.first; });
  return it != only.begin() && std::prev(it)->last >= pos ? &*std::prev(it) : nullptr;
}

namespace {

// Whether at every position of [from, to] (live in both) the iterations of a and b exclude each other.
bool excludedThroughout(const LiveRange& a, const LiveRange& b, uint32_t from, uint32_t to) {
  for (uint32_t pos = from; pos <= to;) {
    const IterationPart* x = a.partAt(pos);
    const IterationPart* y = b.partAt(pos);
    if (x == nullptr || y == nullptr || !x->excludes(*y)) return false;
    const uint32_t next = std::min(x->last, y->last);
    if (next >= to) return true;
    pos = next + 1;
  }
  return true;
}

}  // namespace

bool interferes(const LiveRange& a, const LiveRange& b) {
  if (a.empty() || b.empty() || a.first > b.last || b.first > a.last) return false;
  if (a.parts.empty() && b.parts.empty() && (a.only.empty() || b.only.empty())) return true;
  const size_t na = a.segmentCount(), nb = b.segmentCount();
  const bool narrowed = !a.only.empty() && !b.only.empty();
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    const Segment x = a.segment(i), y = b.segment(j);
    if (x.first <= y.last && y.first <= x.last &&
        (!narrowed || !excludedThroughout(a, b, std::max(x.first, y.first), std::min(x.last, y.last))))
      return true;
    if (x.last < y.last) ++i;
    else ++j;
  }
  return false;
}

void LiveSum::over(std::vector<int64_t>& delta, uint32_t first, uint32_t last, int64_t w) {
  const size_t n = every_.size() - 1;
  if (first >= n) return;
  delta[first] += w;
  delta[std::min<size_t>(last, n - 1) + 1] -= w;
}

void LiveSum::add(const LiveRange& r, int64_t w) {
  if (r.empty() || w == 0) return;
  for (size_t i = 0; i < r.segmentCount(); ++i) over(every_, r.segment(i).first, r.segment(i).last, w);
  const size_t n = every_.size() - 1;
  for (const IterationPart& q : r.only) {
    if (q.first >= n) continue;
    over(every_, q.first, q.last, -w);
    auto it = std::find_if(keys_.begin(), keys_.end(), [&](const IterationPart& k) {
      return k.loop == q.loop && k.outermost() == q.outermost() && k.last_iteration == q.last_iteration;
    });
    if (it == keys_.end()) it = keys_.insert(keys_.end(), {0, 0, q.loop, q.last_iteration, q.outermost()});
    const uint32_t key = uint32_t(it - keys_.begin());
    changes_.push_back({q.first, key, w});
    changes_.push_back({uint32_t(std::min<size_t>(q.last, n - 1) + 1), key, -w});
  }
}

int64_t LiveSum::max() const {
  // Per key, the loops of its chain, as indexes into `vars`: with the order, every loop from `loop` out to its
  // outermost; without, the chain as one loop of its own (keyed by its two ends).
  std::vector<std::pair<int32_t, int32_t>> vars;  // (loop, outermost); outermost -1 for a loop of the order
  std::vector<std::vector<uint32_t>> chain(keys_.size());
  auto var = [&](int32_t loop, int32_t outermost) {
    const auto v = std::make_pair(loop, outermost);
    auto it = std::find(vars.begin(), vars.end(), v);
    if (it == vars.end()) it = vars.insert(vars.end(), v);
    return uint32_t(it - vars.begin());
  };
  for (size_t k = 0; k < keys_.size(); ++k) {
    const IterationPart& key = keys_[k];
    if (key.outermost() == key.loop) {
      chain[k].push_back(var(key.loop, -1));
    } else if (order_ == nullptr) {
      chain[k].push_back(var(key.loop, key.outermost()));
    } else {
      // A loop of at most one iteration per entry is on its last iteration whenever it runs: not a choice.
      for (int32_t l = key.loop; l >= 0; l = order_->loops[size_t(l)].parent) {
        if (order_->loops[size_t(l)].trips > 1) chain[k].push_back(var(l, -1));
        if (l == key.outermost()) break;
      }
    }
  }
  std::vector<Change> changes = changes_;
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.pos < b.pos; });
  std::vector<int64_t> held(keys_.size(), 0);
  std::vector<uint32_t> active, used;
  // The most the keys held at a position can hold on one iteration: over which of their loops are on their last
  // iteration (each key's chain all on its last, or not). With too many loops to try every choice, all of them.
  auto most = [&]() -> int64_t {
    active.clear();
    used.clear();
    for (uint32_t k = 0; k < keys_.size(); ++k)
      if (held[k] != 0) {
        active.push_back(k);
        for (uint32_t v : chain[k])
          if (std::find(used.begin(), used.end(), v) == used.end()) used.push_back(v);
      }
    int64_t best = 0;
    if (used.size() > 16) {
      for (uint32_t k : active) best += held[k];
      return best;
    }
    for (uint32_t mask = 0; mask < (uint32_t(1) << used.size()); ++mask) {  // bit set: that loop's last iteration
      int64_t sum = 0;
      for (uint32_t k : active) {
        bool all_last = true;
        for (uint32_t v : chain[k]) {
          const size_t bit = size_t(std::find(used.begin(), used.end(), v) - used.begin());
          if ((mask >> bit & 1) == 0) all_last = false;
        }
        if (all_last == keys_[k].last_iteration) sum += held[k];
      }
      best = std::max(best, sum);
    }
    return best;
  };
  int64_t now = 0, peak = 0, parts = 0;
  size_t c = 0;
  for (size_t pos = 0; pos + 1 < every_.size(); ++pos) {
    now += every_[pos];
    bool changed = false;
    for (; c < changes.size() && changes[c].pos == pos; ++c) {
      held[changes[c].key] += changes[c].w;
      changed = true;
    }
    if (changed) parts = most();
    peak = std::max(peak, now + parts);
  }
  return peak;
}

void addOverSegments(std::vector<int64_t>& delta, const LiveRange& r, int64_t w) {
  for (size_t i = 0; i < r.segmentCount(); ++i) {
    const Segment s = r.segment(i);
    delta[s.first] += w;
    delta[size_t(s.last) + 1] -= w;
  }
}

namespace {

// The mentions of one value of a tensor or register, in linear order, reduced to what the rule needs.
struct Mentions {
  uint32_t first = kNone;
  uint32_t last = 0;
  WriteCover first_cover = WriteCover::Partial;  // Partial also when the first mention is a read

  bool empty() const { return first == kNone; }
  void read(uint32_t pos) {
    if (first == kNone) {
      first = pos;
      first_cover = WriteCover::Partial;
    }
    last = std::max(last, pos);
  }
  void write(uint32_t pos, WriteCover cover) {
    if (first == kNone) {
      first = pos;
      first_cover = cover;
    }
    last = std::max(last, pos);
  }
};

// One mention of a tensor: a read, or a write of some cover.
struct Event {
  uint32_t pos = 0;
  bool write = false;
  WriteCover cover = WriteCover::Partial;
  // A write of the whole tensor in conditional code that runs at least once in its outermost loop's one run
  // (alloc/conditional_runs.h, `once`); its cover is Partial.
  bool once = false;
  // With `once`: the iterations of that loop that begin after the write's last run, where no loop inside it begins
  // another one after that run (alloc/conditional_runs.h, `later`); -1 otherwise.
  int64_t later = -1;
  // A read that sees only what the instruction just before it wrote (readsOnlyWhatPrecedes): nothing older.
  bool covered = false;
};

// A conditional instruction's position, the loops on whose last iteration it never runs (ConditionalRuns::skips_last)
// and those on whose last iteration only it runs (ConditionalRuns::only_last).
struct LastIterationRuns {
  uint32_t pos = 0;
  uint64_t skips = 0;  // bit d - 1: the loop around it at depth d
  uint64_t only = 0;   // likewise
};

// The back-edge questions of one tensor, asked of the views once per loop (counted once in the stats).
class CoverageAnswers {
 public:
  CoverageAnswers(const Program& p, const LinearOrder& order, LivenessStats& stats, CoverageCache& cache,
                  std::span<const LastIterationRuns> last_runs)
      : p_(p), order_(order), stats_(stats), cache_(cache), last_runs_(last_runs) {}
  void reset(TensorId t, std::span<const Event> events) {
    t_ = t;
    events_ = events;
    carried_asked_.clear();
    rewrite_asked_.clear();
    reach_asked_.clear();
    run_asked_.clear();
    own_asked_.clear();
  }
  // Whether the tensor's value is carried around `loop`'s back edge (Undecidable counts as carried).
  bool carried(int32_t loop) {
    return memo(carried_asked_, loop, [&] {
      switch (iterationCoverage(p_, order_, t_, loop, cache_)) {
        case IterationCoverage::Covered: ++stats_.per_iteration; return false;
        case IterationCoverage::Carried: ++stats_.carried; return true;
        case IterationCoverage::Undecidable: ++stats_.undecidable; return true;
      }
      return true;
    });
  }
  // Whether an iteration of `loop` other than the first of its run reads what it did not write itself (the back-edge
  // question, for a loop that holds a value's last mention but not its first). Not counted in the stats.
  bool reaches(int32_t loop) {
    return memo(reach_asked_, loop, [&] {
      return !writesIn(loop) || laterIterationCoverage(p_, order_, t_, loop, cache_) != IterationCoverage::Covered;
    });
  }
  // Whether one run of `loop` reads only what the run wrote (alloc/iteration_coverage.h, runCoverage). Not counted
  // in the stats.
  bool readsOwnRun(int32_t loop) {
    return memo(own_asked_, loop,
                [&] { return runCoverage(p_, order_, t_, loop, cache_) == IterationCoverage::Covered; });
  }
  // Whether one run of `loop` writes every element of the tensor and reads only what the run wrote
  // (alloc/iteration_coverage.h, runRewrite). Not counted in the stats.
  bool rewritesInRun(int32_t loop) {
    return memo(run_asked_, loop, [&] { return runRewrite(p_, order_, t_, loop, cache_) == IterationCoverage::Covered; });
  }
  // The conditional positions in [first, last] that skip the last iteration of some loop around them, or run on its
  // last iteration only, in order.
  std::span<const LastIterationRuns> lastIterationRunsIn(uint32_t first, uint32_t last) const {
    auto lo = std::lower_bound(last_runs_.begin(), last_runs_.end(), first,
                               [](const LastIterationRuns& x, uint32_t pos) { return x.pos < pos; });
    auto hi = std::upper_bound(lo, last_runs_.end(), last,
                               [](uint32_t pos, const LastIterationRuns& x) { return pos < x.pos; });
    return {lo, hi};
  }
  // Whether what the tensor holds when `from` runs is never read (alloc/loop_gaps.h; `last`: the value's last
  // mention). Not counted in the stats.
  bool deadBefore(uint32_t from, uint32_t last) { return allocsim::deadBefore(p_, order_, t_, from, last); }
  // Whether an iteration of `loop` can leave something the next one (or the code after the loop) sees: not when
  // every iteration reads only what it wrote and has rewritten the whole tensor by its end (iterationRewrite;
  // Undecidable counts as leaving something). Not counted in the stats.
  bool leaves(int32_t loop) {
    return memo(rewrite_asked_, loop, [&] {
      return !writesIn(loop) || iterationRewrite(p_, order_, t_, loop, cache_) != IterationCoverage::Covered;
    });
  }

 private:
  const Program& p_;
  const LinearOrder& order_;
  LivenessStats& stats_;
  CoverageCache& cache_;
  std::span<const LastIterationRuns> last_runs_;  // by position, ascending
  using Asked = std::vector<std::pair<int32_t, bool>>;  // (loop, answer) pairs, in the order asked
  // The answer `asked` holds for `loop`, or `compute()`'s, kept there: each question is asked once per loop.
  template <class Compute>
  static bool memo(Asked& asked, int32_t loop, Compute compute) {
    for (const auto& [l, c] : asked)
      if (l == loop) return c;
    const bool c = compute();
    asked.push_back({loop, c});
    return c;
  }
  // Whether the tensor is written in `loop`'s body at all (without a write, a read there is never covered).
  bool writesIn(int32_t loop) const {
    const LinearLoop& l = order_.loops[size_t(loop)];
    auto it = std::upper_bound(events_.begin(), events_.end(), l.header,
                               [](uint32_t pos, const Event& e) { return pos < e.pos; });
    for (; it != events_.end() && it->pos < l.end; ++it)
      if (it->write) return true;
    return false;
  }

  TensorId t_ = kNone;
  std::span<const Event> events_;  // the tensor's mentions, in order
  Asked carried_asked_;
  Asked rewrite_asked_;
  Asked reach_asked_;
  Asked run_asked_;
  Asked own_asked_;
};

// Whether the first mention, at `pos`, replaces the whole value on every iteration of common loop `loop`.
bool killsAcross(const LinearOrder& order, const Mentions& m, int32_t loop) {
  switch (m.first_cover) {
    case WriteCover::Whole: return true;
    case WriteCover::WholeOnFirst: return order.positions[m.first].loop != loop;
    case WriteCover::Partial: return false;
  }
  return false;
}

// Whether the value must stay live around common loop `loop`'s back edge (rule 3 in liveness.h). `answers` is
// null for a register.
bool carriedAround(const LinearOrder& order, const Mentions& m, int32_t loop, CoverageAnswers* answers) {
  if (killsAcross(order, m, loop)) return false;  // a whole write first: nothing survives an iteration
  if (answers == nullptr) return true;             // a register read before it is written in the loop
  return answers->carried(loop);
}

// The gap a value leaves in the body of `loop` (rule 5 in liveness.h): a write of the whole tensor k on every
// iteration, directly in the body, that reads nothing of it and follows another mention of the value there. From
// that mention's last run in an iteration (the end of the loop inside the body that holds it, if any) to k, nothing
// is live: what is read before k in an iteration is the previous iteration's k's or older, what is read after it is
// k's. Returns the positions strictly between, or an empty segment (first > last).
Segment loopGap(const LinearOrder& order, std::span<const Event> group, uint32_t last, int32_t loop) {
  const LinearLoop& l = order.loops[size_t(loop)];
  uint32_t before = kNone;  // the latest mention in the body so far
  auto it = std::upper_bound(group.begin(), group.end(), l.header,
                             [](uint32_t pos, const Event& e) { return pos < e.pos; });
  for (; it != group.end(); ++it) {
    const Event& ev = *it;
    if (ev.pos >= l.end || ev.pos > last) break;
    const bool kills = ev.write && ev.cover == WriteCover::Whole && order.positions[ev.pos].loop == loop &&
                       before != kNone && before < ev.pos;
    if (kills) {
      const int32_t inner = order.childIn(before, loop);
      const uint32_t q = inner < 0 ? before : order.loops[size_t(inner)].end;
      return Segment{q + 1, ev.pos - 1};
    }
    before = ev.pos;
  }
  return Segment{1, 0};
}

// The outermost loop strictly inside `loop` whose body holds `pos` and that runs more than once per entry, or -1.
int32_t repeatingIn(const LinearOrder& order, uint32_t pos, int32_t loop) {
  int32_t found = -1;
  for (int32_t l = order.positions[pos].loop; l >= 0 && l != loop; l = order.loops[size_t(l)].parent)
    if (order.loops[size_t(l)].trips > 1) found = l;
  return found;
}

// The gaps of rule 5 in `loop`'s body (-1: the top level) that a walk decides (alloc/loop_gaps.h), added to `gaps`: between two
// consecutive mentions of the value that lie in different parts of the body (not both in one loop directly in it),
// the second starting with a write, from the first one's last run in the iteration (the end of the outermost loop
// around it inside the body that runs more than once; the mention itself when there is none) to the second one's
// first run (likewise, that loop's header), when what the tensor holds at that first run is never read: every read
// from there on, in this iteration, the later ones and after the loop, sees what was written since, until every
// element has been rewritten or the value's last mention is left behind. Then what any position between holds is
// read by nothing.
void walkedGaps(const LinearOrder& order, std::span<const Event> group, uint32_t last, int32_t loop,
                CoverageAnswers& answers, std::vector<Segment>& gaps) {
  const uint32_t header = loop < 0 ? order.start() : order.loops[size_t(loop)].header;
  const uint32_t end = loop < 0 ? order.end() : order.loops[size_t(loop)].end;
  uint32_t before = kNone;
  for (const Event& ev : group) {
    if (ev.pos > last || ev.pos >= end) break;
    if (ev.pos <= header || ev.pos == before) continue;
    if (before != kNone && ev.write) {  // reads come first at a position: the instruction reads none of it
      const int32_t cb = order.childIn(before, loop), ck = order.childIn(ev.pos, loop);
      if (cb < 0 || cb != ck) {
        const int32_t rb = repeatingIn(order, before, loop), rk = repeatingIn(order, ev.pos, loop);
        const uint32_t g1 = rb < 0 ? before : order.loops[size_t(rb)].end;
        const uint32_t g2 = rk < 0 ? ev.pos : order.loops[size_t(rk)].header;
        const bool known = std::any_of(gaps.begin(), gaps.end(),
                                       [&](const Segment& g) { return g.first <= g1 + 1 && g.last + 1 >= g2; });
        if (g1 + 1 < g2 && !known && answers.deadBefore(g2, last)) gaps.push_back({g1 + 1, g2 - 1});
      }
    }
    before = ev.pos;
  }
}

// The last position of `loop`'s body at which the mentions in `group` (up to `last`) run within one iteration of it:
// the latest mention in the body, or the end of the outermost loop inside the body around it that runs more than once
// per entry (loops of one iteration between run it once). kNone when none.
uint32_t lastRunIn(const LinearOrder& order, std::span<const Event> group, uint32_t last, int32_t loop) {
  const LinearLoop& l = order.loops[size_t(loop)];
  uint32_t q = kNone;
  for (const Event& ev : group) {
    if (ev.pos > last || ev.pos >= l.end) break;
    if (ev.pos > l.header) q = ev.pos;
  }
  if (q == kNone) return kNone;
  if (const int32_t inner = repeatingIn(order, q, loop); inner >= 0) q = order.loops[size_t(inner)].end;
  return q;
}

// The last position of `loop`'s body at which the value in `group` (mentions up to `last`) may be read within one
// iteration of it: the latest read in the body (a start@first matmul counts: it reads on its loop's later
// iterations), or the end of the outermost loop inside the body around it that runs more than once per entry. The
// loop's header when nothing in the body reads it.
uint32_t lastReadIn(const LinearOrder& order, std::span<const Event> group, uint32_t last, int32_t loop) {
  const LinearLoop& l = order.loops[size_t(loop)];
  uint32_t q = kNone;
  for (const Event& ev : group) {
    if (ev.pos > last || ev.pos >= l.end) break;
    if (ev.pos > l.header && ((!ev.write && !ev.covered) || ev.cover == WriteCover::WholeOnFirst)) q = ev.pos;
  }
  if (q == kNone) return l.header;
  if (const int32_t inner = repeatingIn(order, q, loop); inner >= 0) q = order.loops[size_t(inner)].end;
  return q;
}

// Whether every mention of the tensor in `loop`'s body, from events[i] on, is a write.
bool writesOnlyIn(const LinearOrder& order, std::span<const Event> events, size_t i, int32_t loop) {
  const uint32_t end = order.loops[size_t(loop)].end;
  for (size_t j = i; j < events.size() && events[j].pos < end; ++j)
    if (!events[j].write) return false;
  return true;
}

// Whether the value in `group` (mentions up to `last`) may be read strictly between positions `from` and `to` (a
// start@first matmul counts, as in lastReadIn).
bool readsBetween(std::span<const Event> group, uint32_t last, uint32_t from, uint32_t to) {
  for (const Event& ev : group) {
    if (ev.pos > last || ev.pos >= to) break;
    if (ev.pos > from && ((!ev.write && !ev.covered) || ev.cover == WriteCover::WholeOnFirst)) return true;
  }
  return false;
}

// The positions of `loop`'s body before `q` (its part's start, "Iterations" in liveness.h) where the value in `group`
// is live on the loop's last iteration only, added to `parts` (as the part after q is: `outer` its chain): between two
// consecutive mentions there, after `floor` (the value's first mention, or the end of a loop inside with a part of its
// own), that lie in different parts of the body, the second a write, when what the tensor holds at the second one's
// first run is never read by the loop (alloc/loop_gaps.h, deadBefore up to the value's last mention in the loop):
// every read in the rest of the iteration sees what was written since, and the next iteration replaces the value
// before it reads any (the loop starts it afresh). Only after the last iteration can the code after the loop read it.
// The bounds are as walkedGaps' (`loop { copy t, x; reg_store t[0:1, 1:1], r; reg_load r, t[0:1, 1:1] }`, t read
// after the loop: between the copy and the reg_store t is live on the last iteration only).
void lastIterationGaps(const LinearOrder& order, std::span<const Event> group, uint32_t last, int32_t loop,
                       uint32_t floor, uint32_t q, int32_t outer, CoverageAnswers& answers,
                       std::vector<IterationPart>& parts) {
  const LinearLoop& l = order.loops[size_t(loop)];
  uint32_t in_loop = kNone;  // the value's last mention in the loop
  for (const Event& ev : group)
    if (ev.pos > l.header && ev.pos < l.end && ev.pos <= last) in_loop = ev.pos;
  if (in_loop == kNone) return;
  uint32_t before = kNone;
  for (const Event& ev : group) {
    if (ev.pos > q || ev.pos > last) break;
    if (ev.pos <= l.header || ev.pos == before) continue;
    if (before != kNone && ev.write && ev.pos > floor) {  // reads come first at a position: it reads none of it
      const int32_t cb = order.childIn(before, loop), ck = order.childIn(ev.pos, loop);
      if (cb < 0 || cb != ck) {
        const int32_t rb = repeatingIn(order, before, loop), rk = repeatingIn(order, ev.pos, loop);
        const uint32_t g1 = std::max(rb < 0 ? before : order.loops[size_t(rb)].end, floor);
        const uint32_t g2 = rk < 0 ? ev.pos : order.loops[size_t(rk)].header;
        if (g1 + 1 < g2 && answers.deadBefore(g2, in_loop)) parts.push_back({g1 + 1, g2 - 1, loop, true, outer});
      }
    }
    before = ev.pos;
  }
}

// The end of the outermost loop of ld[i + 1..] (the loops around a mention, outermost first) that runs more than once
// per entry, or 0 when none does. Only such a loop can hold a part of its own ("Iterations" in liveness.h): a loop of
// one iteration has no other iteration to tell apart, so the part of a loop around it may reach inside it.
uint32_t repeatingEndInside(const LinearOrder& order, const std::vector<int32_t>& ld, size_t i) {
  for (size_t j = i + 1; j < ld.size(); ++j)
    if (order.loops[size_t(ld[j])].trips > 1) return order.loops[size_t(ld[j])].end;
  return 0;
}

// The same part over the loops of its chain that run more than once per entry: a loop of one iteration is always on
// its last, so it decides neither "every loop of the chain on its last iteration" nor "some loop not on its last",
// and the chain's ends shrink to the innermost and outermost loops that do (IterationPart::excludes and LiveSum then
// see the loops that matter). Unchanged when no loop of the chain runs more than once.
IterationPart repeatingChain(const LinearOrder& order, IterationPart q) {
  int32_t inner = -1, outer = -1;
  for (int32_t l = q.loop; l >= 0; l = order.loops[size_t(l)].parent) {
    if (order.loops[size_t(l)].trips > 1) {
      if (inner < 0) inner = l;
      outer = l;
    }
    if (l == q.outermost()) break;
  }
  if (inner < 0) return q;
  q.loop = inner;
  q.outer = outer == inner ? -1 : outer;
  return q;
}

// Adds the segments of one value (rules 1-3 and 5) to `range`, and the positions it holds on some iterations only
// ("Iterations" in liveness.h) to range.only; `group` holds its mentions. `ld` and `lu` are the caller's scratch.
void addSegments(const LinearOrder& order, std::span<const Event> group, const Mentions& m, CoverageAnswers* answers,
                 LiveRange& range, std::vector<int32_t>& ld, std::vector<int32_t>& lu) {
  Segment r{m.first, m.last};
  order.nest(m.first, ld);
  order.nest(m.last, lu);
  size_t common = 0;
  while (common < ld.size() && common < lu.size() && ld[common] == lu[common]) ++common;
  // A value started by a conditional whole write in a loop L that holds no later mention, where nothing in L reads
  // the tensor and the write runs at least once in L's run: the value is the write's last run's (every run replaces
  // the whole tensor, and nothing reads between two runs). When no loop inside L begins another iteration after that
  // run, what runs after it in L is the write's later positions, and every position on the iterations of L that
  // begin after it: with none (`later` 0), the value starts at the write; with one, it is live before the write on
  // L's last iteration only.
  int64_t later = -1;
  if (answers != nullptr && group.front().pos == m.first && group.front().once && common == 0 && !ld.empty() &&
      writesOnlyIn(order, group, 0, ld.front()))
    later = group.front().later;
  // Rule 2, first side: the outermost loop that may run the first mention more than once and can see a value an
  // earlier iteration left before the first mention runs again.
  size_t first_side = kNone;  // the index into ld of the loop it extends over
  for (size_t i = common; i < ld.size() && later != 0; ++i) {
    const LinearLoop& l = order.loops[size_t(ld[i])];
    if (l.trips <= 1) continue;                      // one iteration: nothing is left from an earlier one
    if (m.first_cover == WriteCover::Whole) break;   // rewritten in full on every iteration before any mention
    if (m.first_cover == WriteCover::WholeOnFirst && i + 1 < ld.size()) continue;  // its own loop's first
                                                                                    // iteration rewrites it
    if (answers != nullptr && !answers->leaves(ld[i])) continue;  // rewritten piecewise on every iteration
    r.first = l.header;
    first_side = i;
    break;
  }
  // Rule 2, last side: the outermost loop that runs the last mention again after it first ran, unless each of its
  // iterations reads only what it wrote itself (then nothing is live from one iteration's last mention to the next).
  int32_t last_side = -1;  // the loop it extends over
  for (size_t i = common; i < lu.size(); ++i) {
    const LinearLoop& l = order.loops[size_t(lu[i])];
    if (l.trips <= 1) continue;
    if (answers != nullptr && !answers->reaches(lu[i])) continue;
    r.last = l.end;
    last_side = lu[i];
    break;
  }
  bool carried = false;
  for (size_t i = 0; i < common; ++i) {
    const LinearLoop& l = order.loops[size_t(ld[i])];
    if (l.trips <= 1) continue;  // no back edge is taken
    if (carriedAround(order, m, ld[i], answers)) {
      // Outermost first: this extension covers every inner common loop too.
      r.first = std::min(r.first, l.header);
      r.last = std::max(r.last, l.end);
      carried = true;
      break;
    }
  }
  if (answers == nullptr) {  // a register: no gaps
    range.add(r);
    return;
  }
  // Iterations: positions held on some iterations of a loop only (see liveness.h), where no common loop carries the
  // value around its back edge.
  thread_local std::vector<IterationPart> narrowed;
  narrowed.clear();
  if (later == 1) {  // the header (each iteration's own step) stays live on every iteration
    const uint32_t header = order.loops[size_t(ld.front())].header;
    if (header + 1 < m.first) narrowed.push_back({header + 1, m.first - 1, ld.front(), true});
  }
  if (later == 0 && order.loops[size_t(ld.front())].trips > 1 && answers->leaves(ld.front())) {
    // The last run is on the loop's last iteration: on the others, what the writes leave is replaced by it unread,
    // so after the write only the last iteration holds the value, except at the writes. Not before the end of the
    // next loop inward that runs more than once (its own part, if any, lies there).
    const LinearLoop& l = order.loops[size_t(ld.front())];
    uint32_t q = std::max(m.first, repeatingEndInside(order, ld, 0));
    for (const Event& ev : group) {
      if (ev.pos >= l.end) break;
      if (ev.pos <= q) continue;
      if (q + 1 < ev.pos) narrowed.push_back({q + 1, ev.pos - 1, ld.front(), true});
      q = ev.pos;  // a write: every mention in the loop is one
    }
    if (q < l.end) narrowed.push_back({q + 1, l.end, ld.front(), true});
  }
  if (!carried) {
    // Each loop around the first mention that does not hold the last one, runs more than once and is one whose
    // every iteration starts the value afresh (the loops rule 2 passes over above): only its last iteration's value
    // reaches past it. Nested loops' parts are disjoint: an outer loop's starts after the inner loop's end.
    auto afresh = [&](size_t i) {
      return m.first_cover == WriteCover::Whole || (m.first_cover == WriteCover::WholeOnFirst && i + 1 < ld.size()) ||
             (answers != nullptr && !answers->leaves(ld[i]));
    };
    for (size_t i = common; i < ld.size(); ++i) {
      const LinearLoop& l = order.loops[size_t(ld[i])];
      if (i == first_side || l.trips <= 1) continue;
      if (!afresh(i)) continue;
      // The chain: the loops around L, outward, whose every iteration also starts the value afresh (or that run once)
      // and whose body reads nothing of it after the loop inward: on an iteration of one of them other than its
      // last, nothing after L's last read reads what the value holds then either.
      int32_t outer = -1;
      for (size_t j = i; j-- > common;) {
        const LinearLoop& lj = order.loops[size_t(ld[j])];
        if (lj.trips > 1 && !afresh(j)) break;
        if (readsBetween(group, m.last, order.loops[size_t(ld[j + 1])].end, lj.end)) break;
        outer = ld[j];
      }
      // On an iteration other than the last, nothing reads the value after the iteration's last read: from there on
      // only the last iteration's value is live, except at the writes (a dead store still takes its memory on the
      // others). Not before the end of the next loop inward that runs more than once, so that the parts stay disjoint.
      uint32_t q = std::max(lastReadIn(order, group, m.last, ld[i]), m.first);  // before m.first: other values
      const uint32_t floor = std::max(m.first, repeatingEndInside(order, ld, i));
      q = std::max(q, floor);
      lastIterationGaps(order, group, m.last, ld[i], floor, q, outer, *answers, narrowed);
      for (const Event& ev : group) {
        if (ev.pos > m.last || ev.pos >= l.end) break;
        if (ev.pos <= q) continue;
        if (q + 1 < ev.pos) narrowed.push_back({q + 1, ev.pos - 1, ld[i], true, outer});
        q = ev.pos;  // a write (every read lies at or before q)
      }
      if (q < l.end) narrowed.push_back({q + 1, l.end, ld[i], true, outer});
    }
  }
  if (!carried && last_side >= 0) {
    // The loop rule 2 extends the last mention over: what one iteration leaves is read by the next, but after the
    // last iteration's last mention nothing reads it. So in each loop inside it around the last mention, after the
    // mention's run there: nothing reads the value once every loop from the extended one in to that one is on its
    // last iteration.
    size_t s = common;
    while (lu[s] != last_side) ++s;
    for (size_t k = s; k < lu.size(); ++k) {
      // A loop of one iteration has no part of its own: its body's positions after the mention lie in the part of
      // the loop around it (lastRunIn looks through it).
      if (order.loops[size_t(lu[k])].trips <= 1) continue;
      const uint32_t q = lastRunIn(order, group, m.last, lu[k]);
      if (q != kNone && q < order.loops[size_t(lu[k])].end)
        narrowed.push_back({q + 1, order.loops[size_t(lu[k])].end, lu[k], false, k == s ? -1 : last_side});
    }
  }
  // Rule 5: the gaps of every loop that holds a mention. A gap holds no mention, so no loop that holds one lies
  // inside another loop's gap: the gaps are disjoint.
  thread_local std::vector<int32_t> loops;
  thread_local std::vector<Segment> gaps;
  loops.clear();
  gaps.clear();
  for (const Event& ev : group) {
    if (ev.pos > m.last) break;
    for (int32_t l = order.positions[ev.pos].loop; l >= 0; l = order.loops[size_t(l)].parent) loops.push_back(l);
  }
  std::sort(loops.begin(), loops.end());
  loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
  for (int32_t l : loops) {
    const Segment gap = loopGap(order, group, m.last, l);
    if (gap.first <= gap.last && gap.first > r.first && gap.last < r.last) gaps.push_back(gap);
  }
  loops.push_back(-1);  // the top level's body too
  for (int32_t l : loops) {
    const size_t known = gaps.size();
    walkedGaps(order, group, m.last, l, *answers, gaps);
    gaps.erase(std::remove_if(gaps.begin() + ptrdiff_t(known), gaps.end(),
                              [&](const Segment& g) { return g.first <= r.first || g.last >= r.last; }),
               gaps.end());
  }
  // A part live on the last iteration of its chain only holds nothing at an instruction that never runs on the last
  // iteration of a loop of the chain (`if i == 2` in `loop i = 0, 4`); a part live on every iteration but the last
  // holds nothing at one that runs on the last iteration of every loop of the chain only (`if i == 3`, or `loop j = 0,
  // i % 3` in `loop i = 0, 2`): no step there holds the value.
  for (const IterationPart& q : narrowed) {
    uint64_t chain_depths = 0;
    bool every_depth = true;  // every loop of the chain has a bit
    for (int32_t l = q.loop; l >= 0; l = order.loops[size_t(l)].parent) {
      const uint32_t depth = order.loops[size_t(l)].depth;
      if (depth <= 64) chain_depths |= uint64_t(1) << (depth - 1);
      else every_depth = false;
      if (l == q.outermost()) break;
    }
    for (const LastIterationRuns& x : answers->lastIterationRunsIn(q.first, q.last)) {
      const bool holds_none = q.last_iteration ? (x.skips & chain_depths) != 0
                                               : every_depth && (x.only & chain_depths) == chain_depths;
      if (!holds_none || x.pos <= r.first || x.pos >= r.last) continue;
      if (!gaps.empty() && gaps.back().last + 1 == x.pos) gaps.back().last = x.pos;
      else gaps.push_back({x.pos, x.pos});
    }
  }
  std::sort(gaps.begin(), gaps.end(), [](const Segment& a, const Segment& b) { return a.first < b.first; });
  uint32_t from = r.first;
  for (const Segment& gap : gaps) {  // the walked gaps may overlap the others
    if (gap.first > from) range.add({from, gap.first - 1});
    from = std::max(from, gap.last + 1);
  }
  range.add({from, r.last});
  for (IterationPart& q : narrowed) q = repeatingChain(order, q);
  range.only.insert(range.only.end(), narrowed.begin(), narrowed.end());
}

// Keeps of range.only what lies inside the range's segments, in order (finishing a tensor's range).
void clipParts(LiveRange& range) {
  if (range.only.empty()) return;
  std::vector<IterationPart> kept;
  for (const IterationPart& q : range.only)
    for (size_t i = 0; i < range.segmentCount(); ++i) {
      const Segment s = range.segment(i);
      if (s.last < q.first || s.first > q.last) continue;
      IterationPart piece = q;
      piece.first = std::max(q.first, s.first);
      piece.last = std::min(q.last, s.last);
      kept.push_back(piece);
    }
  std::sort(kept.begin(), kept.end(),
            [](const IterationPart& a, const IterationPart& b) { return a.first < b.first; });
  range.only = std::move(kept);
}

// Whether a full write (cover Whole or WholeOnFirst) at `k` starts a new value of the tensor, whose previous
// mention is at `prev` (<= k). See "Values" in liveness.h.
template <class Answers>
bool startsValue(const LinearOrder& order, uint32_t k, WriteCover cover, uint32_t prev, Answers& answers,
                 std::vector<int32_t>& chain) {
  if (prev == k) return false;  // an in-place update (`tt a, a, b`): one value, updated where it lies
  order.nest(k, chain);
  // An earlier mention lies in loop L's body exactly when the latest one does: prev <= k < L.end.
  auto holdsEarlier = [&](int32_t l) { return prev > order.loops[size_t(l)].header; };
  if (cover == WriteCover::WholeOnFirst && !chain.empty() && holdsEarlier(chain.back())) return false;
  for (int32_t l : chain)
    if (holdsEarlier(l) && answers.carried(l)) return false;
  return true;
}

// The back-edge question for a register (rule 3): it is carried around loop L unless its first mention in L's body
// is a write of the whole register that runs on every iteration (not inside a block), before any read there.
class RegisterAnswers {
 public:
  RegisterAnswers(const LinearOrder& order, const std::vector<Event>& events) : order_(order), events_(events) {}
  bool carried(int32_t loop) const {
    const LinearLoop& l = order_.loops[size_t(loop)];
    auto it = std::upper_bound(events_.begin(), events_.end(), l.header,
                               [](uint32_t pos, const Event& e) { return pos < e.pos; });
    return it == events_.end() || it->pos >= l.end || !it->write || it->cover != WriteCover::Whole;
  }

 private:
  const LinearOrder& order_;
  const std::vector<Event>& events_;
};

// The value of an index whose only register, if any, is `reg`, holding `v` (>= 0); false when it names another
// register or its value leaves int64_t.
bool indexAt(const Index& idx, RegId reg, int64_t v, int64_t& out) {
  __int128 sum = idx.constant;
  for (const IndexTerm& term : idx.terms) {
    if (reg == kNone || term.reg != reg || v < 0) return false;
    sum += __int128(term.scale) * __int128(term.apply(uint64_t(v)));
    if (sum > INT64_MAX || sum < INT64_MIN) return false;
  }
  out = int64_t(sum);
  return true;
}

// The elements of one tensor some writes have covered, for partialStartsValue.
class WrittenElements {
 public:
  // False when the tensor is too large to be worth tracking.
  bool reset(const Tensor& t) {
    partitions_ = t.partitions;
    elements_ = t.elements;
    if (uint64_t(partitions_) * elements_ > (uint64_t(1) << 18)) return false;
    bits_.assign(size_t(partitions_) * elements_, false);
    marked_ = 0;
    return true;
  }
  // Whether every element of the tensor is marked.
  bool complete() const { return marked_ == bits_.size(); }
  // Marks (write) or tests (!write) the elements of a view whose indexes name no register but `reg`, which holds `v`
  // (kNone: none); false when the view names another register or leaves the tensor, or (a test) when some element is
  // not marked.
  bool visit(const AccessPattern& ap, bool write, RegId reg = kNone, int64_t v = 0) {
    int64_t part_at = 0, off_at = 0;
    if (!indexAt(ap.partition, reg, v, part_at) || !indexAt(ap.offset, reg, v, off_at) || part_at < 0 || off_at < 0)
      return false;
    const uint64_t part = uint64_t(part_at), off = uint64_t(off_at);
    if (part + ap.partitions > partitions_) return false;
    if (ap.count2 > 0 && ap.count > 0 && off + uint64_t(ap.count2 - 1) * ap.step2 + ap.count > elements_) return false;
    for (uint64_t q = part; q < part + ap.partitions; ++q)
      for (uint64_t j = 0; j < ap.count2; ++j)
        for (uint64_t e = off + j * ap.step2; e < off + j * ap.step2 + ap.count; ++e) {
          const size_t at = size_t(q * elements_ + e);
          if (!bits_[at]) {
            if (!write) return false;
            bits_[at] = true;
            ++marked_;
          }
        }
    return true;
  }

 private:
  uint32_t partitions_ = 0;
  uint32_t elements_ = 0;
  std::vector<bool> bits_;
  size_t marked_ = 0;  // elements of bits_ set
};

// How many instructions partialStartsValue looks at after the write before it gives up (and keeps one value): the
// question is asked of every partial write, so a tensor written piecewise many times stays linear.
constexpr uint32_t kPartialLookahead = 64;

// Whether the partial write that events[i] records (at position k, on every execution of its block) leaves nothing
// of the value before it to be read. The later mentions of the tensor are walked in order, up to the next write of the
// whole tensor or up to the write that completes, with k and the writes between, a write of every element; each read
// must see only elements written at or after k:
//  - in the body of k's innermost loop K: directly in it (no block between), every iteration of K from k's first run
//    on, one after another, with K's register bound to its value in views (a view naming any other register fails);
//    when K also holds a mention before k, each iteration's run of k is walked on its own (what it marks is forgotten
//    at the next: that mention's writes come between) and every one must pass, the last one's going on after K;
//  - then, after K, directly in the body around K, views naming no register;
//  - a mention inside a loop L nested in the body walked (L not holding k): one run of L must read only what the run
//    wrote (alloc/iteration_coverage.h, runCoverage): then L reads nothing older than itself, and what its writes
//    directly in its body cover on every iteration is marked. Otherwise, where the body walked binds no register,
//    L's iterations are walked one after another as K's are, L's register bound in views: each read must see what
//    is marked, and L's writes are marked.
// Any other mention (in a block, outside the body around K) fails. Then k starts a new value (if no loop carries the
// tensor: startsValue).
bool partialStartsValue(const Program& p, const LinearOrder& order, TensorId t, std::span<const Event> events,
                        size_t i, uint32_t prev, WrittenElements& written, CoverageAnswers& coverage) {
  const uint32_t k = events[i].pos;
  const int32_t loop = order.positions[k].loop;
  if (!written.reset(p.tensors[t])) return false;
  enum class Step : uint8_t { Next, Starts, Fails };
  uint32_t visited = 0;
  // Walks events[from, to), all inside `body`'s body (-1: the top level), with `reg` = v in views; `again`: a repeated
  // iteration of k's loop (k's own reads are tested too).
  // Walks one run of loop `l`, nested in the body walked and holding events[first, last], its iterations one after
  // another with its register bound in views (views naming `reg`, the walk's own, fail): each read must see what was
  // marked before the loop or what the run has written so far.
  auto walkRun = [&](auto& self, size_t first, size_t last, int32_t l) -> Step {
    const LinearLoop& in = order.loops[size_t(l)];
    if (in.trips == 0 || in.trips > kPartialLookahead || in.inst->lo < 0) return Step::Fails;
    for (uint64_t x = 0; x < in.trips; ++x) {
      const Step s = self(self, first, last + 1, l, in.inst->rd, in.inst->lo + int64_t(x) * in.inst->step, false);
      if (s != Step::Next) return s;
    }
    return Step::Next;
  };
  auto walk = [&](auto& self, size_t from, size_t to, int32_t body, RegId reg, int64_t v, bool again) -> Step {
    uint32_t last = kNone;
    for (size_t j = from; j < to; ++j) {
      const uint32_t pos = events[j].pos;
      if (pos == last) continue;  // the instruction was visited whole
      last = pos;
      if (++visited > kPartialLookahead) return Step::Fails;
      const LinearPosition& at = order.positions[pos];
      if (at.kind != LinearPosition::Kind::Instruction || at.conditional) return Step::Fails;
      if (at.loop != body) {
        // Inside a loop L nested in `body`: L reads only what each of its iterations wrote; or else, where `body`'s
        // views name no register, one run of L, walked as k's loop is, reads only what is marked or what the run wrote
        // (`matmul a[:, 0:64], .., start; loop { matmul a[:, 0:64], .. }`: the loop accumulates into k's elements).
        const int32_t l = order.childIn(pos, body);  // at.loop != body: -1 is outside the body
        if (l < 0) return Step::Fails;
        const LinearLoop& inner = order.loops[size_t(l)];
        const size_t first = j;
        while (j + 1 < to && events[j + 1].pos < inner.end) ++j;
        if (!coverage.readsOwnRun(l)) {
          if (reg != kNone) return Step::Fails;  // views could name two loops' registers
          const Step s = walkRun(self, first, j, l);
          if (s != Step::Next) return s;
          continue;
        }
        // What L's writes directly in its body cover, on every one of its iterations (it runs whenever `body` does).
        if (order.positions[inner.header].conditional || inner.trips > kPartialLookahead || inner.inst->lo < 0)
          continue;
        for (uint64_t x = 0; x < inner.trips; ++x)
          for (size_t q = first; q <= j; ++q) {
            const LinearPosition& in = order.positions[events[q].pos];
            if (!events[q].write || in.loop != l || in.conditional) continue;
            if (++visited > kPartialLookahead) return Step::Fails;
            const OperandViews iv = operandViews(*in.inst);
            for (const AccessPattern* ap : {iv.write, iv.reduce_write})
              if (ap != nullptr && ap->tensor == t)  // a view naming another register marks nothing
                written.visit(*ap, true, inner.inst->rd, inner.inst->lo + int64_t(x) * inner.inst->step);
          }
        if (written.complete()) return Step::Starts;
        continue;
      }
      const OperandViews ov = operandViews(*at.inst);
      if (pos != k || again) {
        for (const AccessPattern* ap : ov.reads)
          if (ap->tensor == t && !written.visit(*ap, false, reg, v)) return Step::Fails;
        if (ov.accumulates && ov.write && ov.write->tensor == t && at.inst->start != When::Always &&
            !written.visit(*ov.write, false, reg, v))
          return Step::Fails;
      }
      if (pos != k && events[j].write && events[j].cover == WriteCover::Whole) return Step::Starts;  // replaced whole
      for (const AccessPattern* ap : {ov.write, ov.reduce_write})
        if (ap != nullptr && ap->tensor == t && !written.visit(*ap, true, reg, v)) return Step::Fails;
      if (written.complete()) return Step::Starts;  // replaced piecewise: what is read from here on was written from k on
    }
    return Step::Next;
  };
  if (loop < 0) return walk(walk, i, events.size(), -1, kNone, 0, false) != Step::Fails;
  const LinearLoop& l = order.loops[size_t(loop)];
  if (l.trips == 0 || l.trips > kPartialLookahead || l.inst->lo < 0) return false;
  size_t after = i;  // the first mention past K
  while (after < events.size() && events[after].pos < l.end) ++after;
  // When K holds an earlier mention, that mention's writes on the next iteration land in the value before k, so each
  // iteration's run of k starts afresh: every run must leave nothing of the old value to be read, the last one up to
  // the mentions after K (a run that covers every element settles its own iteration only: `loop i { memset t, 0;
  // reg_store t[:, i:2], x; reg_store t[:, 2:2], x }` covers t on i = 0, while after the last iteration t holds the
  // memset's zeros where the stores did not land). Otherwise every mention from k's first run on is k's value, and
  // the iterations are walked as one sequence.
  const bool forget = prev > l.header;  // K holds an earlier mention
  Step s = Step::Next;
  for (uint64_t x = 0; x < l.trips; ++x) {
    if (forget && x > 0) written.reset(p.tensors[t]);
    s = walk(walk, i, after, loop, l.inst->rd, l.inst->lo + int64_t(x) * l.inst->step, x > 0 && !forget);
    if (s == Step::Fails) return false;
    if (s == Step::Starts && !forget) return true;
  }
  if (s == Step::Starts) return true;
  // After K: the rest of the body around it.
  const int32_t outer = l.parent;
  size_t to = after;
  const uint32_t outer_end = outer < 0 ? kNone : order.loops[size_t(outer)].end;
  while (to < events.size() && events[to].pos < outer_end) ++to;
  if (to < events.size()) return false;  // a mention outside the body around K
  return walk(walk, after, to, outer, kNone, 0, false) != Step::Fails;
}

// Adds the range of one value, whose mentions are `group` (summed up in `m`). Writes after the value's last read
// that no later iteration's read can see (no loop that runs more than once holds both) and that read nothing
// themselves are dead stores: each is live at its own position only, and the value's segment ends at its last read.
void addValue(const LinearOrder& order, std::span<const Event> group, Mentions m, CoverageAnswers* coverage,
              LiveRange& range, std::vector<int32_t>& ld, std::vector<int32_t>& lu) {
  size_t k = group.size();  // group[k..]: the writes after the last read (reads come before writes at a position)
  while (k > 0 && (group[k - 1].write || group[k - 1].covered)) --k;
  // The writes at the last read's position (an update in place) end the segment with it.
  if (k > 0)
    while (k < group.size() && group[k].pos == group[k - 1].pos) ++k;
  if (k < group.size()) {
    // A start@first matmul reads its accumulator on its loop's later iterations: no dead store.
    bool dead = std::none_of(group.begin() + ptrdiff_t(k), group.end(),
                             [](const Event& e) { return e.cover == WriteCover::WholeOnFirst; });
    if (dead && k > 0) {
      order.nest(group[k - 1].pos, ld);
      order.nest(group[k].pos, lu);
      for (size_t i = 0; i < ld.size() && i < lu.size() && ld[i] == lu[i]; ++i)
        if (order.loops[size_t(ld[i])].trips > 1) dead = false;
    }
    if (dead) {
      for (size_t i = k; i < group.size(); ++i) range.add({group[i].pos, group[i].pos});
      if (k == 0) return;  // never read: nothing but the stores
      m.last = group[k - 1].pos;
    }
  }
  addSegments(order, group, m, coverage, range, ld, lu);
}

// A tensor's program and id, for the partial writes that start values (registers have none).
struct TensorOf {
  const Program* p = nullptr;
  TensorId t = kNone;
  WrittenElements* written = nullptr;
};

// The outermost loop L around the write that events[i] records, when L holds no earlier mention of the tensor (the
// previous one is at `prev`): events[i] is the first mention in L. -1 otherwise.
int32_t firstInLoop(const LinearOrder& order, std::span<const Event> events, size_t i, uint32_t prev,
                    std::vector<int32_t>& chain) {
  order.nest(events[i].pos, chain);
  if (chain.empty()) return -1;
  return prev > order.loops[size_t(chain.front())].header ? -1 : chain.front();
}

// Whether the write that events[i] records, the first mention in a loop L that firstInLoop finds, starts a value:
// one run of L writes every element and reads only what the run wrote (a tensor replaced piecewise by a loop, read
// back or accumulated into in the loop or not: alloc/iteration_coverage.h, runRewrite), or it is a conditional whole
// write that runs at least once in L's run (`once`) and L only writes the tensor. Either way L runs once, overwrites
// every element at least once before its end, and reads nothing older than itself: neither what is read in L nor
// what is read after it is older than L.
bool loopStartsValue(const LinearOrder& order, std::span<const Event> events, size_t i, uint32_t prev,
                     CoverageAnswers& coverage, std::vector<int32_t>& chain) {
  const int32_t loop = firstInLoop(order, events, i, prev, chain);
  if (loop < 0) return false;
  return (events[i].once && writesOnlyIn(order, events, i, loop)) || coverage.rewritesInRun(loop);
}

// Whether the instruction at `pos` is a matmul that accumulates into a partial view of `t` with start@first, in a loop,
// and reads `t` through no other operand: its read of `t` is its accumulator's, on its loop's later iterations only.
bool firstRunAccumulator(const Program& p, const LinearOrder& order, TensorId t, uint32_t pos) {
  const LinearPosition& at = order.positions[pos];
  if (at.kind != LinearPosition::Kind::Instruction || at.loop < 0 || at.inst->start != When::First) return false;
  const OperandViews ov = operandViews(*at.inst);
  if (!ov.accumulates || ov.write == nullptr || ov.write->tensor != t) return false;
  (void)p;
  return std::none_of(ov.reads.begin(), ov.reads.end(), [&](const AccessPattern* ap) { return ap->tensor == t; }) &&
         (ov.reduce_write == nullptr || ov.reduce_write->tensor != t);
}

// Cuts one tensor's or register's mentions (in order) into values and adds their segments to `range` (the rules in
// liveness.h); `starts` gets the positions of the writes that start the second, third, ... value.
template <class Answers>
void valuesOf(const LinearOrder& order, std::span<const Event> events, Answers& answers, CoverageAnswers* coverage,
              LiveRange& range, std::vector<uint32_t>* starts, std::vector<int32_t>& ld, std::vector<int32_t>& lu,
              std::vector<int32_t>& chain, TensorOf tensor = {}) {
  Mentions m;
  uint32_t prev = 0;
  size_t begin = 0;  // the current value's first event
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& ev = events[i];
    // The write whose start is decided here: this event's, or the write of a partial start@first matmul whose only read
    // of the tensor this is (its accumulator, read on the later iterations of its loop only: then the read belongs to
    // the value the write starts).
    size_t w = i;
    if (!ev.write && tensor.p != nullptr && prev < ev.pos && firstRunAccumulator(*tensor.p, order, tensor.t, ev.pos))
      while (w + 1 < events.size() && events[w + 1].pos == ev.pos && !events[w].write) ++w;
    const Event& wr = events[w];
    const bool starts_one =
        wr.write && !m.empty() && (w == i || wr.cover == WriteCover::Partial) &&
        (wr.cover != WriteCover::Partial ||
         (coverage != nullptr && loopStartsValue(order, events, w, prev, *coverage, chain)) ||
         (tensor.p != nullptr && coverage != nullptr && prev < wr.pos && !order.positions[wr.pos].conditional &&
          partialStartsValue(*tensor.p, order, tensor.t, events, w, prev, *tensor.written, *coverage)));
    if (starts_one && startsValue(order, wr.pos, wr.cover, prev, answers, chain)) {
      addValue(order, events.subspan(begin, i - begin), m, coverage, range, ld, lu);
      if (starts) starts->push_back(wr.pos);
      m = Mentions{};
      begin = i;
    }
    if (ev.write) m.write(ev.pos, ev.cover);
    else m.read(ev.pos);
    prev = ev.pos;
  }
  if (!m.empty()) addValue(order, events.subspan(begin), m, coverage, range, ld, lu);
}

// Whether the instruction at position `r` reads tensor `t` only through views that the instruction at `r - 1` wrote
// just before it (`reg_store t[v], x` then `reg_load y, t[v]`): both unconditional instructions, every view of `t` the
// reader reads equal to one the writer writes, not accumulating, whose registers the writer does not write (nothing
// runs between the two). The read then sees only what that write wrote: nothing of the value before it, and nothing
// that outlives the pair. `e` is the caller's scratch.
bool readsOnlyWhatPrecedes(const Program& p, const LinearOrder& order, TensorId t, uint32_t r, OperandEffects& e) {
  if (r == 0) return false;
  const LinearPosition& wa = order.positions[r - 1];
  const LinearPosition& ra = order.positions[r];
  if (wa.kind != LinearPosition::Kind::Instruction || ra.kind != LinearPosition::Kind::Instruction ||
      wa.conditional || ra.conditional || !wa.executes || !ra.executes)
    return false;
  const OperandViews wv = operandViews(*wa.inst);
  if (wv.accumulates) return false;
  const OperandViews rv = operandViews(*ra.inst);
  for (const AccessPattern* ap : {rv.write, rv.reduce_write})
    if (ap != nullptr && ap->tensor == t) return false;
  operandEffects(p, *wa.inst, e);
  auto written = [&](const AccessPattern& ap) {
    for (const AccessPattern* w : {wv.write, wv.reduce_write})
      if (w != nullptr && *w == ap) {
        for (RegId reg : e.reg_writes)
          if (ap.partition.uses(reg) || ap.offset.uses(reg)) return false;
        return true;
      }
    return false;
  };
  bool any = false;
  for (const AccessPattern* ap : rv.reads)
    if (ap->tensor == t) {
      if (!written(*ap)) return false;
      any = true;
    }
  return any;  // a read of t the views do not show is not looked at
}

}  // namespace

Liveness computeLiveness(const Program& p) {
  Liveness live;
  live.order = linearize(p);
  const LinearOrder& order = live.order;
  // Every tensor mention, in order of position, filed by tensor below (a counting sort keeps each tensor's in
  // order). The thread's, as e below.
  struct Filed {
    TensorId t;
    Event ev;
  };
  thread_local std::vector<Filed> filed;
  thread_local std::vector<std::vector<Event>> regs;  // by RegId, in order of position (reads before writes)
  filed.clear();
  regs.resize(p.registers.size());
  for (std::vector<Event>& r : regs) r.clear();
  auto readReg = [&](RegId r, uint32_t pos) { regs[r].push_back({pos, false, WriteCover::Partial}); };
  auto writeReg = [&](RegId r, uint32_t pos, WriteCover cover) { regs[r].push_back({pos, true, cover}); };
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].input) filed.push_back({t, {order.start(), true, WriteCover::Whole}});
  // The thread's: its vectors keep their room from one instruction, and one call, to the next (liveness is computed
  // several times per allocation).
  thread_local OperandEffects e;
  // Conditional code that the loop registers make run for certain (alloc/conditional_runs.h).
  const bool any_conditional = std::any_of(order.positions.begin(), order.positions.end(),
                                           [](const LinearPosition& at) { return at.conditional; });
  const std::unordered_map<const Instruction*, ConditionalRuns> runs =
      any_conditional ? conditionalRuns(p) : std::unordered_map<const Instruction*, ConditionalRuns>{};
  thread_local std::vector<LastIterationRuns> last_runs;  // the thread's, as e
  last_runs.clear();
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.executes || at.inst == nullptr) continue;
    // A write inside an if's body may not run: it never replaces the whole value (starts none, kills nothing).
    const WriteCover whole = at.conditional ? WriteCover::Partial : WriteCover::Whole;
    if (at.kind == LinearPosition::Kind::LoopHeader || at.kind == LinearPosition::Kind::LoopEnd) {
      if (at.kind == LinearPosition::Kind::LoopHeader)  // a register bound is read on entry
        for (const IndexTerm& t : at.inst->rare->mask.c.terms)
          if (t.reg < regs.size()) readReg(t.reg, pos);
      // The end steps the register from its value (a read, then the write of the next or the exit value): the value
      // the header starts lives over the whole loop.
      if (at.kind == LinearPosition::Kind::LoopEnd && at.inst->rd < regs.size()) readReg(at.inst->rd, pos);
      if (at.inst->rd < regs.size()) writeReg(at.inst->rd, pos, whole);
      continue;
    }
    operandEffects(p, *at.inst, e);
    for (RegId r : e.reg_reads) readReg(r, pos);
    for (TensorId t : e.tensor_reads) filed.push_back({t, {pos, false, WriteCover::Partial}});
    ConditionalRuns certain;
    if (at.conditional)
      if (auto it = runs.find(at.inst); it != runs.end()) certain = it->second;
    if (certain.skips_last != 0 || certain.only_last != 0)
      last_runs.push_back({pos, certain.skips_last, certain.only_last});
    // A write in code that runs on every iteration of its loops replaces what it covers as unconditional code does.
    const bool maybe = at.conditional && !certain.always;
    for (const TensorWrite& w : e.tensor_writes) {
      const bool once = maybe && certain.once && w.cover == WriteCover::Whole;
      filed.push_back({w.tensor, {pos, true, maybe ? WriteCover::Partial : w.cover, once, once ? certain.later : -1}});
    }
    for (RegId r : e.reg_writes) writeReg(r, pos, whole);
  }
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].output) filed.push_back({t, {order.end(), false, WriteCover::Partial}});
  thread_local std::vector<uint32_t> offsets;
  thread_local std::vector<Event> events;
  offsets.assign(p.tensors.size() + 1, 0);
  for (const Filed& f : filed) ++offsets[f.t + 1];
  for (size_t t = 0; t < p.tensors.size(); ++t) offsets[t + 1] += offsets[t];
  events.resize(filed.size());
  {
    thread_local std::vector<uint32_t> fill;
    fill.assign(offsets.begin(), offsets.end() - 1);
    for (const Filed& f : filed) events[fill[f.t]++] = f.ev;
  }
  // The reads that see only what the instruction just before them wrote (readsOnlyWhatPrecedes).
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    for (uint32_t i = offsets[t] + 1; i < offsets[t + 1]; ++i) {
      Event& ev = events[i];
      const Event& before = events[i - 1];
      if (ev.write || !before.write || before.pos + 1 != ev.pos) continue;
      uint32_t j = i;  // the reader's events: its reads of t, and no write of it
      while (j + 1 < offsets[t + 1] && events[j + 1].pos == ev.pos) ++j;
      if (events[j].write || !readsOnlyWhatPrecedes(p, order, t, ev.pos, e)) continue;
      for (uint32_t k = i; k <= j; ++k) events[k].covered = true;
      i = j;
    }

  thread_local std::vector<int32_t> ld, lu, chain;  // the thread's, as e
  CoverageCache cache;
  CoverageAnswers answers(p, order, live.stats, cache, last_runs);
  WrittenElements written;
  live.tensors.resize(p.tensors.size());
  live.value_starts.resize(p.tensors.size());
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const std::span<const Event> mentions =
        std::span<const Event>(events).subspan(offsets[t], offsets[t + 1] - offsets[t]);
    answers.reset(t, mentions);
    valuesOf(order, mentions, answers, &answers, live.tensors[t], &live.value_starts[t], ld, lu, chain,
             TensorOf{&p, t, &written});
    clipParts(live.tensors[t]);
  }
  live.registers.resize(regs.size());
  for (RegId r = 0; r < regs.size(); ++r) {
    RegisterAnswers reg_answers(order, regs[r]);
    valuesOf(order, std::span<const Event>(regs[r]), reg_answers, nullptr, live.registers[r], nullptr, ld, lu, chain);
  }
  return live;
}

}  // namespace allocsim
