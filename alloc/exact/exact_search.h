// The exact placement search: a complete branch-and-bound over placements that proves a fit within the
// capacity, proves there is none, or stops at the time limit with the best placement it has and its gap to the
// lower bound.
//
// The approach is minimalloc's (Moffitt, "MiniMalloc: A Lightweight Memory Allocator for Hardware-Accelerated
// Machine Learning", ASPLOS 2023; google/minimalloc), reimplemented and extended to row bands, alignment and pinned
// items:
// - canonical solutions: any fit can be turned into one where no item can move to a lower offset (on any allowed
//   row). Such a fit places items in nondecreasing offset order, each at the top of the highest item below it
//   (rounded up to its alignment), so a node only chooses which item (and row start) comes next; ties by a
//   preorder rank;
// - dominance: an item that could still sit below the candidate's offset (its lowest offset + size <= it) would
//   move down in a canonical fit, so such candidates are skipped;
// - inference on the remaining items: at every cross section of the live ranges, what remains must fit above the
//   current offset and the section's floor (rows x bytes when items span row bands);
// - an item that constrains no unplaced item and whose subtree failed ends the node (hatless pruning);
// - dynamic decomposition: where no unplaced item is live across two sections, each side is searched alone;
// - round robin over six preorders (minimalloc's WAT, TAW, TWA: width, area, total; and the same with widths in
//   runs of the live set rather than positions) with a node limit that
//   doubles, so one bad order does not eat the budget.
// Before searching, a first-fit placement over several orders gives a fit at once when one exists that easily, and
// is the best placement reported when the time runs out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alloc/exact/exact_problem.h"
#include "ir/progress.h"

namespace allocsim {

enum class ExactStatus : uint8_t {
  Fit,      // placements within the capacity
  NoFit,    // proved: the search was complete
  Unknown,  // time limit reached; placements = the best found (may exceed the capacity)
};
const char* exactStatusName(ExactStatus s);

struct ExactSearchOptions {
  double time_limit_s = 10;
  bool greedy_first = true;  // try first fit before searching (off: measure the search alone)
  // Stop with Unknown once a round of the preorders has used this many nodes in all (0: no budget). Unlike the
  // time limit it makes the answer depend on the problem only (the SBUF colorer's packing, sbuf_packing.h).
  uint64_t node_budget = 0;
  const ProgressFn* progress = nullptr;  // every 256 nodes, when the clock is read (ir/progress.h)
  std::string progress_phase = "exact search";
};

struct ExactResult {
  ExactStatus status = ExactStatus::Unknown;
  std::vector<ExactPlacement> placements;
  uint64_t height = 0;  // of `placements`
  uint64_t lower_bound = 0;
  uint64_t nodes = 0;
  double seconds = 0;
  std::string method;  // "first fit (size)", "search TWA", "lower bound", ...
};

// About the bytes the search's tables take for `p` (its overlap lists grow with the pairs of items live at a common
// position), found in O(n log n) without building them: a caller with a memory budget refuses a problem before.
uint64_t exactTableBytes(const ExactProblem& p);

// The time limit covers building the search's tables too.
ExactResult solveExact(const ExactProblem& p, const ExactSearchOptions& o = {});

// One problem solved at several capacities (p.capacity is ignored): solve(c, o) returns what solveExact would for
// p at capacity c, and what does not depend on the capacity (the normalized problem, the search's tables, the
// first-fit placements) is built once. The SBUF colorer's packing ladder (sbuf_packing.h) asks up to ten capacities.
class ExactSolver {
 public:
  // Building the tables stops once `setup_limit_s` seconds have passed; solve() then returns Unknown with no
  // placements at once. `progress` (may be null) hears how far the building is.
  explicit ExactSolver(const ExactProblem& p, double setup_limit_s = 1e9, const ProgressFn* progress = nullptr);
  ~ExactSolver();
  ExactSolver(const ExactSolver&) = delete;
  ExactSolver& operator=(const ExactSolver&) = delete;
  ExactResult solve(uint64_t capacity, const ExactSearchOptions& o = {});

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace allocsim
