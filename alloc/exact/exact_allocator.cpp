#include "alloc/exact/exact_allocator.h"

#include <algorithm>

#include "alloc/alloc_error.h"
#include "alloc/exact/canonical_timeline.h"
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

// Where the area bound (alloc/exact/exact_problem.h) exceeds the capacity: the line of a position where the most is
// live, the tensors live there with their sizes, and their sum against the capacity. "" when the plain sum at no
// position exceeds it (the bound then comes from the largest tensor or from whole blocks of partitions).
std::string peakOfTheBound(const Program& p, const Liveness& live, const SpaceProblem& sp, bool sbuf) {
  const std::vector<ExactItem>& items = sp.problem.items;
  std::vector<std::pair<uint64_t, int64_t>> events;  // (position, +area at first / -area after last)
  for (const ExactItem& it : items) {
    events.push_back({it.first, int64_t(it.size * it.rows)});
    events.push_back({uint64_t(it.last) + 1, -int64_t(it.size * it.rows)});
  }
  std::sort(events.begin(), events.end(), [](auto a, auto b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;  // ends first at one position
  });
  int64_t sum = 0, best = 0;
  uint64_t at = 0;
  for (auto [pos, d] : events) {
    sum += d;
    if (sum > best) best = sum, at = pos;
  }
  const uint64_t rows = std::max<uint32_t>(sp.problem.rows, 1);
  if (uint64_t(best) <= sp.problem.capacity * rows) return "";
  // The largest of the items live there, as few as exceed the capacity together: the smaller ones may be live at
  // that position in other iterations of its loops only.
  std::vector<size_t> here;
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].first <= at && at <= items[i].last) here.push_back(i);
  std::stable_sort(here.begin(), here.end(), [&](size_t a, size_t b) {
    return items[a].size * items[a].rows > items[b].size * items[b].rows;
  });
  best = 0;
  for (size_t k = 0; k < here.size(); ++k) {
    best += int64_t(items[here[k]].size * items[here[k]].rows);
    if (uint64_t(best) > sp.problem.capacity * rows) {
      here.resize(k + 1);
      break;
    }
  }
  std::sort(here.begin(), here.end());
  // A linear position where all of them are live (the items' timeline is canonical, the tensors' ranges are not).
  uint32_t first = 0, last = UINT32_MAX;
  for (size_t i : here) {
    const LiveRange& r = live.tensors[sp.tensors[i]];
    first = std::max(first, r.first);
    last = std::min(last, r.last);
  }
  std::string where;
  if (first <= last && first < live.order.positions.size() && live.order.positions[first].inst &&
      live.order.positions[first].inst->loc.known())
    where = " at line " + std::to_string(live.order.positions[first].inst->loc.line);
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
  if (r.status == ExactStatus::NoFit)
    throw AllocError(loc, "exact: no placement of " + what + " fits in " + cap + " (proved by " + r.method +
                              ": lower bound " + std::to_string(r.lower_bound) + unit + ", " +
                              std::to_string(r.nodes) + " nodes, " + fmt(r.seconds) + " s)" +
                              (r.method == "lower bound" ? peakOfTheBound(p, live, sp, sbuf) : ""));
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
