#include "alloc/driver.h"

#include <string>

#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/alloc_error.h"
#include "alloc/first_fit_placer.h"
#include "alloc/exact/exact_allocator.h"
#include "alloc/feasibility.h"
#include "alloc/in_place.h"
#include "alloc/liveness.h"
#include "alloc/lsa/dram_spill_slots.h"
#include "alloc/lsa/lsa_allocator.h"
#include "alloc/no_reuse.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/psum/psum_heuristic.h"
#include "alloc/reg/reg_allocator.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "alloc/value_split.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

// Freezing: placed SBUF/PSUM tensors are marked pinned so that the next pass keeps them (every allocator keeps
// pinned placements); thaw restores the flags. Tensors a pass inserts come after the saved ones and keep theirs.
std::vector<bool> freeze(Program& p, bool sbuf, bool psum) {
  std::vector<bool> saved(p.tensors.size());
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    Tensor& t = p.tensors[i];
    saved[i] = t.pinned;
    if (t.placement && ((sbuf && t.space == Space::Sbuf) || (psum && t.space == Space::Psum))) t.pinned = true;
  }
  return saved;
}

void thaw(Program& p, const std::vector<bool>& saved) {
  for (size_t i = 0; i < saved.size() && i < p.tensors.size(); ++i) p.tensors[i].pinned = saved[i];
}

bool hasUnplaced(const Program& p, Space s) {
  for (const Tensor& t : p.tensors)
    if (t.space == s && !t.placement) return true;
  return false;
}

// A pass that takes the program and gives back the program it makes and its statistics: `p` is replaced by that
// program, and the statistics are the step's.
template <class Options, class Result>
void runPass(Program& p, Result (*pass)(Program&&, const Options&), const Options& opts,
             std::vector<StepStats>& steps) {
  Result r = pass(std::move(p), opts);  // p is given up and replaced by the result
  p = std::move(r.program);
  steps.push_back(std::move(r.stats));
}

void runPsum(Program& p, const Effort& e, const DriverOptions& o, std::vector<StepStats>& steps) {
  PsumOptions po;
  po.heuristics = e.psum_heuristics;
  po.only_heuristic = o.psum_heuristic;
  po.verbosity = o.verbosity;
  po.progress = o.progress;
  runPass(p, allocatePsum, po, steps);
}

// SBUF after PSUM (as in the production allocator: PSUM is colored first and frozen): the SBUF colorer keeps every
// placement it is given (PSUM's, and at O7 the input's), and places the SBUF tensors that have none, spill slots
// included.
// The load headroom of the levels that run the SBUF colorer, in percent of the max-live per partition: the bound
// docs/quality.md holds the -O2 peak to (1.05x the max-live), spent only on loads in loops that would otherwise land
// on bytes read shortly before (alloc/sbuf/sbuf_recent_bytes.h keepLoadsApart).
constexpr uint32_t kSbufLoadHeadroomPct = 5;

void runSbuf(Program& p, const Effort& e, const DriverOptions& o, std::vector<StepStats>& steps) {
  SbufOptions so;
  so.heuristics = e.sbuf_heuristics;
  so.only_heuristic = o.sbuf_heuristic;
  so.packing = e.sbuf_packing && o.sbuf_packing;
  so.unlimited_room = o.sbuf_unlimited_room;
  so.load_headroom_pct = o.sbuf_load_headroom_pct.value_or(kSbufLoadHeadroomPct);
  so.verbosity = o.verbosity;
  so.progress = o.progress;
  runPass(p, allocateSbuf, so, steps);
}

// DMAOptimization after an allocator (as in the production allocator): its step is named by its instance.
void runDmaOpt(Program& p, DmaOptInstance instance, const DriverOptions& o, std::vector<StepStats>& steps) {
  DmaOptOptions dmo;
  dmo.instance = instance;
  dmo.level = o.gca_dma_optlevel;
  dmo.verbosity = o.verbosity;
  runPass(p, optimizeDmas, dmo, steps);
}

// REG last, at every optlevel (as in the production allocator: REG_Allocator is optlevel-independent).
void runReg(Program& p, const std::vector<bool>& keep, int verbosity, std::vector<StepStats>& steps) {
  RegOptions ro;
  ro.keep = keep;
  ro.verbosity = verbosity;
  steps.push_back(allocateRegisters(p, ro));
}

// O0: placeNoReuse on the tensors only (registers are the REG step's, as at every optlevel).
void runNoReuse(Program& p, std::vector<StepStats>& steps) {
  Program tensors_only = p;
  tensors_only.registers.clear();
  Program placed = placeNoReuse(tensors_only);
  for (size_t i = 0; i < p.tensors.size(); ++i) p.tensors[i].placement = placed.tensors[i].placement;
  NoReuseStats s;
  for (const Tensor& t : p.tensors) {
    s.sbuf_tensors += t.space == Space::Sbuf;
    s.psum_tensors += t.space == Space::Psum;
  }
  steps.push_back(s);
}

