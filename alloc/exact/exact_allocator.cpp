#include "alloc/exact/exact_allocator.h"

#include <algorithm>

#include "alloc/alloc_error.h"
#include "alloc/exact/canonical_timeline.h"
#include "alloc/exact/certain_live.h"
#include "alloc/exact/exact_search.h"
#include "alloc/number_text.h"
#include "alloc/liveness.h"
#include "alloc/value_split.h"

namespace allocsim {
namespace {

struct SpaceProblem {
  ExactProblem problem;
  std::vector<TensorId> tensors;  // item -> tensor
};

SpaceProblem build(const Program& p, const Liveness& live, Space space, bool keep) {
  const Arch& a = p.arch;
  SpaceProblem sp;
  const bool sbuf = space == Space::Sbuf;
  sp.problem.capacity = sbuf ? a.sbuf_bytes : a.psum_banks;
  sp.problem.rows = sbuf ? a.sbuf_partitions : 1;
  const uint32_t quantum = std::max<uint32_t>(a.sbuf_partition_quantum, 1);
  bool all_full = true;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    if (x.space != space || live.tensors[t].empty()) continue;
    ExactItem it;
    it.first = live.tensors[t].first;
    it.last = live.tensors[t].last;
    it.size = sbuf ? x.bytesPerPartition() : psumBankCount(a, x);
    it.align = sbuf ? std::max<uint32_t>(a.sbuf_align, 1) : 1;
    it.rows = sbuf ? x.partitions : 1;
    const bool fixed = x.placement && (x.pinned || keep);
    if (fixed) {
      it.starts = {sbuf ? x.placement->partition : 0};
      it.fixed_offset = sbuf ? x.placement->offset : x.placement->bank;
    } else if (sbuf) {
      it.starts.clear();
      for (uint32_t s = 0; s + it.rows <= a.sbuf_partitions; s += quantum) it.starts.push_back(s);
    }
    all_full = all_full && it.rows == sp.problem.rows && it.starts.size() == 1 && it.starts[0] == 0;
    // A fixed tensor is an item per segment, all at its place: between its values others may use that memory. A
    // movable one is one item over its hull (value_split.h has given each value that can move a tensor of its own).
    const LiveRange& r = live.tensors[t];
    const size_t items = fixed ? r.segmentCount() : 1;
    for (size_t k = 0; k < items; ++k) {
      if (fixed) {
        it.first = r.segment(k).first;
        it.last = r.segment(k).last;
      }
      sp.problem.items.push_back(it);
      sp.tensors.push_back(t);
    }
  }
  if (sbuf && all_full) {  // every tensor spans every partition: minimalloc's 1-D problem
    sp.problem.rows = 1;
    for (ExactItem& it : sp.problem.items) it.rows = 1;
  }
  canonicalizeTimeline(sp.problem.items);
  return sp;
}

std::string fmt(double v) { return formatReportNumber(v, 3); }

// The area bound (alloc/exact/exact_problem.h) over the tensors live together for certain at one step
// (alloc/exact/certain_live.h) rather than over the live ranges: no placement the verifier accepts fits below it.
struct CertainPeak {
  uint64_t bound = 0;
  uint32_t pos = kNone;       // the step of the peak (kNone: no step)
  std::vector<size_t> items;  // the items live there, one per tensor
};

CertainPeak certainPeak(const Program& p, const Liveness& live, const SpaceProblem& sp) {
  const std::vector<std::vector<std::pair<uint32_t, uint32_t>>> spans = certainLiveSpans(p, live.order);
  const size_t n = live.order.positions.size();
  const uint64_t block = exactRowBlock(sp.problem);
  std::vector<uint32_t> steps(n + 1, 0);  // steps before each position
  for (uint32_t pos = 0; pos < n; ++pos) steps[pos + 1] = steps[pos] + certainStep(live.order, pos);
  std::vector<int64_t> diff(n + 1, 0);
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> merged(sp.problem.items.size());
  std::vector<bool> seen(p.tensors.size(), false);
  CertainPeak c;
  for (size_t i = 0; i < sp.problem.items.size(); ++i) {
    const TensorId t = sp.tensors[i];
    if (seen[t]) continue;  // a fixed tensor's segments are items of their own
    seen[t] = true;
    std::vector<std::pair<uint32_t, uint32_t>> s = spans[t];
    std::sort(s.begin(), s.end());
    for (const auto& [first, last] : s) {
      if (first >= n || last < first) continue;
      if (!merged[i].empty() && first <= merged[i].back().second + 1)
        merged[i].back().second = std::max(merged[i].back().second, std::min<uint32_t>(last, uint32_t(n - 1)));
      else
        merged[i].push_back({first, std::min<uint32_t>(last, uint32_t(n - 1))});
    }
    const int64_t area = int64_t(exactBlockArea(sp.problem.items[i], block));
    for (const auto& [first, last] : merged[i]) {
      diff[first] += area;
      diff[last + 1] -= area;
      if (steps[last + 1] > steps[first]) c.bound = std::max(c.bound, sp.problem.items[i].size);  // live somewhere
    }
  }
  int64_t sum = 0, best = -1;
  for (uint32_t pos = 0; pos < n; ++pos) {
    sum += diff[pos];
    if (certainStep(live.order, pos) && sum > best) best = sum, c.pos = pos;
  }
  if (c.pos == kNone) return c;
  c.bound = std::max(c.bound, exactAreaBound(sp.problem, block, uint64_t(best)));
  for (size_t i = 0; i < merged.size(); ++i)
    for (const auto& [first, last] : merged[i])
      if (first <= c.pos && c.pos <= last) c.items.push_back(i);
  return c;
}


// The tensors of a certain peak whose sum exceeds the capacity, as a refusal names them: the largest, as few as
// exceed it together, at the line of the step, their sizes and their sum against the capacity. "" when their plain
// sum does not exceed it (the bound then comes from the largest tensor or from whole blocks of partitions).
std::string namesOfThePeak(const Program& p, const Liveness& live, const SpaceProblem& sp, const CertainPeak& c,
                           bool sbuf) {
  const std::vector<ExactItem>& items = sp.problem.items;
  const uint64_t rows = std::max<uint32_t>(sp.problem.rows, 1);
  std::vector<size_t> here = c.items;
  std::stable_sort(here.begin(), here.end(), [&](size_t a, size_t b) {
    return items[a].size * items[a].rows > items[b].size * items[b].rows;
  });
  uint64_t best = 0;
  bool exceeds = false;
  for (size_t k = 0; k < here.size() && !exceeds; ++k) {
    best += items[here[k]].size * items[here[k]].rows;
    if (best > sp.problem.capacity * rows) {
      here.resize(k + 1);
      exceeds = true;
    }
  }
  if (!exceeds) return "";
  std::sort(here.begin(), here.end());
  std::string where;
  const LinearPosition& at = live.order.positions[c.pos];
  if (at.inst && at.inst->loc.known()) where = " at line " + std::to_string(at.inst->loc.line);
  std::string names;
  for (size_t k = 0; k < here.size() && k < 6; ++k) {
    const Tensor& t = p.tensors[sp.tensors[here[k]]];
    const uint64_t banks = psumBankCount(p.arch, t);
    names += std::string(k ? ", " : "") + "'" + t.name + "' (" +
             (sbuf ? std::to_string(t.partitions) + " x " + std::to_string(t.bytesPerPartition()) + " bytes"
                   : std::to_string(banks) + (banks == 1 ? " bank" : " banks")) +
             ")";
  }
  if (here.size() > 6) names += " and " + std::to_string(here.size() - 6) + " more";
  const std::string unit = !sbuf ? " banks" : rows > 1 ? " partition-bytes" : " bytes per partition";
  return "; live together" + where + ": " + names + ", " + std::to_string(best) + unit + " against " +
         std::to_string(sp.problem.capacity * rows);
}

// The relaxation the proofs by search run on: one item per tensor of the space, live only at the steps
// (certain_live.h) where it is live for certain, on a time axis of those steps alone, so that two items conflict
// exactly when their tensors are live together for certain at one step. A tensor live for certain at no step has a
// step of its own: it conflicts with nothing. Every placement the verifier accepts keeps these pairs apart, so when
// no placement fits here, none fits the program.
struct CertainProblem {
  ExactProblem problem;
  std::vector<TensorId> tensors;  // item -> tensor
  std::vector<uint32_t> item_of;  // tensor -> item (kNone: not of the space)
};

CertainProblem certainProblem(const Program& p, const Liveness& live, const SpaceProblem& sp) {
  const std::vector<std::vector<std::pair<uint32_t, uint32_t>>> spans = certainLiveSpans(p, live.order);
  const size_t n = live.order.positions.size();
  std::vector<uint32_t> before(n + 1, 0);  // steps before each position
  for (uint32_t pos = 0; pos < n; ++pos) before[pos + 1] = before[pos] + certainStep(live.order, pos);
  CertainProblem cp;
  cp.problem.capacity = sp.problem.capacity;
  cp.problem.rows = sp.problem.rows;
  cp.item_of.assign(p.tensors.size(), kNone);
  uint32_t own = before[n];  // the next step of its own
  for (size_t i = 0; i < sp.problem.items.size(); ++i) {
    const TensorId t = sp.tensors[i];
    if (cp.item_of[t] != kNone) continue;  // a fixed tensor's segments are items of their own, all at one place
    cp.item_of[t] = uint32_t(cp.problem.items.size());
    cp.tensors.push_back(t);
    ExactItem it = sp.problem.items[i];
    it.segments.clear();
    std::vector<std::pair<uint32_t, uint32_t>> steps;  // [first, last] in steps
    for (const auto& [first, last] : spans[t]) {
      if (first >= n || last < first) continue;
      const uint32_t lo = before[first], hi = before[std::min<size_t>(last, n - 1) + 1];
      if (hi > lo) steps.push_back({lo, hi - 1});
    }
    std::sort(steps.begin(), steps.end());
    for (const auto& [first, last] : steps) {
      if (!it.segments.empty() && first <= it.segments.back().second + 1)
        it.segments.back().second = std::max(it.segments.back().second, last);
      else
        it.segments.push_back({first, last});
    }
    if (it.segments.empty()) it.segments.push_back({own, own}), ++own;
    it.first = it.segments.front().first;
    it.last = it.segments.back().second;
    if (it.segments.size() == 1) it.segments.clear();
    cp.problem.items.push_back(std::move(it));
  }
  return cp;
}

// Whether every pair of tensors the live ranges keep apart (items of `sp` live at a common position) is live
// together for certain at one step: then the search over the live ranges proves as much as the one over `cp`.
bool everyConflictCertain(const SpaceProblem& sp, const CertainProblem& cp) {
  const std::vector<ExactItem>& items = sp.problem.items;
  std::vector<size_t> by_first(items.size());
  for (size_t i = 0; i < by_first.size(); ++i) by_first[i] = i;
  std::sort(by_first.begin(), by_first.end(), [&](size_t a, size_t b) { return items[a].first < items[b].first; });
  for (size_t x = 0; x < by_first.size(); ++x)
    for (size_t y = x + 1; y < by_first.size() && items[by_first[y]].first <= items[by_first[x]].last; ++y) {
      const TensorId a = sp.tensors[by_first[x]], b = sp.tensors[by_first[y]];
      if (a != b && !exactLiveTogether(cp.problem.items[cp.item_of[a]], cp.problem.items[cp.item_of[b]]))
        return false;
    }
  return true;
}

void setPlacement(Tensor& t, bool sbuf, const ExactPlacement& at) {
  Placement pl;
  if (sbuf) {
    pl.partition = at.row;
    pl.offset = at.offset;
  } else {
    pl.bank = uint32_t(at.offset);
  }
  t.placement = pl;
}

// A space placed over the conflicts certain at one step (certainProblem above) rather than over the live ranges: its
// placement stands only once the placement oracle (ExactAllocOptions::check) accepts the program. allocateExact
// refines it (pairs the oracle saw live together become conflicts) and searches again.
struct Pending {
  bool sbuf = false;
  CertainProblem cp;
  std::string what, cap, unit, over;  // the refusal's words (place() below)
  SourceLoc loc;
  ExactSearchOptions options;
  uint64_t nodes = 0;  // so far, over every search of the space
  double seconds = 0;
  uint32_t pairs = 0;  // conflicts added from the oracle's findings
  uint32_t next_step = 0;  // the next time step of the relaxation no item is live at
};

// Searches p's relaxation again; places the space, or throws the proof or the give-up.
void searchCertain(Program& p, Pending& w, const ExactAllocOptions& o, ExactSpaceStats& stats) {
  w.options.time_limit_s = std::max(0.0, o.time_limit_s - w.seconds);
  const ExactResult cr = solveExact(w.cp.problem, w.options);
  w.nodes += cr.nodes;
  w.seconds += cr.seconds;
  const std::string also =
      w.pairs ? " and the " + std::to_string(w.pairs) + " pairs the placement oracle found live together" : "";
  if (cr.status == ExactStatus::NoFit)
    throw AllocError(w.loc, "exact: no placement of " + w.what + " fits in " + w.cap + " (proved by " + cr.method +
                                " over the tensors live together for certain at one step" + also + ": lower bound " +
                                std::to_string(cr.lower_bound) + w.unit + ", " + std::to_string(w.nodes) +
                                " nodes, " + fmt(w.seconds) + " s)");
  if (cr.status == ExactStatus::Unknown) {
    const std::string limit = o.node_budget && cr.nodes >= o.node_budget
                                  ? "the node budget of " + std::to_string(o.node_budget)
                                  : "the time limit of " + fmt(o.time_limit_s) + " s";
    throw AllocError(w.loc, "exact: no placement of " + w.what + " fits in " + w.cap + " " + w.over +
                                "; over the tensors live together for certain" + also + " none was found in " +
                                limit + " (" + std::to_string(w.nodes) + " nodes; not proved impossible)");
  }
  for (size_t i = 0; i < w.cp.tensors.size(); ++i) setPlacement(p.tensors[w.cp.tensors[i]], w.sbuf, cr.placements[i]);
  stats = {w.cp.problem.items.size(), w.cp.problem.rows, w.cp.problem.capacity, cr.status, cr.height,
           cr.lower_bound, w.nodes, w.seconds, cr.method + " over the tensors live together for certain" + also};
}

// Adds a conflict between tensors a and b of w's space: a time step of their own. false when they conflict already
// (or are not of the space).
bool addConflict(Pending& w, TensorId a, TensorId b) {
  if (a >= w.cp.item_of.size() || b >= w.cp.item_of.size() || a == b) return false;
  const uint32_t ia = w.cp.item_of[a], ib = w.cp.item_of[b];
  if (ia == kNone || ib == kNone) return false;
  ExactItem &x = w.cp.problem.items[ia], &y = w.cp.problem.items[ib];
  if (exactLiveTogether(x, y)) return false;
  for (ExactItem* it : {&x, &y}) {
    if (it->segments.empty()) it->segments.push_back({it->first, it->last});
    it->segments.push_back({w.next_step, w.next_step});
    it->last = w.next_step;
  }
  ++w.next_step;
  ++w.pairs;
  return true;
}

void place(Program& p, const Liveness& live, Space space, const ExactAllocOptions& o, ExactSpaceStats& stats,
           std::vector<Pending>& pending) {
  const bool sbuf = space == Space::Sbuf;
  const char* name = sbuf ? "SBUF" : "PSUM";
  const std::string unit = sbuf ? " bytes" : " banks";
  SpaceProblem sp = build(p, live, space, o.keep_placements);
  ExactSearchOptions so;
  so.time_limit_s = o.time_limit_s;
  so.node_budget = o.node_budget;
  so.progress = o.progress;
  so.progress_phase = std::string("exact search, ") + name;
  ExactResult r = solveExact(sp.problem, so);
  const std::string shape = sbuf && sp.problem.rows > 1 ? " (" + std::to_string(sp.problem.rows) + " partitions x bytes)" : "";
  const std::string what = std::to_string(sp.problem.items.size()) + " live " + name + " tensors" + shape;
  const std::string cap = std::to_string(sp.problem.capacity) + unit;
  const double gap = r.lower_bound ? double(r.height) / double(r.lower_bound) : 1.0;
  const SourceLoc loc = sp.tensors.empty() ? SourceLoc{} : p.tensors[sp.tensors[0]].loc;
  const std::string limit = o.node_budget && r.nodes >= o.node_budget
                                ? "the node budget of " + std::to_string(o.node_budget)
                                : "the time limit of " + fmt(o.time_limit_s) + " s";
  if (r.status == ExactStatus::Unknown)
    throw AllocError(loc, "exact: no placement of " + what + " within " + cap + " found in " + limit + " (" +
                              std::to_string(r.nodes) +
                              " nodes; not proved impossible); best height " + std::to_string(r.height) + unit +
                              " by " + r.method + ", " + formatReportNumber(gap, 3) + "x the lower bound " +
                              std::to_string(r.lower_bound));
  if (r.status == ExactStatus::Fit) {
    for (size_t i = 0; i < sp.tensors.size(); ++i) setPlacement(p.tensors[sp.tensors[i]], sbuf, r.placements[i]);
    stats = {sp.problem.items.size(), sp.problem.rows, sp.problem.capacity, r.status, r.height, r.lower_bound,
             r.nodes, r.seconds, r.method};
    return;
  }
  // No placement keeps apart every pair the live ranges keep apart. That proves nothing where two of them are never
  // live together in a run (one position stands for every iteration of its loops, a write that may not run extends a
  // range): the proof stands over the pairs live together for certain at one step only.
  const CertainProblem cp = certainProblem(p, live, sp);
  std::string over;  // why the live ranges' verdict is no proof
  if (r.method == "lower bound") {
    const CertainPeak c = certainPeak(p, live, sp);
    if (c.bound > sp.problem.capacity)
      throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " (proved by lower bound: " +
                                "lower bound " + std::to_string(c.bound) + unit + ", " + std::to_string(r.nodes) +
                                " nodes, " + fmt(r.seconds) + " s)" + namesOfThePeak(p, live, sp, c, sbuf));
    over = "over the live ranges (their lower bound is " + std::to_string(r.lower_bound) + unit +
           ", but one position stands for every iteration of its loops; the tensors live together for certain at " +
           "one step need " + std::to_string(c.bound) + unit + ")";
  } else {
    if (everyConflictCertain(sp, cp))
      throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " (proved by " + r.method +
                                ": lower bound " + std::to_string(r.lower_bound) + unit + ", " +
                                std::to_string(r.nodes) + " nodes, " + fmt(r.seconds) + " s)");
    over = "over the live ranges (by " + r.method + ", " + std::to_string(r.nodes) +
           " nodes), but some tensors they keep apart are never live together for certain at one step";
  }
  Pending w;
  w.sbuf = sbuf;
  w.cp = cp;
  w.what = what;
  w.cap = cap;
  w.unit = unit;
  w.over = over;
  w.loc = loc;
  w.options = so;
  w.options.progress_phase = so.progress_phase + ", the tensors live together for certain";
  w.nodes = r.nodes;
  w.seconds = r.seconds;
  for (const ExactItem& it : cp.problem.items) w.next_step = std::max(w.next_step, it.last + 1);
  searchCertain(p, w, o, stats);
  pending.push_back(std::move(w));
}

}  // namespace

