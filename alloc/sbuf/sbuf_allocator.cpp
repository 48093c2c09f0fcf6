#include "alloc/sbuf/sbuf_allocator.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/best_of_n.h"
#include "alloc/colorer_report.h"
#include "alloc/copy_tensor.h"
#include "alloc/first_fit_placer.h"
#include "alloc/sbuf/sbuf_costs.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "alloc/sbuf/sbuf_select.h"
#include "alloc/sbuf/sbuf_simplify.h"
#include "alloc/sbuf/sbuf_spill.h"
#include "alloc/spill_candidates.h"

namespace allocsim {
namespace {

std::string num(double v) { return formatReportNumber(v, 2); }

// The AllocError when a node cannot be placed and no spillable tensor is live with it: the peak demand of the
// tensors live with it (itself included) against the capacity, and where that peak is.
AllocError nothingCanHelp(const Program& p, const Liveness& live, const SbufGraph& g, const std::vector<bool>& local,
                          uint32_t f) {
  const SbufNode& node = g.nodes[f];
  const Tensor& t = p.tensors[node.tensor];
  std::string what = describeTensor(p, node.tensor);
  if (node.tensor < local.size() && local[node.tensor] && t.copy_of < p.tensors.size())
    what += " (the reload of '" + p.tensors[t.copy_of].name + "')";
  uint64_t peak = node.area();
  uint32_t peak_at = node.range.empty() ? kNone : node.range.first;
  if (!node.range.empty()) {  // a difference array over the range: linear in its length + the neighbours
    const uint32_t first = node.range.first, len = node.range.last - first + 1;
    std::vector<int64_t> delta(size_t(len) + 1, 0);
    for (uint32_t j : g.neighbours[f]) {
      const LiveRange& rj = g.nodes[j].range;
      if (!interferes(rj, node.range)) continue;
      delta[std::max(rj.first, first) - first] += int64_t(g.nodes[j].area());
      delta[std::min(rj.last, node.range.last) - first + 1] -= int64_t(g.nodes[j].area());
    }
    int64_t here = int64_t(node.area());
    for (uint32_t k = 0; k < len; ++k) {
      here += delta[k];
      if (uint64_t(here) > peak) {
        peak = uint64_t(here);
        peak_at = first + k;
      }
    }
  }
  std::string where;
  if (peak_at != kNone && peak_at < live.order.positions.size() && live.order.positions[peak_at].inst &&
      live.order.positions[peak_at].inst->loc.known())
    where = " at line " + std::to_string(live.order.positions[peak_at].inst->loc.line);
  else if (peak_at != kNone)
    where = " at position " + std::to_string(peak_at) + " of the linear order";
  const uint64_t capacity = sbufCapacity(p.arch);
  std::string msg = "SBUF cannot hold " + what + ": the tensors live with it" + where +
                    ", none of which can be spilled, need " + std::to_string(peak) +
                    " bytes (partitions x bytes per partition); SBUF has " + std::to_string(capacity) + " (" +
                    std::to_string(p.arch.sbuf_partitions) + " partitions x " + std::to_string(p.arch.sbuf_bytes) +
                    " bytes)";
  if (peak <= capacity) msg += ", but no free rectangle of its shape is left among them";
  return AllocError(declarationLoc(p, node.tensor), msg);
}

}  // namespace

// Repeated so that an unchecked program gets the checker's message instead of an endless spill of a rectangle
// that fits nowhere.
void requireSbufTensorsFit(const Program& p) {
  for (const Tensor& t : p.tensors) {
    if (t.space != Space::Sbuf) continue;
    if (t.partitions == 0 || t.elements == 0)
      throw InputError(t.loc, "tensor '" + t.name + "' has shape [" + std::to_string(t.partitions) + ", " +
                                  std::to_string(t.elements) + "]; both dimensions must be >= 1");
    if (t.partitions > p.arch.sbuf_partitions)
      throw InputError(t.loc, "sbuf tensor '" + t.name + "' has " + std::to_string(t.partitions) +
                                  " partitions; the machine has " + std::to_string(p.arch.sbuf_partitions));
    if (t.bytesPerPartition() > p.arch.sbuf_bytes)
      throw InputError(t.loc, "sbuf tensor '" + t.name + "' needs " + std::to_string(t.bytesPerPartition()) +
                                  " bytes per partition; SBUF has " + std::to_string(p.arch.sbuf_bytes));
  }
}

SbufResult allocateSbuf(const Program& input, const SbufOptions& o) {
  SbufResult result{input, {}};
  Program& p = result.program;
  AllocReport& r = result.report;
  const uint32_t n_heuristics = std::clamp<uint32_t>(o.heuristics, 1, kSbufHeuristicCount);
  requireSbufTensorsFit(p);
  p.renumber();
  if (o.verbosity >= 1) r.line(" allocating SB");

  uint32_t spillable = 0;  // an upper bound on the rounds that spill
  for (const Tensor& t : p.tensors) spillable += t.space == Space::Sbuf && !t.placement;
  std::vector<bool> local(p.tensors.size(), false);
  uint32_t next_id = 0, spilled = 0, rounds = 0, stores = 0, reloads = 0;
  double spill_cycles = 0;
  BestOfN<SbufHeuristic, SbufSelection> best;
  for (;;) {
    if (rounds > spillable) throw std::logic_error("SBUF spill fixpoint did not converge");
    ++rounds;
    if (o.verbosity >= 1) r.line("spill round " + std::to_string(rounds));
    const Liveness live = sbufLiveness(p, local);
    SbufGraph g = buildSbufGraph(p, live);
    if (rounds == 1) {
      const double demand = sbufDemandPercent(p.arch, g);
      r.line(num(demand) + "% SB demand before allocation");
      r.line(colorerDemandPlainLine("SB", "bytes", g.total_demand, g.max_live, sbufCapacity(p.arch)));
      r.set("sbuf.demand_before_allocation_pct", demand);
      r.set("sbuf.capacity_bytes", int64_t(sbufCapacity(p.arch)));
      r.set("sbuf.demand_bytes", int64_t(g.total_demand));
      r.set("sbuf.max_live_bytes", int64_t(g.max_live));
    }
    findSbufCosts(p, live, local, g);

    best.restart();
    for (uint32_t k = 0; k < n_heuristics; ++k) {
      const SbufHeuristic h = sbufHeuristic(k);
      SbufWorklistSizes sizes;
      std::vector<uint32_t> stack = simplifySbuf(p.arch, g, h.order, &sizes);
      SbufSelection sel = selectSbuf(p, g, stack, h.policy);
      if (o.verbosity >= 1) r.line("best-of-n loop, heuristic = " + sbufHeuristicName(h));
      if (o.verbosity >= 2) reportWorklistSizes(r, sizes);
      if (o.verbosity >= 1) {
        for (uint32_t i : sel.failed)
          r.line(p.tensors[g.nodes[i].tensor].name + " cannot allocate " + std::to_string(g.nodes[i].partitions) +
                 " partitions x " + std::to_string(g.nodes[i].bytes) + " bytes");
        r.line(colorerScoreLine("SB", sel.score));
      }
      best.offer(h, std::move(sel));
    }
    if (o.verbosity >= 1) r.line(colorerBestHeuristicLine("SB", sbufHeuristicName(best.heuristic)));

    if (best.selection.failed.empty()) {
      for (uint32_t i = 0; i < g.nodes.size(); ++i)
        if (!g.nodes[i].fixed) p.tensors[g.nodes[i].tensor].placement = best.selection.at[i];
      break;
    }

    const std::vector<uint32_t> victims =
        spillCandidates(g, best.selection.failed, [](const SbufNode& n) { return double(n.area()); });
    if (victims.empty()) throw nothingCanHelp(p, live, g, local, best.selection.failed.front());
    std::vector<TensorId> to_spill, to_rehome;
    for (uint32_t i : victims) {
      (g.nodes[i].rehome ? to_rehome : to_spill).push_back(g.nodes[i].tensor);
      spill_cycles += g.nodes[i].cost;
    }
    if (o.verbosity >= 1) {
      for (TensorId t : to_spill) r.line("spill " + p.tensors[t].name + " to DRAM");
      for (TensorId t : to_rehome) r.line("rehome " + p.tensors[t].name + " to DRAM");
    }
    SbufSpillStats st = insertSbufSpillCode(p, to_spill, to_rehome, next_id, local);
    spilled += uint32_t(victims.size());
    stores += st.stores;
    reloads += st.reloads;
    if (o.verbosity >= 1)
      r.line("insert spill " + std::to_string(st.stores) + ", insert reload " + std::to_string(st.reloads));
  }

  const double utilization = 100.0 * double(best.selection.footprint) / double(std::max<uint64_t>(sbufCapacity(p.arch), 1));
  reportColorerSummary(r, ColorerSummary{"SB", "sbuf", best.selection.score, sbufHeuristicName(best.heuristic),
                                         spill_cycles, spilled, utilization, rounds, o.verbosity >= 1,
                                         {{"spill_stores", int64_t(stores)},
                                          {"spill_reloads", int64_t(reloads)},
                                          {"footprint_bytes", int64_t(best.selection.footprint)}},
                                         std::to_string(best.selection.footprint) + " of " +
                                             std::to_string(sbufCapacity(p.arch)) +
                                             " bytes: each partition's high-water mark (largest offset + size), "
                                             "summed over the partitions"});
  return result;
}

}  // namespace allocsim
