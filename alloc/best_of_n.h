// The production allocator's best-of-N, as both colorers run it (PSUM and SBUF share one Chaitin–Briggs
// skeleton, as in the production allocator): each round tries n heuristics and keeps the selection with the lowest
// score. Strictly lower: among equal scores the earlier heuristic wins, which keeps the choice deterministic. A
// selection that places every node beats one that leaves some unplaced whatever their scores (a failed node's spill
// cost may round to 0 cycles).
#pragma once

#include <utility>

#include "ir/plant.h"

namespace allocsim {

template <class Heuristic, class Selection>  // Selection has a `double score` and a container `failed`
struct BestOfN {
  Heuristic heuristic{};
  Selection selection{};

  // Forgets the previous round's choice: the next offer wins.
  void restart() { have_ = false; }

  void offer(Heuristic h, Selection s) {
    if (have_ && !better(s, selection)) return;
    heuristic = h;
    selection = std::move(s);
    have_ = true;
  }

 private:
  static bool better(const Selection& a, const Selection& b) {
    if (a.failed.empty() != b.failed.empty()) return a.failed.empty();
    if (ALLOCSIM_PLANT("round_choice_keeps_worst")) return a.score > b.score;
    return a.score < b.score;
  }
  bool have_ = false;
};

}  // namespace allocsim
