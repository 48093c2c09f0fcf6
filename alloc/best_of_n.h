// Seed 000's best-of-N, as both colorers run it (PSUM and SBUF share one Chaitin–Briggs skeleton, seed 003):
// each round tries n heuristics and keeps the selection with the lowest score. Strictly lower: among equal
// scores the earlier heuristic wins, which keeps the choice deterministic.
#pragma once

#include <utility>

namespace allocsim {

template <class Heuristic, class Selection>  // Selection has a `double score`
struct BestOfN {
  Heuristic heuristic{};
  Selection selection{};

  // Forgets the previous round's choice: the next offer wins.
  void restart() { have_ = false; }

  void offer(Heuristic h, Selection s) {
    if (have_ && !(s.score < selection.score)) return;
    heuristic = h;
    selection = std::move(s);
    have_ = true;
  }

 private:
  bool have_ = false;
};

}  // namespace allocsim
