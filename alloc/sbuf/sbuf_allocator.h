// The SBUF colorer (the production allocator's contrast sections, and its best-of-N): Chaitin–Briggs over 2-D
// rectangles (partition x byte), on the colorers' one skeleton (alloc/colorer.h): one spill fixpoint per heuristic,
// the best whole fixpoint kept. It runs after the PSUM colorer, whose placements it leaves as they are. One round:
//   liveness (sbuf_live_ranges.h) -> build (sbuf_interference.h) -> find_costs (sbuf_costs.h)
//   -> for the heuristic (sbuf_heuristic.h: color order x placement policy), in its two color orders:
//        simplify (sbuf_simplify.h, geometric degree test sbuf_degree.h), select (sbuf_select.h);
//        the plain order (sbuf_simplify.h plainSbufStack), select
// keeping the selection that places everything, else the lower score. If nothing failed, its placements are
// committed. Otherwise the failed spillable nodes are spilled to DRAM (sbuf_spill.h) — or, if every failed node is
// un-spillable, for each the cheapest spillable neighbour — and the next round runs on the rewritten program: a
// fixpoint. Every round spills at least one tensor that was spillable, and nothing spilling makes is spillable, so
// the rounds are bounded. Best-of-N runs each heuristic's whole fixpoint and keeps the one that spills the fewest
// bytes, then occupies the least SBUF (so more heuristics never do worse); a run stops as soon as it has spilled
// more than a finished one. With `packing`, the exact search's packing (sbuf_packing.h) is one more candidate,
// taken when its height fits. When every run met a failed node with no spillable neighbour, nothing can help:
// AllocError naming it and the demand.
//
// Which SBUF tensors are this colorer's: those without a placement (spill slots a PSUM pass inserted among them).
// SBUF tensors that already have one (pinned, or placed by an earlier pass) keep it and are obstacles while live.
// PSUM and DRAM tensors and registers are left as they are (PSUM is placed first; registers last).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "alloc/colorer_stats.h"
#include "alloc/sbuf/sbuf_heuristic.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

struct SbufOptions {
  uint32_t heuristics = kSbufHeuristicCount;  // best-of-N: how many of sbuf_heuristic.h's sweep to try (clamped to 1..16)
  bool packing = true;       // also the exact search's packing (sbuf_packing.h) as a candidate
  // One heuristic of the sweep alone (its index in sbuf_heuristic.h, below kSbufHeuristicCount), with no packing
  // candidate, instead of `heuristics` and `packing`: its own fixpoint is the result. Best-of-N shows only the
  // winner's result, so a heuristic that loses on a program is neither seen nor checked there; this is how a user
  // looks at one (`alloc --sbuf-heuristic`) and how fuzz/coloring_driver_fuzz.cpp has the oracles check each.
  std::optional<uint32_t> only_heuristic;
  // Color as with unlimited room: every node passes simplify's degree test, so each heuristic colors in its
  // plain order (sbuf_simplify.h plainSbufStack) and simplify's capacity-dependent order is not tried. With the
  // largest SBUF the arch accepts this is the height a level reaches unconstrained; the arch's 2^24 bytes alone are
  // not (minimalloc's B: the degree test still fails there, simplify reorders and may reach a lower height that the
  // same level does not reach again at that height as the capacity). At a capacity at or above the height reached
  // so, the same level never spills: each heuristic's plain order is a candidate at every capacity and places
  // every node as it does here (sbuf_placement_policy.h), and the packing does not depend on the capacity.
  bool unlimited_room = false;
  // Live-range splitting by a copy (sbuf_split.h) where the best placement spills nothing but reaches above 1.05x
  // the max-live: each of the best split points is tried (the whole colorer on the program with its copy), and the
  // first lowest placement within 1.05x is kept. Off in those inner runs.
  bool split = true;
  // Load headroom (sbuf_recent_bytes.h keepLoadsApart), in percent of the max-live area spread over the partitions
  // (loadHeadroomLimit): the winner's load destinations that still share bytes with a tensor read shortly before them
  // move above the peak, up to (100 + load_headroom_pct)% of it. 0: none, the peak stays where best-of-N and the
  // rotation put it.
  uint32_t load_headroom_pct = 0;
  // 0: the counters only; 1: also each heuristic's rounds in SbufStats::trace (scores, nodes that found no
  // rectangle, spills); 2: also simplify's worklist sizes.
  int verbosity = 0;
  const ProgressFn* progress = nullptr;  // each spill round of each heuristic (ir/progress.h)
};

