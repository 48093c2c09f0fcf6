#include "alloc/sbuf/sbuf_allocator.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "alloc/alloc_error.h"
#include "alloc/colorer.h"
#include "alloc/copy_tensor.h"
#include "alloc/first_fit_placer.h"
#include "alloc/sbuf/sbuf_costs.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_footprint.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "alloc/sbuf/sbuf_packing.h"
#include "alloc/sbuf/sbuf_recent_bytes.h"
#include "alloc/sbuf/sbuf_select.h"
#include "alloc/sbuf/sbuf_simplify.h"
#include "alloc/sbuf/sbuf_spill.h"
#include "alloc/sbuf/sbuf_split.h"
#include "alloc/spill_candidates.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

// How many split points (sbuf_split.h) the colorer tries, each a whole colorer run.
constexpr size_t kSbufSplitCandidates = 12;

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
      for (size_t k = 0; k < rj.segmentCount(); ++k) {  // each segment, clipped to the node's hull
        const Segment sj = rj.segment(k);
        if (sj.last < first || sj.first > node.range.last) continue;
        delta[std::max(sj.first, first) - first] += int64_t(g.nodes[j].area());
        delta[std::min(sj.last, node.range.last) - first + 1] -= int64_t(g.nodes[j].area());
      }
    }
    int64_t here = int64_t(node.area());
    for (uint32_t k = 0; k < len; ++k) {
      here += delta[k];
      if (uint64_t(here) > peak && node.range.contains(first + k)) {  // where the node itself is live
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
  // Those tensors, by name and size: the node and its neighbours live at the peak.
  std::string together;
  if (peak_at != kNone) {
    uint32_t named = 0, more = 0;
    auto name = [&](const SbufNode& x) {
      if (named == 6) {
        ++more;
        return;
      }
      together += std::string(named++ ? ", " : "") + "'" + p.tensors[x.tensor].name + "' (" +
                  std::to_string(x.partitions) + " x " + std::to_string(x.bytes) + ")";
    };
    name(node);
    for (uint32_t j : g.neighbours[f])
      if (g.nodes[j].range.contains(peak_at)) name(g.nodes[j]);
    if (more) together += " and " + std::to_string(more) + " more";
    together = " (" + together + ", partitions x bytes)";
  }
  const uint64_t capacity = sbufCapacity(p.arch);
  std::string msg = "SBUF cannot hold " + what + ": the tensors live with it" + where + together +
                    ", none of which can be spilled, need " + std::to_string(peak) +
                    " bytes (partitions x bytes per partition); SBUF has " + std::to_string(capacity) + " (" +
                    std::to_string(p.arch.sbuf_partitions) + " partitions x " + std::to_string(p.arch.sbuf_bytes) +
                    " bytes)";
  if (peak <= capacity) {
    // Within capacity, yet no rectangle: name a tensor it can never share SBUF with, when there is one (a band of
    // more than half the partitions meets any other such band; on the partitions they share, both byte ranges must
    // fit one partition).
    const SbufNode* clash = nullptr;
    for (uint32_t j : g.neighbours[f]) {
      const SbufNode& o = g.nodes[j];
      if (node.fixed || o.fixed || !interferes(o.range, node.range)) continue;
      if (uint64_t(node.partitions) + o.partitions > p.arch.sbuf_partitions &&
          node.bytes + o.bytes > p.arch.sbuf_bytes) {
        clash = &o;
        break;
      }
    }
    if (clash)
      msg += ", but it is live with " + describeTensor(p, clash->tensor) + " (" + std::to_string(clash->partitions) +
             " partitions x " + std::to_string(clash->bytes) + " bytes) and no placement holds both: " +
             "bands of " + std::to_string(node.partitions) + " and " + std::to_string(clash->partitions) +
             " of the " + std::to_string(p.arch.sbuf_partitions) + " partitions always share one, which would need " +
             std::to_string(node.bytes) + " + " + std::to_string(clash->bytes) + " bytes of " +
             std::to_string(p.arch.sbuf_bytes);
    else
      msg += ", but no free rectangle of its shape is left among them";
  }
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

namespace {

// The graph of one round, costs included. The liveness holds pointers into the program it was computed from.
struct SbufRoundGraph {
  Liveness live;
  SbufGraph g;
};

SbufRoundGraph roundGraph(const Program& p, const std::vector<bool>& local) {
  SbufRoundGraph rg{sbufLiveness(p, local), {}};
  rg.g = buildSbufGraph(p, rg.live);
  findSbufCosts(p, rg.live, local, rg.g);
  return rg;
}

// The program after a sequence of spill rounds, with its graph: what every heuristic that spills the same tensors in
// the same rounds works on next. The rewrite and the graph (liveness, above all) are costly, and most heuristics
// spill the same first victims, so each distinct sequence is rewritten and analysed once.
// Built in place and never moved: the graph's liveness points into `program`.
struct SbufSpillState {
  Program program;
  std::vector<bool> local;  // the stand-ins (sbuf_spill.h)
  uint32_t next_id = 0;
  SbufSpillStats step;      // what the last round inserted
  SbufRoundGraph graph;
};

// The spill states of one allocateSbuf call, by the spill rounds that lead to them (each round's spilled and rehomed
// tensors, in order: insertSbufSpillCode is deterministic in them).
using SpillHistory = std::vector<std::vector<TensorId>>;
using SpillStates = std::map<SpillHistory, std::shared_ptr<const SbufSpillState>>;

// A color order of the SBUF colorer: a heuristic's order through simplify, or plain (sbuf_simplify.h).
struct SbufVariant {
  SbufHeuristic heuristic;
  bool plain = false;
};

// One heuristic's spill fixpoint (see sbuf_allocator.h): the spill state it ends with, its final selection, and
// what its rounds spilled. `error` is set instead when nothing could help this heuristic; `abandoned` when it had
// spilled more than a finished run: it cannot win.
struct SbufRun : ColorerRun<SbufVariant, SbufSelection> {
  bool packed = false;  // the exact search's packing (sbuf_packing.h), not a heuristic's fixpoint
  // The program it ends with, once it has spilled (shared with the other runs that spilled alike); until then null,
  // and the run stands for the input with its selection's placements, made only for the run that wins: a copy of
  // the whole program per heuristic was most of the SBUF colorer's time on large programs.
  std::shared_ptr<const SbufSpillState> state;
  uint32_t stores = 0, reloads = 0;
  uint64_t spill_bytes = 0;  // bytes of the SBUF tensors spilled to DRAM slots or rehomed to DRAM
  uint64_t bound = UINT64_MAX;  // the spill bytes of the best finished run when this one started
  SpillHistory history;
  std::string phase;  // the progress line's
};

ColorOrderName runName(const SbufHeuristic& h, bool plain) { return {sbufHeuristicName(h), plain}; }

ColorOrderName runName(const SbufRun& run) {
  return run.packed ? ColorOrderName{"exact packing", false} : runName(run.order.heuristic, run.order.plain);
}

// The packing as a finished run that spills nothing, or nullopt (sbuf_packing.h).
std::optional<SbufRun> packingRun(const Program& input, const SbufGraph& g) {
  std::optional<std::vector<Placement>> at = packSbuf(input, g);
  if (!at) {
    return std::nullopt;
  }
  SbufRun run;
  run.packed = true;
  run.rounds = 1;
  SbufSelection& sel = run.selection;
  sel.at.assign(g.nodes.size(), std::nullopt);
  std::vector<SbufRect> used;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    sel.at[i] = (*at)[i];
    if (!g.nodes[i].range.empty())
      used.push_back({(*at)[i].partition, g.nodes[i].partitions, (*at)[i].offset, g.nodes[i].bytes});
  }
  sel.footprint = sbufFootprintBytes(input.arch, used);
  sel.score = double(sel.footprint) / (double(sbufCapacity(input.arch)) + 1);
  return run;
}

// `p` with the placements of `sel`, a selection without failures on p's graph `g`.
void place(Program& p, const SbufGraph& g, const SbufSelection& sel) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (!g.nodes[i].fixed) p.tensors[g.nodes[i].tensor].placement = sel.at[i];
}

// The color stacks of one allocateSbuf call, by the graph they were made for, the color order and whether simplify
// made them: a stack depends on the graph and the order only, not on the placement policy, and the sweep pairs each
// order with four policies (sbuf_heuristic.h), so O3 made every stack four times, O2 and O6 two or three. The graphs
// (the input's and those of the spill states) live as long as the call, so their addresses are keys.
struct ColorStack {
  std::vector<uint32_t> stack;
  SbufWorklistSizes sizes;  // simplify's (verbosity >= 2)
};
using ColorStacks = std::map<std::tuple<const SbufGraph*, SbufOrder, bool>, ColorStack>;

const ColorStack& colorStack(const Arch& arch, const SbufGraph& g, SbufOrder order, bool plain,
                               ColorStacks& stacks) {
  auto [it, fresh] = stacks.try_emplace({&g, order, plain});
  if (fresh) it->second.stack = plain ? plainSbufStack(g, order) : simplifySbuf(arch, g, order, &it->second.sizes);
  return it->second;
}

// The state after `history`'s rounds, from the one before them (`prev`, or the input when null): looked up in
// `states`, or made and kept there. Throws AllocError when the spill slots exceed dram-limit.
std::shared_ptr<const SbufSpillState> spillState(const Program& input, const std::vector<bool>& input_local,
                                                 const SbufSpillState* prev, const SpillHistory& history,
                                                 const std::vector<TensorId>& to_spill,
                                                 const std::vector<TensorId>& to_rehome, SpillStates& states) {
  auto found = states.find(history);
  if (found != states.end()) return found->second;
  auto st = std::make_shared<SbufSpillState>();
  st->local = prev ? prev->local : input_local;
  st->next_id = prev ? prev->next_id : 0;
  st->step = insertSbufSpillCode(prev ? prev->program : input, st->program, to_spill, to_rehome, st->next_id,
                                 st->local);
  st->graph = roundGraph(st->program, st->local);
  states.emplace(history, st);
  return st;
}

// The run that spills fewer bytes, then occupies less SBUF, then costs fewer spill cycles; the earlier on ties.
// An abandoned run never wins (it spilled more than a finished one); a run that hit an AllocError loses to any
// other.
bool betterRun(const SbufRun& a, const SbufRun& b) {
  if (a.abandoned || b.abandoned) return !a.abandoned && b.abandoned;
  if (a.error || b.error) return !a.error && b.error;
  if (a.spill_bytes != b.spill_bytes) return a.spill_bytes < b.spill_bytes;
  if (a.selection.footprint != b.selection.footprint)
    return ALLOCSIM_PLANT("bestofn_keeps_worst") ? a.selection.footprint > b.selection.footprint
                                                 : a.selection.footprint < b.selection.footprint;
  return a.spill_cycles < b.spill_cycles;
}

// Whether the packing's run, which spills nothing, could not be betterRun than `best`: best spills nothing and
// costs no spill cycles either, and its footprint is at most g.max_live. No placement's footprint is below
// max_live (the tensors live at one position interfere pairwise, so their rectangles are apart, and a partition's
// high-water mark is at least the bytes placed in it), so the packing could only tie. Not decided when a node is
// fixed (the input's placements are not the colorer's to keep apart). Skipping the search there saves its
// time; the placements are the same without it.
bool packingCannotWin(const SbufRun& best, const SbufGraph& g) {
  if (best.error || best.abandoned || best.spill_bytes != 0 || best.spill_cycles != 0) return false;
  for (const SbufNode& n : g.nodes)
    if (n.fixed) return false;
  return best.selection.footprint <= g.max_live;
}

// The SBUF colorer: one run per heuristic of the level's sweep, each a whole spill fixpoint trying the heuristic's
// order through simplify and plain in every round (the plain one is what uses the room a capacity leaves: it colors
// exactly as with unlimited room, so whatever fits there below the capacity fits here too).
class SbufColorer final : public Colorer<SbufVariant, SbufSelection, SbufRun> {
 public:
  SbufColorer(const Program& input, const SbufRoundGraph& first, const SbufOptions& o, ColorerTrace& trace,
              uint32_t first_heuristic, uint32_t n_heuristics)
      : input_(input), first_(first), o_(o), trace_(trace), first_heuristic_(first_heuristic), n_(n_heuristics),
        input_local_(input.tensors.size(), false) {
    for (const Tensor& t : input.tensors) spillable_ += t.space == Space::Sbuf && !t.placement;
  }

 protected:
  SbufRun startRun(uint32_t k, const SbufRun* best) override {
    SbufRun run;
    run.order.heuristic = sbufHeuristic(first_heuristic_ + k);
    // Runs stop once they spill more than the best finished one, which leaves the choice as it would be with every
    // run finished: spilled bytes only grow.
    run.bound = best && !best->error && !best->abandoned ? best->spill_bytes : UINT64_MAX;
    if (o_.progress)  // the progress line's, built only when one is printed
      run.phase = "SBUF colorer, heuristic " + std::to_string(k + 1) + " of " + std::to_string(n_) + " (" +
                  sbufHeuristicName(run.order.heuristic) + ")";
    if (trace_.on) trace_.add(colorer_event::RunStart{sbufHeuristicName(run.order.heuristic)});
    return run;
  }
  uint32_t roundLimit() const override { return spillable_; }
  const char* memoryName() const override { return "SBUF"; }

  // The graph of the input or of the run's spill state, made when the state was.
  void buildRound(SbufRun& run) override {
    reportProgress(o_.progress, run.phase.c_str(), run.rounds, "spill rounds");
    trace_.add(colorer_event::RoundStart{run.rounds});
  }

  std::vector<SbufVariant> colorOrders(const SbufRun& run) const override {
    std::vector<SbufVariant> out;
    if (!o_.unlimited_room) out.push_back({run.order.heuristic, false});  // with unlimited room simplify's is plain
    out.push_back({run.order.heuristic, true});
    return out;
  }

  SbufSelection selectWith(SbufRun& run, const SbufVariant& v) override {
    const Program& p = program(run);
    const SbufGraph& g = graph(run).g;
    const ColorStack& cs = colorStack(p.arch, g, v.heuristic.order, v.plain, stacks_);
    SbufSelection sel = selectSbuf(p, g, cs.stack, v.heuristic.policy);
    if (keepRecentBytesApart(p, g, graph(run).live.order, v.heuristic.policy, SbufCeiling::Partition, sel) > 0)
      scoreSbufSelection(p, g, sel);
    if (trace_.on) {
      colorer_event::Tried tried{runName(v.heuristic, v.plain), std::nullopt, {}, sel.score};
      if (trace_.sizes && !v.plain) tried.sizes = cs.sizes;
      for (uint32_t i : sel.failed)
        tried.failed.push_back({p.tensors[g.nodes[i].tensor].name, g.nodes[i].partitions, g.nodes[i].bytes});
      trace_.add(std::move(tried));
    }
    return sel;
  }

  void endRound(SbufRun& run) override {
    if (trace_.on) trace_.add(colorer_event::RoundBest{runName(run.order.heuristic, run.order.plain)});
  }

  std::vector<uint32_t> chooseSpills(SbufRun& run) override {
    return spillCandidates(graph(run).g, run.selection.failed, [](const SbufNode& n) { return double(n.area()); });
  }

  AllocError cannotColor(SbufRun& run) override {
    const SbufRoundGraph& rg = graph(run);
    return nothingCanHelp(program(run), rg.live, rg.g, local(run), run.selection.failed.front());
  }

  bool rewrite(SbufRun& run, const std::vector<uint32_t>& victims) override {
    const Program& p = program(run);
    const SbufGraph& g = graph(run).g;
    std::vector<TensorId> to_spill, to_rehome;
    for (uint32_t i : victims) {
      (g.nodes[i].rehome ? to_rehome : to_spill).push_back(g.nodes[i].tensor);
      run.spill_cycles += g.nodes[i].cost;
      run.spill_bytes += p.tensors[g.nodes[i].tensor].totalBytes();
    }
    if (trace_.on) {
      colorer_event::Spilled spilled;
      for (TensorId t : to_spill) spilled.spilled.push_back(p.tensors[t].name);
      for (TensorId t : to_rehome) spilled.rehomed.push_back(p.tensors[t].name);
      trace_.add(std::move(spilled));
    }
    if (run.spill_bytes > run.bound) {  // rewriting the program for more rounds would be wasted
      trace_.add(colorer_event::Abandoned{run.spill_bytes, run.bound});
      run.abandoned = true;
      return false;
    }
    run.history.push_back(to_spill);
    run.history.push_back(to_rehome);
    try {
      run.state = spillState(input_, input_local_, run.state.get(), run.history, to_spill, to_rehome, states_);
    } catch (const AllocError& e) {  // the spill slots exceed dram-limit
      run.error = e;
      return false;
    }
    run.spilled += uint32_t(victims.size());
    run.stores += run.state->step.stores;
    run.reloads += run.state->step.reloads;
    trace_.add(colorer_event::Inserted{run.state->step.stores, run.state->step.reloads});
    return true;
  }

  bool betterRun(const SbufRun& a, const SbufRun& b) const override { return allocsim::betterRun(a, b); }

 private:
  // This round's program, graph and stand-ins: the input's until the first spill.
  const Program& program(const SbufRun& run) const { return run.state ? run.state->program : input_; }
  const SbufRoundGraph& graph(const SbufRun& run) const { return run.state ? run.state->graph : first_; }
  const std::vector<bool>& local(const SbufRun& run) const { return run.state ? run.state->local : input_local_; }

  const Program& input_;
  const SbufRoundGraph& first_;
  const SbufOptions& o_;
  ColorerTrace& trace_;
  uint32_t first_heuristic_, n_;
  std::vector<bool> input_local_;
  uint32_t spillable_ = 0;  // an upper bound on the rounds that spill
  SpillStates states_;
  ColorStacks stacks_;
};

}  // namespace