// A coloring level allocates from scratch: placements in the input that are not pinned are dropped (the SBUF
// colorer would otherwise keep them as given).
void dropUnpinnedPlacements(Program& p) {
  for (Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.pinned) t.placement.reset();
}

// The value split that the coloring and linear-scan paths run first (alloc/value_split.h: each value of a movable
// tensor becomes a tensor of its own, so that the allocators may place the values apart): a step after the
// allocators', when anything was split.
void reportValueSplit(const ValueSplitStats& s, std::vector<StepStats>& steps) {
  if (s.tensors != 0) steps.push_back(s);
}

void runColoring(Program& p, const Effort& e, const DriverOptions& o, std::vector<StepStats>& steps) {
  const int verbosity = o.verbosity;
  dropUnpinnedPlacements(p);
  const ValueSplitStats split = splitValues(p);
  runPsum(p, e, o, steps);
  runDmaOpt(p, DmaOptInstance::Psum, o, steps);
  runSbuf(p, e, o, steps);
  runDmaOpt(p, DmaOptInstance::Sb, o, steps);
  runReg(p, {}, verbosity, steps);
  reportValueSplit(split, steps);
}

// O8, and O6 with --allocator lsa (as in the production allocator: "selected by --allocator=lsa on the opt6 path or
// forced as the sole SBUF/PSUM allocator at optlevel 8"): the linear scan from scratch, PSUM then SB; run_with_loops
// on the O6 path. At O8 the DRAM spill slots then get addresses of their own (alloc/lsa/dram_spill_slots.h).
void runLinearScan(Program& p, int optlevel, const DriverOptions& o, std::vector<StepStats>& steps) {
  dropUnpinnedPlacements(p);
  const ValueSplitStats split = splitValues(p);
  LsaOptions lo;
  lo.loop_aware = optlevel == 6;
  lo.verbosity = o.verbosity;
  lo.progress = o.progress;
  LsaResult r = allocateLinearScan(p, lo);
  p = std::move(r.program);
  if (optlevel == 8) {  // the opt8 pipeline's coloring_allocator_dram_debug
    const uint32_t slots = placeDramSpillSlots(p);
    r.stats.dram_slots_placed = slots;
  }
  steps.push_back(std::move(r.stats));
  runReg(p, {}, o.verbosity, steps);
  reportValueSplit(split, steps);
}

// O7 has no PSUM coloring pass (the production allocator, "The distinctive opt7 trait"): its PSUM placements come
// with the fixed assignment. An unplaced PSUM tensor is the production allocator's coloring overflow, "Allocation
// failed for ...".
void requirePsumFixed(const Program& p) {
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].space == Space::Psum && !p.tensors[t].placement)
      throw AllocError(p.tensors[t].loc, "Allocation failed for " + p.tensors[t].name + ": " +
                                             describeTensor(p, t) +
                                             " has no placement, and optlevel 7 runs no PSUM coloring pass (its PSUM "
                                             "placements come with the fixed assignment); place it in the input, "
                                             "or allocate at optlevel 1-3 or 6");
}

// The production O7 order: the input's placements checked in place, [DMA optimization + address rotation], SB
// coloring of what is not fixed (PSUM and the fixed SBUF part frozen), REG, then the in-place write checker over
// everything. An SB coloring that cannot fit around the fixed part is the production allocator's "Allocation failed
// for ...".
void runFixedAssignment(Program& p, const Effort& e, const DriverOptions& o, std::vector<StepStats>& steps) {
  const int verbosity = o.verbosity;
  InPlaceOptions partial;
  partial.require_placed = false;
  checkInPlace(p, partial);  // the input's own placements first, so a conflict names the input's pair
  uint32_t fixed_tensors = 0, fixed_regs = 0;
  for (const Tensor& t : p.tensors) fixed_tensors += t.space != Space::Dram && t.placement.has_value();
  std::vector<bool> keep_regs(p.registers.size());
  for (size_t i = 0; i < p.registers.size(); ++i) {
    keep_regs[i] = p.registers[i].phys.has_value();
    fixed_regs += keep_regs[i];
  }
  requirePsumFixed(p);
  // DMA optimization (PSUM, then SB instance) runs here in the production allocator's O7 order, before SB coloring.
  // It sees the program's own pinned flags (not the freeze), and may drop inserted tensors.
  runDmaOpt(p, DmaOptInstance::Psum, o, steps);
  runDmaOpt(p, DmaOptInstance::Sb, o, steps);
  std::vector<bool> saved = freeze(p, true, true);
  const bool sbuf_pass = hasUnplaced(p, Space::Sbuf);
  if (sbuf_pass) {
    try {
      runSbuf(p, e, o, steps);
    } catch (const AllocError& err) {
      throw AllocError(err.loc(), std::string("Allocation failed for SB around the fixed placements (optlevel 7): ") +
                                      err.what());
    }
  }
  thaw(p, saved);
  runReg(p, keep_regs, verbosity, steps);
  checkInPlace(p);

  InPlaceStats s{fixed_tensors, fixed_regs, sbuf_pass, 0};
  for (const Tensor& t : p.tensors) s.checked += t.placement.has_value();
  s.checked += uint32_t(p.registers.size());
  steps.push_back(s);
}