// What the SBUF colorer counted (tools/report_format.h prints it as the production allocator's report).
// One copy live-range splitting inserted (sbuf_split.h): the tensor split, the copy that holds its later mentions
// and the source line of the statement the copy follows (0 when that statement has no location).
struct SbufSplitCopy {
  std::string tensor, copy;
  uint32_t line = 0;
  bool operator==(const SbufSplitCopy&) const = default;
};

struct SbufStats {
  // Before allocation: the input's demand against the capacity, in bytes (partitions x bytes per partition).
  double demand_pct = 0;  // capacity / demand, in percent (100 when nothing is demanded)
  uint64_t capacity_bytes = 0;
  uint64_t demand_bytes = 0;    // summed over all SBUF tensors
  uint64_t max_live_bytes = 0;  // at most live at once
  ColorerTrace trace;           // per heuristic and round (SbufOptions::verbosity >= 1)
  // The exact packing candidate (sbuf_packing.h), traced at verbosity >= 1.
  enum class Packing : uint8_t {
    NotTried,     // no packing candidate
    NotSearched,  // the best run spills nothing and its footprint is the max-live bound
    Found,        // a packing within the capacity (packing_footprint, packing_score)
    None,         // none within the capacity
  } packing = Packing::NotTried;
  uint64_t packing_footprint = 0;
  double packing_score = 0;
  ColorerOutcome outcome;  // best.heuristic is "exact packing" when the packing won
  uint32_t spill_stores = 0, spill_reloads = 0;
  uint64_t spill_bytes = 0;      // of the SBUF tensors spilled to DRAM slots or rehomed to DRAM
  // Each partition's high-water mark, summed over the partitions, of the selection best-of-N chose (what it chose
  // by, with outcome.score); the rotation within the peak after it (sbuf_recent_bytes.h, SbufCeiling::Peak) adds
  // rotation_bytes, below the peak. outcome.utilization_pct is of both.
  uint64_t footprint_bytes = 0;
  uint64_t rotation_bytes = 0;
  uint64_t headroom_bytes = 0;  // the load headroom's (SbufOptions::load_headroom_pct), above the peak of the two
  uint32_t split_copies = 0;  // copies live-range splitting inserted (SbufOptions::split)
  std::vector<SbufSplitCopy> split_log;  // which, one per copy
  bool operator==(const SbufStats&) const = default;
};

struct SbufResult {
  Program program;  // every SBUF tensor placed; spill slots are unplaced DRAM tensors (private storage)
  SbufStats stats;
};

// Throws AllocError when nothing can help (or DRAM spill slots exceed dram-limit) and InputError for an SBUF
// tensor that cannot fit SBUF at all (the well-formedness rules of docs/format.md, repeated so that an unchecked
// program gets the same message). Deterministic: the same input gives the same program and stats.
SbufResult allocateSbuf(const Program& p, const SbufOptions& o = {});
// The same on a program the caller gives up (the driver's): it is moved in, not copied.
SbufResult allocateSbuf(Program&& p, const SbufOptions& o = {});

// docs/format.md's blocking declaration rules for SBUF tensors (shape >= 1, partitions and bytes per partition
// within SBUF) as InputErrors with the checker's messages: shared with the linear-scan allocator, for programs
// that did not go through the checker.
void requireSbufTensorsFit(const Program& p);

}  // namespace allocsim
