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

void place(Program& p, const Liveness& live, Space space, const ExactAllocOptions& o, ExactSpaceStats& stats) {
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
  if (r.status == ExactStatus::NoFit && r.method == "lower bound") {
    // The bound over the live ranges counts tensors live at one position in different iterations of its loops, or
    // through writes that may not run: it proves only where the tensors live together for certain exceed it too.
    const CertainPeak c = certainPeak(p, live, sp);
    if (c.bound <= sp.problem.capacity)
      throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " over the live ranges (their " +
                                "lower bound is " + std::to_string(r.lower_bound) + unit + ", but one position " +
                                "stands for every iteration of its loops; not proved impossible: the tensors live " +
                                "together for certain at one step need " + std::to_string(c.bound) + unit + ")");
    throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " (proved by lower bound: lower " +
                              "bound " + std::to_string(c.bound) + unit + ", " + std::to_string(r.nodes) +
                              " nodes, " + fmt(r.seconds) + " s)" + namesOfThePeak(p, live, sp, c, sbuf));
  }
  if (r.status == ExactStatus::NoFit)
    throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " (proved by " + r.method +
                              ": lower bound " + std::to_string(r.lower_bound) + unit + ", " +
                              std::to_string(r.nodes) + " nodes, " + fmt(r.seconds) + " s)");
  const std::string limit = o.node_budget && r.nodes >= o.node_budget
                                ? "the node budget of " + std::to_string(o.node_budget)
                                : "the time limit of " + fmt(o.time_limit_s) + " s";
  if (r.status == ExactStatus::Unknown)
    throw AllocError(loc, "exact: no placement of " + what + " within " + cap + " found in " + limit + " (" +
                              std::to_string(r.nodes) +
                              " nodes; not proved impossible); best height " + std::to_string(r.height) + unit +
                              " by " + r.method + ", " + formatReportNumber(gap, 3) + "x the lower bound " +
                              std::to_string(r.lower_bound));
  for (size_t i = 0; i < sp.tensors.size(); ++i) {
    Tensor& t = p.tensors[sp.tensors[i]];
    Placement pl;
    if (sbuf) {
      pl.partition = r.placements[i].row;
      pl.offset = r.placements[i].offset;
    } else {
      pl.bank = uint32_t(r.placements[i].offset);
    }
    t.placement = pl;
  }
  stats = {sp.problem.items.size(), sp.problem.rows, sp.problem.capacity, r.status, r.height, r.lower_bound,
           r.nodes, r.seconds, r.method};
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
  place(p, live, Space::Psum, o, result.stats.psum);
  place(p, live, Space::Sbuf, o, result.stats.sbuf);
  // A tensor no executed instruction mentions interferes with nothing: the corner is as good as any place.
  for (Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.placement) t.placement = Placement{};
  return result;
}

}  // namespace allocsim
