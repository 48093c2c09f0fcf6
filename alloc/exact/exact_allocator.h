// The exact allocator (`allocsim alloc --allocator exact --time-limit S`): PSUM, then SBUF, each placed by
// the complete search of alloc/exact/exact_search.h over the live ranges of alloc/liveness.h. It never spills:
// either every tensor gets a placement within the machine, or allocation is impossible (AllocError, exit code 3)
// with what the search established: "proved" (the search was complete, or the lower bound exceeds the capacity)
// or "not found within the time limit" with the best height and its gap to the lower bound. A lower bound proves
// only over tensors live together for certain at one step (alloc/exact/certain_live.h), and a refusal names those;
// where only the live ranges' bound exceeds the capacity (tensors live at one position in different iterations of
// its loops), the refusal says so and claims no proof.
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
#include <string>

#include "alloc/exact/exact_problem.h"
#include "alloc/exact/exact_search.h"
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
