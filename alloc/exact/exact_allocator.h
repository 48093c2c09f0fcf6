// The exact allocator (`allocsim alloc --allocator exact --time-limit S`): PSUM, then SBUF, each placed by
// the complete search of alloc/exact/exact_search.h over the live ranges of alloc/liveness.h. It never spills:
// either every tensor gets a placement within the machine, or allocation is impossible (AllocError, exit code 3)
// with what the search established: "proved" (the search was complete, or the lower bound exceeds the capacity)
// or "not found within the time limit" with the best height and its gap to the lower bound.
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

#include "alloc/exact/exact_problem.h"
#include "alloc/report.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

struct ExactAllocOptions {
  double time_limit_s = 10;  // per space (PSUM, SBUF)
  // Per space too: give up (Unknown) once a round of the search has used this many nodes (0: no budget). Unlike the
  // time limit, it makes the outcome depend on the program only: `--node-budget`, and what the exact_driver fuzz
  // target uses, so that a finding reproduces from its input.
  uint64_t node_budget = 0;
  bool keep_placements = false;
  const ProgressFn* progress = nullptr;  // the search's nodes (ir/progress.h)
};

struct ExactAllocResult {
  Program program;
  AllocReport report;
};

// The problem allocateExact searches for one space (Space::Sbuf or Space::Psum) of `p`: one item per tensor of that
// space that executed code mentions, in tensor order.
ExactProblem exactProblemOfSpace(const Program& p, Space space, bool keep_placements = false);

// Throws AllocError when a space cannot be placed (see above).
ExactAllocResult allocateExact(const Program& p, const ExactAllocOptions& o);

}  // namespace allocsim