ExactProblem exactProblemOfSpace(const Program& p, Space space, bool keep_placements) {
  return build(p, computeLiveness(p), space, keep_placements).problem;
}

ExactAllocResult allocateExact(const Program& input, const ExactAllocOptions& o) {
  ExactAllocResult result{input, {}};
  Program& p = result.program;
  for (Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.pinned && !o.keep_placements) t.placement.reset();
  // Each value of an unplaced tensor is an item of its own (alloc/value_split.h): a value may take any place. The
  // values of one tensor are never live together (alloc/liveness.h), so splitting never asks for more room than
  // the tensor whole, and a proof over the values holds for the program.
  const ValueSplitStats split = splitValues(p);
  result.stats.split_tensors = split.tensors;
  result.stats.split_values = split.values;
  const Liveness live = computeLiveness(p);
  std::vector<Pending> pending;
  place(p, live, Space::Psum, o, result.stats.psum, pending);
  place(p, live, Space::Sbuf, o, result.stats.sbuf, pending);
  // A tensor no executed instruction mentions interferes with nothing: the corner is as good as any place.
  for (Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.placement) t.placement = Placement{};
  // A space placed over the tensors live together for certain: the placement oracle judges the program. Each pair
  // of tensors it finds live together on shared storage is live together in the run, so every placement the verifier
  // accepts keeps it apart: it becomes a conflict of its space, which is searched again. Each round adds a pair, so
  // the rounds end; kRounds bounds them so that the outcome depends on the program alone.
  constexpr uint32_t kRounds = 64;
  for (uint32_t round = 0; !pending.empty(); ++round) {
    Pending& first = pending.front();
    if (!o.check)
      throw AllocError(first.loc, "exact: no placement of " + first.what + " fits in " + first.cap + " " +
                                      first.over + "; one over the tensors live together for certain was found, " +
                                      "but no placement oracle was given to judge it: not proved impossible");
    const PlacementVerdict v = o.check(p);
    if (v.finding.empty()) break;
    bool added = false;
    for (Pending& w : pending) {
      bool here = false;
      for (const auto& [a, b] : v.live_together) here = addConflict(w, a, b) || here;
      if (here && round + 1 < kRounds) searchCertain(p, w, o, w.sbuf ? result.stats.sbuf : result.stats.psum);
      added = added || here;
    }
    if (!added || round + 1 >= kRounds)
      throw AllocError(first.loc, "exact: no placement of " + first.what + " fits in " + first.cap + " " +
                                      first.over + "; the placement oracle refuses the one found over the tensors " +
                                      "live together for certain" +
                                      (added ? " after " + std::to_string(kRounds) + " rounds" : std::string()) +
                                      " (" + v.finding + "): not proved impossible");
  }
  return result;
}

}  // namespace allocsim
