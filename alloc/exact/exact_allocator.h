// The exact allocator (`allocsim alloc --allocator exact --time-limit S`): PSUM, then SBUF, each placed by
// the complete search of alloc/exact/exact_search.h over the live ranges of alloc/liveness.h. It never spills:
// either every tensor gets a placement within the machine, or allocation is impossible (AllocError, exit code 3)
// with what the search established: "proved" (no placement exists) or "not proved impossible" (the time limit or
// node budget ran out, with the best height and its gap to the lower bound, or the reason below).
//
// What "proved" means. The live ranges cover what the data needs, but may be larger: one position stands for every
// iteration of its loops, and a write that may not run (an `if`) extends a range. Two tensors the live ranges keep
// apart may never be live together in any run, so "no placement over the live ranges" proves nothing by itself. A
// proof holds only over the pairs of tensors live together for certain at one interpreter step (alloc/exact/
// certain_live.h), which every placement the verifier accepts must keep apart:
//   - by lower bound: the area bound over the tensors live together for certain at one step exceeds the capacity;
//     the refusal names them;
//   - by search: the complete search finds no placement that keeps those pairs apart. Where every pair the live
//     ranges keep apart is such a pair, the search over the live ranges is that search; otherwise the search runs
//     again over the certain pairs alone (a relaxation: fewer conflicts), with the time left and the same node
//     budget. A placement it finds stands if the placement oracle (ExactAllocOptions::check) accepts the whole
//     program; if not, the refusal says "not proved impossible" and names the oracle's finding.
//
// SBUF is 2-D: a tensor spans a band of its partition count starting at any multiple of the partition start
// quantum, its byte offset is a multiple of sbuf-align. When every SBUF tensor spans all partitions the problem is
// the 1-D one of minimalloc. PSUM: a tensor takes ceil(bytes per partition / bank bytes) whole banks; 1-D over
// banks. Pinned tensors keep their placement; with `keep_placements` (optlevel 7: "complete the placement exactly")
// every placement the input gives is kept the same way and the search places the rest.
//
// Lifetimes are measured on the canonical timeline (canonical_timeline.h): a run of instructions that only end live
// ranges, or only start them, counts as one position, so buffers that end or start together have the same ends.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "alloc/exact/exact_problem.h"
#include "alloc/exact/exact_search.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

// What the placement oracle (verify/placement.h) says of an allocated program's SBUF and PSUM placements. The
// allocators cannot call the verifier (alloc/ depends on ir/ only), so the caller passes it (tools/placement_check.h).
struct PlacementVerdict {
  std::string finding;  // "" when accepted, else the first finding
  // The pairs of tensors it found live together on shared storage.
  std::vector<std::pair<TensorId, TensorId>> live_together;
};
using PlacementCheck = std::function<PlacementVerdict(const Program&)>;

struct ExactAllocOptions {
  double time_limit_s = 10;  // per space (PSUM, SBUF)
  // Per space too: give up (Unknown) once a round of the search has used this many nodes (0: no budget). Unlike the
  // time limit, it makes the outcome depend on the program only: `--node-budget`, and what the exact_driver fuzz
  // target uses, so that a finding reproduces from its input.
  uint64_t node_budget = 0;
  bool keep_placements = false;
  const ProgressFn* progress = nullptr;  // the search's nodes (ir/progress.h)
  // Where no placement keeps apart every pair of tensors the live ranges keep apart, but one keeps apart those live
  // together for certain at one step: that placement stands when `check` accepts it (none given: it never stands).
  PlacementCheck check;
};

// One space's search (tools/report_format.h prints it).
struct ExactSpaceStats {
  uint64_t tensors = 0;   // live tensors placed by the search
  uint32_t rows = 1;      // SBUF: partitions when the problem is 2-D; 1 otherwise
  uint64_t capacity = 0;  // bytes (SBUF) or banks (PSUM)
  ExactStatus status = ExactStatus::Fit;
  uint64_t height = 0, lower_bound = 0, nodes = 0;
  double seconds = 0;
  std::string method;     // what established the height
  bool operator==(const ExactSpaceStats&) const = default;
};

struct ExactStats {
  // The value split (alloc/value_split.h): each value of a split tensor an item of its own.
  uint32_t split_tensors = 0, split_values = 0;
  ExactSpaceStats psum, sbuf;
  bool operator==(const ExactStats&) const = default;
};

struct ExactAllocResult {
  Program program;
  ExactStats stats;
};

// The problem allocateExact searches for one space (Space::Sbuf or Space::Psum) of `p`: one item per tensor of that
// space that executed code mentions, in tensor order.
ExactProblem exactProblemOfSpace(const Program& p, Space space, bool keep_placements = false);

// Throws AllocError when a space cannot be placed (see above).
ExactAllocResult allocateExact(const Program& p, const ExactAllocOptions& o);

}  // namespace allocsim
