#include "alloc/psum/psum_allocator.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/colorer.h"
#include "alloc/copy_tensor.h"
#include "alloc/first_fit_placer.h"
#include "alloc/psum/psum_def_regions.h"
#include "alloc/liveness.h"
#include "alloc/psum/psum_bank_model.h"
#include "alloc/psum/psum_costs.h"
#include "alloc/psum/psum_heuristic.h"
#include "alloc/psum/psum_interference.h"
#include "alloc/psum/psum_recent_banks.h"
#include "alloc/psum/psum_select.h"
#include "alloc/psum/psum_simplify.h"
#include "alloc/psum/psum_spill.h"
#include "alloc/spill_candidates.h"

namespace allocsim {
namespace {

std::string bankText(uint64_t n) { return std::to_string(n) + (n == 1 ? " bank" : " banks"); }

// Why the colorer may not spill PSUM node `i` (its cost is +inf).
std::string whyUnspillable(const Program& p, const PsumGraph& g, uint32_t i) {
  const PsumNode& n = g.nodes[i];
  const Tensor& t = p.tensors[n.tensor];
  if (n.pinned) return "pinned";
  if (t.origin == Origin::Reload) return "a reload stand-in";
  if (t.origin != Origin::Source) return "inserted by an earlier spill";
  for (const Tensor& x : p.tensors)
    if (x.origin == Origin::Spill && x.copy_of == n.tensor) return "already spilled";
  const PsumSpillPlan plan = planPsumSpill(p, n.tensor);
  return plan.spillable ? "spillable" : plan.why_not;
}

// The refusal when node `f` found no bank and nothing spillable is live with it: the tensors live together where
// it meets the most demand, their sizes and the capacity, and why none of them can be spilled.
AllocError cannotPlace(const Program& p, const Liveness& live, const PsumGraph& g, uint32_t f, uint32_t banks) {
  const PsumNode& node = g.nodes[f];
  // The position of f's segments where the PSUM tensors live there need the most banks.
  uint32_t best_pos = kNone;
  uint64_t best = 0;
  for (size_t s = 0; s < node.range.segmentCount(); ++s)
    for (uint32_t pos = node.range.segment(s).first; pos <= node.range.segment(s).last; ++pos) {
      uint64_t here = node.banks;
      for (uint32_t j : g.neighbours[f])
        if (g.nodes[j].range.contains(pos)) here += g.nodes[j].banks;
      if (best_pos == kNone || here > best) best = here, best_pos = pos;
    }
  std::string with;
  std::vector<uint32_t> together;
  for (uint32_t j : g.neighbours[f])
    if (best_pos != kNone && g.nodes[j].range.contains(best_pos)) together.push_back(j);
  for (uint32_t j : together)
    with += (with.empty() ? "" : ", ") + p.tensors[g.nodes[j].tensor].name + " (" + bankText(g.nodes[j].banks) +
            ", " + whyUnspillable(p, g, j) + ")";
  std::string where;
  if (best_pos != kNone && live.order.positions[best_pos].inst && live.order.positions[best_pos].inst->loc.known())
    where = " at line " + std::to_string(live.order.positions[best_pos].inst->loc.line);
  else if (best_pos != kNone)
    where = " at position " + std::to_string(best_pos) + " of the linear order";
  std::string msg = "PSUM cannot hold " + describeTensor(p, node.tensor) + " (" + bankText(node.banks) + ", " +
                    whyUnspillable(p, g, f) + "): ";
  if (together.empty())
    msg += "no tensor is live with it, yet it needs " + bankText(node.banks) + " of " + bankText(banks);
  else
    msg += "live with it" + where + ": " + with + "; together they need " + bankText(best) + " and PSUM has " +
           std::to_string(banks) +
           (best > banks ? "" : ", but no free range of its size is left beside the banks they hold") +
           "; none of them can be spilled";
  return AllocError(declarationLoc(p, node.tensor), msg);
}

}  // namespace
namespace {

// A heuristic's color order, through simplify or plain (psum_simplify.h plainPsumStack).
struct PsumVariant {
  PsumHeuristic heuristic = PsumHeuristic::TensorOrder;
  bool plain = false;
};

ColorOrderName variantName(const PsumVariant& v) { return {psumHeuristicName(v.heuristic), v.plain}; }

// A pinned PSUM placement must lie inside PSUM (the well-formedness rule, repeated so that an unchecked program
// cannot make select read outside its bitmap).
void requirePinnedInBounds(const Program& p) {
  for (const Tensor& t : p.tensors) {
    if (t.space != Space::Psum || !t.pinned || !t.placement) continue;
    uint64_t banks = psumBanksOf(p.arch, t);
    if (uint64_t(t.placement->bank) + banks > p.arch.psum_banks)
      throw InputError(t.loc, "placement @bank" + std::to_string(t.placement->bank) + " of '" + t.name + "' (" +
                                  std::to_string(banks) + " banks) exceeds PSUM (" +
                                  std::to_string(p.arch.psum_banks) + " banks)");
  }
}

}  // namespace

PsumResult allocatePsum(const Program& input, const PsumOptions& o) { return allocatePsum(Program(input), o); }

namespace {

// The PSUM colorer's run: its one fixpoint over the input program, rewritten by each round's spills, and the
// round's graph. Every round tries all the level's orders (as the production PSUM allocator's best-of-n loop does).
struct PsumRun : ColorerRun<PsumVariant, PsumSelection> {
  std::optional<Liveness> live;  // points into the colorer's program
  PsumGraph g;
  uint32_t saves = 0, reloads = 0;
};

class PsumColorer final : public Colorer<PsumVariant, PsumSelection, PsumRun> {
 public:
  PsumColorer(Program& p, const PsumOptions& o, PsumStats& stats, uint32_t first, uint32_t n)
      : p_(p), o_(o), stats_(stats), first_(first), n_(n) {
    for (const Tensor& t : p.tensors) source_psum_ += t.space == Space::Psum && t.origin == Origin::Source;
  }