// --allocator exact: the search places PSUM and SBUF (at optlevel 7 completing the input's placements), then REG.
void runExact(Program& p, int optlevel, const DriverOptions& o, std::vector<StepStats>& steps) {
  ExactAllocOptions eo;
  eo.time_limit_s = o.time_limit_s;
  eo.node_budget = o.node_budget;
  eo.progress = o.progress;
  eo.check = o.exact_check;
  eo.keep_placements = optlevel == 7;
  std::vector<bool> keep_regs(p.registers.size());
  for (size_t i = 0; i < p.registers.size(); ++i) keep_regs[i] = eo.keep_placements && p.registers[i].phys;
  if (eo.keep_placements) {
    InPlaceOptions partial;
    partial.require_placed = false;
    checkInPlace(p, partial);
  }
  ExactAllocResult r = allocateExact(p, eo);
  p = std::move(r.program);
  steps.push_back(std::move(r.stats));
  runReg(p, keep_regs, o.verbosity, steps);
}

// --sbuf-heuristic and --psum-heuristic name a heuristic of a colorer that runs on this path, within its range.
void requireHeuristicsRun(const DriverOptions& o, AllocPath path) {
  const bool coloring = path == AllocPath::Coloring || path == AllocPath::ColoringWithLoops;
  if (o.sbuf_heuristic) {
    if (!coloring && path != AllocPath::FixedAssignment)
      throw OptionError("--sbuf-heuristic: the SBUF colorer runs at optlevels 1-3, 6 and 7 with the coloring "
                        "allocator only");
    if (*o.sbuf_heuristic >= kSbufHeuristicCount)
      throw OptionError("--sbuf-heuristic " + std::to_string(*o.sbuf_heuristic) + " is not a heuristic (0-" +
                        std::to_string(kSbufHeuristicCount - 1) + ")");
  }
  if (o.psum_heuristic) {
    if (!coloring)
      throw OptionError("--psum-heuristic: the PSUM colorer runs at optlevels 1-3 and 6 with the coloring "
                        "allocator only (optlevel 7 has no PSUM pass)");
    if (*o.psum_heuristic >= kPsumHeuristicCount)
      throw OptionError("--psum-heuristic " + std::to_string(*o.psum_heuristic) + " is not a heuristic (0-" +
                        std::to_string(kPsumHeuristicCount - 1) + ")");
  }
}

}  // namespace

Effort effortFor(int optlevel) {
  switch (optlevel) {
    case 1: return {1, 1, true};
    case 3: return {4, kSbufHeuristicCount, !ALLOCSIM_PLANT("o3_without_packing")};
    default: return {4, 7, true};  // sbuf_heuristic.h: the sweep's first seven
  }
}

DriverResult allocate(const Program& input, const DriverOptions& o) { return allocate(Program(input), o); }

DriverResult allocate(Program&& input, const DriverOptions& o) {
  if (o.allocator == "exact") {
    if (o.sbuf_heuristic || o.psum_heuristic)
      throw OptionError("--sbuf-heuristic and --psum-heuristic choose a colorer's heuristic; --allocator exact "
                        "runs no colorer");
    const int level = o.smt_allocation ? 7 : o.optlevel;
    DriverResult result{std::move(input), {level, level == 7 ? AllocPath::FixedAssignment : AllocPath::Coloring}, {}, {}};
    requireFeasible(result.program);
    runExact(result.program, result.selection.optlevel, o, result.steps);
    return result;
  }
  if (o.node_budget)
    throw OptionError("--node-budget limits the exact allocator's search: it needs --allocator exact");
  SelectionInput in;
  in.optlevel = o.optlevel;
  in.allocator = o.allocator;
  in.cores = o.cores;
  in.loops_in_backend = o.loops_in_backend;
  in.smt_allocation = o.smt_allocation;
  DriverResult result{std::move(input), selectAllocator(in), {}, {}};
  if (o.gca_dma_optlevel < -1 || o.gca_dma_optlevel > 2)
    throw OptionError("--gca-dma-optlevel " + std::to_string(o.gca_dma_optlevel) +
                      " is not a level (expected -1, 0, 1 or 2)");
  const Selection& s = result.selection;
  requireHeuristicsRun(o, s.path);
  Program& p = result.program;
  requireFeasible(p);  // what no allocator can do is told before any of them runs
  // The input's liveness report is taken before the allocators change the program in place.
  if (o.liveness_report) result.liveness = computeLiveness(p).stats;
  const Effort e = effortFor(s.optlevel);
  switch (s.path) {
    case AllocPath::NoReuse:
      runNoReuse(p, result.steps);
      runReg(p, {}, o.verbosity, result.steps);
      break;
    case AllocPath::Coloring:
    case AllocPath::ColoringWithLoops: runColoring(p, e, o, result.steps); break;
    case AllocPath::FixedAssignment: runFixedAssignment(p, e, o, result.steps); break;
    case AllocPath::LinearScan: runLinearScan(p, s.optlevel, o, result.steps); break;
  }
  return result;
}

}  // namespace allocsim
