// The PSUM colorer (as in the production allocator): Chaitin–Briggs over PSUM banks, run first in the allocation
// pipeline (its placements are then frozen for the SBUF colorer), on the colorers' one skeleton (alloc/colorer.h):
// one spill fixpoint whose every round tries all the level's orders. One round:
//   live_range (alloc/liveness.h, bank footprint + capacity guard)  ->  build (psum_interference.h)
//   -> find_costs (psum_costs.h) -> for each heuristic: simplify (psum_simplify.h), select (psum_select.h)
// keeping the selection with the lowest score (best-of-n, psum_heuristic.h). If its spill set is empty the
// placements are committed; otherwise insert_spill_code (psum_spill.h) spills the set's spillable nodes (those
// whose accumulation groups can be saved once closed, psum_def_regions.h) and the next round runs on the
// rewritten program. Every round spills at least one original tensor and spilled tensors are never spilled
// again, so there are at most (PSUM tensors + 1) rounds. A spill set of un-spillable nodes only (groups open
// together that need more banks than PSUM has) is "too many reloads required" (AllocError).
#pragma once

#include <cstdint>
#include <optional>

#include "alloc/colorer_stats.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

struct PsumOptions {
  uint32_t heuristics = 4;  // best-of-n: how many of psum_heuristic.h's orders to try (clamped to 1..4)
  // One order alone (a PsumHeuristic's index, below kPsumHeuristicCount) in every round, in its two variants
  // (simplify's and the plain stack), instead of `heuristics`: for looking at one order (`alloc --psum-heuristic`)
  // and for having the oracles check each (fuzz/coloring_driver_fuzz.cpp, fuzz/psum_colorer_fuzz.cpp).
  std::optional<uint32_t> only_heuristic;
  // 0: the counters only; 1: also each round and heuristic in PsumStats::trace (scores, nodes that found no bank,
  // spills); 2: also simplify's worklist sizes.
  int verbosity = 0;
  const ProgressFn* progress = nullptr;  // each spill round (ir/progress.h)
};

// What the PSUM colorer counted (tools/report_format.h prints it as the production allocator's report).
struct PsumStats {
  // Before spilling: the input's bank demand against the capacity.
  double demand_pct = 0;          // capacity / demand, in percent (100 when nothing is demanded)
  uint32_t banks = 0;             // PSUM's
  uint64_t bank_demand = 0;       // banks summed over all PSUM tensors
  uint64_t max_concurrent_banks = 0;
  ColorerOutcome outcome;
  uint32_t spill_saves = 0, spill_reloads = 0;
  // Banks that hold a tensor live at some point, after the rotation through free banks (psum_recent_banks.h);
  // outcome.score is of the selection best-of-n chose, before it.
  uint32_t banks_used = 0;
  ColorerTrace trace;             // per round (PsumOptions::verbosity >= 1)
  bool operator==(const PsumStats&) const = default;
};

struct PsumResult {
  Program program;  // every PSUM tensor placed (@bankN); spill slots (SBUF/DRAM) left unplaced
  PsumStats stats;
};

// Throws AllocError (capacity guard, "too many reloads required") and InputError (a pinned PSUM placement out of
// bounds). Deterministic: the same input gives the same program and stats.
PsumResult allocatePsum(const Program& p, const PsumOptions& o = {});
// The same on a program the caller gives up (the driver's): it is moved in, not copied.
PsumResult allocatePsum(Program&& p, const PsumOptions& o = {});

}  // namespace allocsim
