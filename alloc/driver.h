// The allocation driver: picks the allocator family by the Selection Map (alloc/optlevel.h) and runs it, then the
// REG step, which runs last at every optlevel (as the production allocator does: its REG step is
// optlevel-independent).
//
//   O0     no reuse: every SBUF tensor its own rectangle, every PSUM tensor its own banks (alloc/no_reuse.h)
//   O1-3   PSUM colorer first, its placements frozen, then the SBUF colorer (alloc/sbuf/), as the production
//          allocator orders them. Unpinned placements in the input are dropped first. The levels differ in effort
//          only: best-of-n heuristics PSUM 1 / 4 / 4 (the PSUM colorer has 4), SBUF 1 / 7 / 16 (of its 16: 4 orders
//          x 4 placement policies, ranked in alloc/sbuf/sbuf_heuristic.h), each with the packing candidate
//          (alloc/sbuf/sbuf_packing.h)
//   O6     coloring with loops. allocsim keeps loops (there is no unroller), so every colorer already runs on
//          the loop-extended linear order of alloc/liveness.h (the production allocator's loop variant): O6 is
//          O2's pipeline
//   O7     fixed assignment in the production allocator's order: placements given by the input (pinned or not)
//          are checked in place; there is no PSUM coloring pass (an unplaced PSUM tensor fails: "Allocation
//          failed for <name>"); DMA optimization (address rotation not yet); the SBUF colorer places the SBUF
//          tensors that are unplaced, around the fixed part (it runs only when there are some); REG; then the
//          whole result is re-placed by the in-place write checker (alloc/in_place.h)
//   O8, O6 + --allocator lsa   the linear-scan allocator (alloc/lsa/lsa_allocator.h), PSUM then SB, from scratch
//          (unpinned placements dropped); the O6 path is run_with_loops ("Linear Scan Allocator(LIW)")
//   exact  --allocator exact (no production counterpart): the complete placement search of alloc/exact/, no
//          spilling
//   DMA    DMAOptimization (alloc/dma_opt/dma_optimization.h), --gca-dma-optlevel: at O1-3 and O6 the PSUM instance
//          right after the PSUM colorer and the SB instance right after the SBUF colorer; at O7 both before the SBUF
//          pass (O7 has no PSUM pass), as the production allocator runs DMA optimization before SB coloring; not at
//          O0 nor on the linear-scan path (the production minimal and O8 pipelines have no DMA optimization)
//   REG    the REG colorer (alloc/reg/reg_allocator.h): Chaitin–Briggs over the SP register lanes, spilling
//          registers to DRAM slots; at O7 registers placed by the input are kept
//
// Errors: OptionError (a production assert or a path that does not exist: exit code 2), AllocError (the allocator
// cannot fit the program: exit code 3, the allocator's diagnostic), InputError (malformed placements: exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "alloc/dma_opt/dma_optimization.h"
#include "alloc/exact/exact_allocator.h"
#include "alloc/liveness.h"
#include "alloc/lsa/lsa_allocator.h"
#include "alloc/optlevel.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/reg/reg_allocator.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/value_split.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

struct DriverOptions {
  int optlevel = 2;
  std::string allocator;  // "", "coloring", "lsa", "exact" (alloc/exact/exact_allocator.h; any optlevel, 7 keeps
                          // the input's placements and completes them)
  double time_limit_s = 10;  // --allocator exact: per space
  uint64_t node_budget = 0;  // --allocator exact: per space, 0 = none (ExactAllocOptions::node_budget)
  PlacementCheck exact_check;  // --allocator exact: ExactAllocOptions::check
  int cores = 1;
  bool loops_in_backend = false;
  bool smt_allocation = false;
  int verbosity = 0;  // passed to the allocators: 0 counters, 1 also their rounds recorded, 2 more detail
  int gca_dma_optlevel = 1;  // -1 off, 0 analysis only, 1 default, 2 also on-chip copies (dma_optimization.h)
  // The SBUF colorer's load headroom in percent of the max-live (SbufOptions::load_headroom_pct); unset: the
  // level's (kSbufLoadHeadroomPct, alloc/driver.cpp).
  std::optional<uint32_t> sbuf_load_headroom_pct;
  bool sbuf_unlimited_room = false;  // the SBUF colorer colors as with unlimited room (SbufOptions::unlimited_room)
  // false: no exact packing candidate for the SBUF colorer at any level (Effort::sbuf_packing is then ignored). For
  // callers that test what comes after the colorer (fuzz/reg_colorer_fuzz.cpp), where the search was a third of
  // the time.
  bool sbuf_packing = true;
  // One colorer heuristic alone instead of the level's best-of-n (SbufOptions / PsumOptions::only_heuristic: an
  // index into alloc/sbuf/sbuf_heuristic.h's sweep, 0-15, or psum_heuristic.h's orders, 0-3). Only where that colorer
  // runs: the SBUF one at O1-O3, O6 and O7, the PSUM one at O1-O3 and O6; elsewhere an OptionError.
  std::optional<uint32_t> sbuf_heuristic;
  std::optional<uint32_t> psum_heuristic;
  const ProgressFn* progress = nullptr;  // the allocators' rounds, scans and search nodes (ir/progress.h)
  // Also decide the input's liveness once more for its figures alone (DriverResult::liveness): costs a liveness of
  // the whole input, which no step needs.
  bool liveness_report = false;
};

// O0's placement: how many tensors got storage of their own.
struct NoReuseStats {
  uint32_t sbuf_tensors = 0, psum_tensors = 0;
  bool operator==(const NoReuseStats&) const = default;
};

// O7's fixed assignment and the in-place write checker after it.
struct InPlaceStats {
  uint32_t fixed_tensors = 0;    // SBUF and PSUM placements reproduced from the input
  uint32_t fixed_registers = 0;  // register placements reproduced from the input
  bool sbuf_pass = false;        // whether the SBUF colorer ran (there were unplaced SBUF tensors)
  uint32_t checked = 0;          // placements the checker re-placed
  bool operator==(const InPlaceStats&) const = default;
};

// What one step of the driver counted (tools/report_format.h prints each as the production allocator's report).
using StepStats = std::variant<NoReuseStats, PsumStats, DmaOptStats, SbufStats, LsaStats, ExactStats, RegStats,
                               InPlaceStats, ValueSplitStats>;

struct DriverResult {
  Program program;
  Selection selection;
  // One per step that ran, in order: "no-reuse", "psum", "dma_optimization_psum", "sbuf", "dma_optimization_sb",
  // "lsa", "exact", "reg", "in-place", "values" (tools/report_format.h stepName).
  std::vector<StepStats> steps;
  // How the one liveness (alloc/liveness.h) decided the input's loops, with DriverOptions::liveness_report.
  std::optional<LivenessStats> liveness;
};

// The first step of kind S, or null.
template <class S>
const S* findStep(const DriverResult& r) {
  for (const StepStats& s : r.steps)
    if (const S* found = std::get_if<S>(&s)) return found;
  return nullptr;
}

// Best-of-n heuristic counts per optlevel (see above).
struct Effort {
  uint32_t psum_heuristics = 4;
  uint32_t sbuf_heuristics = 4;
  bool sbuf_packing = true;  // the exact search's packing as one more SBUF candidate (alloc/sbuf/sbuf_packing.h)
};
Effort effortFor(int optlevel);

DriverResult allocate(const Program& p, const DriverOptions& o);
// The same, allocating `p` in place: for a caller that has no use for the input afterwards (a large program is
// then held once, not twice).
DriverResult allocate(Program&& p, const DriverOptions& o);

}  // namespace allocsim