SbufResult allocateSbuf(const Program& input, const SbufOptions& o) { return allocateSbuf(Program(input), o); }

SbufResult allocateSbuf(Program&& input, const SbufOptions& o) {
  Program base = std::move(input);
  requireSbufTensorsFit(base);
  base.renumber();
  if (o.only_heuristic && *o.only_heuristic >= kSbufHeuristicCount)
    throw std::invalid_argument("SBUF heuristic " + std::to_string(*o.only_heuristic) + " is not in the sweep");
  const uint32_t n_heuristics = o.only_heuristic ? 1 : std::clamp<uint32_t>(o.heuristics, 1, kSbufHeuristicCount);
  const uint32_t first_heuristic = o.only_heuristic.value_or(0);
  const bool packing = o.packing && !o.only_heuristic;
  SbufStats stats;
  stats.trace.on = o.verbosity >= 1;
  stats.trace.sizes = o.verbosity >= 2;

  const std::vector<bool> local(base.tensors.size(), false);
  const SbufRoundGraph first = roundGraph(base, local);
  const SbufGraph& g = first.g;
  stats.demand_pct = sbufDemandPercent(base.arch, g);
  stats.capacity_bytes = sbufCapacity(base.arch);
  stats.demand_bytes = g.total_demand;
  stats.max_live_bytes = g.max_live;

  // Best-of-N over whole spill fixpoints, not round by round: a heuristic that spills less in the first round can
  // leave reloads that spill more later. Compared on the end result, a level that tries more heuristics never does
  // worse.
  std::optional<SbufRun> best;
  {
    SbufColorer colorer(base, first, o, stats.trace, first_heuristic, n_heuristics);
    best = colorer.allocate(n_heuristics);
  }
  if (packing && packingCannotWin(*best, g)) {
    stats.packing = SbufStats::Packing::NotSearched;
  } else if (packing) {  // last: on equal spill bytes and footprint a heuristic's run is kept
    std::optional<SbufRun> packed = packingRun(base, g);
    stats.packing = packed ? SbufStats::Packing::Found : SbufStats::Packing::None;
    if (packed) {
      stats.packing_footprint = packed->selection.footprint;
      stats.packing_score = packed->selection.score;
    }
    if (packed && betterRun(*packed, *best)) best = std::move(packed);
  }
  if (best->error) throw *best->error;
  SbufRun& w = *best;
  const uint64_t capacity = sbufCapacity(base.arch);
  // The winner's program, placed by its selection on its last round's graph: the input's (nothing reads base after
  // this; the first graph's liveness points into its instructions, which the move keeps) or a copy of its state's.
  // Within the peak (sbuf_recent_bytes.h), on the winner only: the footprint it adds is counted apart
  // (SbufStats::rotation_bytes), the winner was chosen without it.
  const SbufRoundGraph& wg = w.state ? w.state->graph : first;
  const Program& wp = w.state ? w.state->program : base;
  SbufSelection rotated = w.selection;
  const SbufPolicy policy = w.packed ? SbufPolicy::FirstFit : w.order.heuristic.policy;
  if (keepRecentBytesApart(wp, wg.g, wg.live.order, policy, SbufCeiling::Peak, rotated) > 0)
    scoreSbufSelection(wp, wg.g, rotated);
  const uint64_t rotated_footprint = rotated.footprint;
  if (o.load_headroom_pct > 0 &&
      keepLoadsApart(wp, wg.g, wg.live.order, policy,
                     loadHeadroomLimit(wp.arch, wg.g, o.load_headroom_pct), rotated) > 0)
    scoreSbufSelection(wp, wg.g, rotated);
  // Live-range splitting (sbuf_split.h): only where the best run spills nothing and stays above 1.05x the max-live.
  const bool try_split = o.split && !o.only_heuristic && !w.state && w.spill_bytes == 0 &&
                         w.selection.footprint * 100 > g.max_live * 105;
  std::optional<Program> unplaced;
  if (try_split) unplaced = base;
  Program placed = w.state ? w.state->program : std::move(base);
  place(placed, wg.g, rotated);

  const SbufSelection& sel = w.selection;
  stats.outcome = {sel.score, runName(w), w.spill_cycles, w.spilled,
                   100.0 * double(rotated.footprint) / double(std::max<uint64_t>(capacity, 1)), w.rounds};
  stats.spill_stores = w.stores;
  stats.spill_reloads = w.reloads;
  stats.spill_bytes = w.spill_bytes;
  stats.footprint_bytes = sel.footprint;
  stats.rotation_bytes = rotated_footprint - sel.footprint;
  stats.headroom_bytes = rotated.footprint - rotated_footprint;
  if (unplaced) {
    const uint64_t max_live = stats.max_live_bytes;
    const Liveness live = computeLiveness(*unplaced);
    SbufOptions inner = o;
    inner.split = false;
    std::optional<SbufResult> split;
    SbufSplitCopy split_copy;
    for (const SbufSplitPoint& s : sbufSplitPoints(*unplaced, live, max_live, kSbufSplitCandidates)) {
      try {
        SbufSplitCopyAt at;
        Program with_copy = splitSbufTensor(*unplaced, s, &at);
        SbufSplitCopy copy{unplaced->tensors[s.tensor].name, with_copy.tensors[at.tensor].name, at.line};
        SbufResult r = allocateSbuf(std::move(with_copy), inner);
        if (r.stats.spill_bytes == 0 && r.stats.footprint_bytes * 100 <= max_live * 105 &&
            (!split || r.stats.footprint_bytes < split->stats.footprint_bytes)) {
          split = std::move(r);
          split_copy = std::move(copy);
        }
      } catch (const AllocError&) {  // the copy's program needs more than SBUF: not this point
      }
    }
    if (split) {
      split->stats.split_copies = 1;
      split->stats.split_log = {std::move(split_copy)};
      return std::move(*split);
    }
  }
  return SbufResult{std::move(placed), std::move(stats)};
}

}  // namespace allocsim