 protected:
  PsumRun startRun(uint32_t, const PsumRun*) override { return {}; }
  uint32_t roundLimit() const override { return source_psum_; }
  const char* memoryName() const override { return "PSUM"; }

  void buildRound(PsumRun& run) override {
    reportProgress(o_.progress, "PSUM colorer", run.rounds, "spill rounds");
    stats_.trace.add(colorer_event::RoundStart{run.rounds});
    run.live.reset();  // the graph of the previous round points into it
    run.live.emplace(computeLiveness(p_));
    run.g = buildPsumGraph(p_, *run.live);
    if (run.rounds == 1) {
      stats_.demand_pct = psumDemandPercent(p_.arch, run.g);
      stats_.banks = p_.arch.psum_banks;
      stats_.bank_demand = run.g.total_demand;
      stats_.max_concurrent_banks = run.g.max_concurrent;
    }
    findPsumCosts(p_, run.g);
  }

  std::vector<PsumVariant> colorOrders(const PsumRun&) const override {
    std::vector<PsumVariant> out;
    for (uint32_t h = first_; h < first_ + n_; ++h)
      for (bool plain : {false, true})  // the plain order uses the banks a capacity leaves, see plainPsumStack
        out.push_back({PsumHeuristic(h), plain});
    return out;
  }

  PsumSelection selectWith(PsumRun& run, const PsumVariant& v) override {
    const PsumGraph& g = run.g;
    PsumWorklistSizes sizes;
    std::vector<uint32_t> stack =
        v.plain ? plainPsumStack(g, v.heuristic) : simplifyPsum(g, p_.arch.psum_banks, v.heuristic, &sizes);
    PsumSelection sel = selectPsum(p_, g, stack);
    if (stats_.trace.on) {
      colorer_event::Tried tried{variantName(v), std::nullopt, {}, sel.score};
      if (stats_.trace.sizes && !v.plain) tried.sizes = sizes;
      for (uint32_t i : sel.failed)
        tried.failed.push_back({p_.tensors[g.nodes[i].tensor].name, g.nodes[i].banks, 0});
      stats_.trace.add(std::move(tried));
    }
    return sel;
  }

  void endRound(PsumRun& run) override {
    stats_.trace.add(colorer_event::RoundBest{variantName(run.order)});
    if (!run.selection.failed.empty()) return;
    // On the chosen selection only (psum_recent_banks.h): the banks it then uses are counted again, its score is the
    // one best-of-n chose it by.
    if (keepRecentBanksApart(p_, run.g, run.live->order, run.selection) > 0)
      countPsumBanks(p_, run.g, run.selection);
    for (uint32_t i = 0; i < run.g.nodes.size(); ++i) {
      if (run.g.nodes[i].pinned) continue;
      Placement pl;
      pl.bank = *run.selection.base[i];
      p_.tensors[run.g.nodes[i].tensor].placement = pl;
    }
  }

  std::vector<uint32_t> chooseSpills(PsumRun& run) override {
    return spillCandidates(run.g, run.selection.failed, [](const PsumNode& n) { return double(n.banks); });
  }

  AllocError cannotColor(PsumRun& run) override {
    return cannotPlace(p_, *run.live, run.g, run.selection.failed.front(), p_.arch.psum_banks);
  }

  bool rewrite(PsumRun& run, const std::vector<uint32_t>& victims) override {
    std::vector<TensorId> to_spill;
    double round_cost = 0;
    for (uint32_t i : victims) {
      to_spill.push_back(run.g.nodes[i].tensor);
      round_cost += run.g.nodes[i].cost;
    }
    std::sort(to_spill.begin(), to_spill.end());
    const PsumSpillStats st = insertPsumSpillCode(p_, to_spill, next_id_);
    run.spilled += uint32_t(to_spill.size());
    run.saves += st.saves;
    run.reloads += st.reloads;
    run.spill_cycles += round_cost;
    if (stats_.trace.on) {
      colorer_event::Spilled spilled;
      for (TensorId t : to_spill) spilled.spilled.push_back(p_.tensors[t].name);
      stats_.trace.add(std::move(spilled));
      stats_.trace.add(colorer_event::Inserted{st.saves, st.reloads});
    }
    return true;
  }

 private:
  Program& p_;
  const PsumOptions& o_;
  PsumStats& stats_;
  uint32_t first_, n_;
  uint32_t source_psum_ = 0;
  uint32_t next_id_ = 0;
};

}  // namespace

PsumResult allocatePsum(Program&& input, const PsumOptions& o) {
  PsumResult result{std::move(input), {}};
  Program& p = result.program;
  PsumStats& stats = result.stats;
  stats.trace.on = o.verbosity >= 1;
  stats.trace.sizes = o.verbosity >= 2;
  if (o.only_heuristic && *o.only_heuristic >= kPsumHeuristicCount)
    throw std::invalid_argument("PSUM heuristic " + std::to_string(*o.only_heuristic) + " is not one of the four");
  const uint32_t n_heuristics = o.only_heuristic ? 1 : std::clamp<uint32_t>(o.heuristics, 1, kPsumHeuristicCount);
  const uint32_t first_heuristic = o.only_heuristic.value_or(0);
  const uint32_t psum_banks = p.arch.psum_banks;
  requirePinnedInBounds(p);
  p.renumber();

  PsumColorer colorer(p, o, stats, first_heuristic, n_heuristics);
  const PsumRun run = colorer.allocate(1);
  if (run.error) throw *run.error;

  const PsumSelection& sel = run.selection;
  stats.outcome = {sel.score, variantName(run.order), run.spill_cycles, run.spilled,
                   100.0 * double(sel.banks_used) / double(psum_banks ? psum_banks : 1), run.rounds};
  stats.spill_saves = run.saves;
  stats.spill_reloads = run.reloads;
  stats.banks_used = sel.banks_used;
  return result;
}

}  // namespace allocsim
