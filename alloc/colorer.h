// The one skeleton of the graph colorers (PSUM, SBUF and REG): the Chaitin–Briggs spill fixpoint, written once.
// "GCA" in the production compiler's log lines ("REG GCA interation nums", "Pre GCA") is its name for this family:
// Graph-Coloring Allocation.
//
// A run is one spill fixpoint. Each round:
//   buildRound     liveness, interference graph and spill costs of the run's current program
//   colorOrders    the color orders the round tries (a heuristic order, through simplify or plain)
//   selectWith     simplify (or the plain order) and select for one order: a selection, maybe with failed nodes
//                  -- the round keeps the best selection: one that places every node beats one that does not,
//                     then the lower score; the earlier order on ties
//   endRound       the round's report lines
//   chooseSpills   what to spill so that the failed nodes color next round; empty when nothing can help
//   rewrite        insert the spill code: the next round runs on the rewritten program
// until a round places every node (the run colored) or the run stops (nothing can help, or it cannot win).
// The convergence guard: a round beyond roundLimit() is a bug in the colorer (each round spills at least one node
// that could spill, and spill code is never spilled again), reported as std::logic_error, never an endless loop.
//
// Best of whole fixpoints: allocate(runs) runs each of `runs` fixpoints to its end and keeps the best
// (betterRun), so trying more runs never gives a worse result. What a run stands for is the colorer's choice:
// the SBUF colorer's runs are its heuristics, each trying its order through simplify and plain in every round; the
// PSUM colorer, as the production PSUM allocator does, runs one fixpoint whose every round tries all its
// heuristics' orders; the REG colorer, as the production REG allocator does, one fixpoint of one order.
//
// In the manner of LLVM's RegAllocBase: one driver loop here, the colorers supply their graph, costs and spill
// rewrite as the named virtual functions below.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "alloc/alloc_error.h"
#include "ir/plant.h"

namespace allocsim {

// What a run ends with; a colorer's own run type derives from it and adds its program state.
template <class Order, class Selection>
struct ColorerRun {
  Order order{};          // the color order of the last round's selection
  Selection selection{};  // the last round's selection; it places every node when the run colored
  uint32_t rounds = 0;
  uint32_t spilled = 0;   // nodes spilled over all rounds
  double spill_cycles = 0;  // their spill costs, summed
  std::optional<AllocError> error;  // set when nothing could help this run
  bool abandoned = false;            // stopped because it could no longer win
};

// `Selection` has `failed` (the nodes select could not place) and `score` (lower is better).
template <class Order, class Selection, class Run>
class Colorer {
 public:
  virtual ~Colorer() = default;

  // Runs fixpoints 0 .. runs-1 (runs >= 1) and returns the best by betterRun; the earlier on ties.
  Run allocate(uint32_t runs) {
    std::optional<Run> best;
    for (uint32_t k = 0; k < runs; ++k) {
      Run run = fixpoint(k, best ? &*best : nullptr);
      if (!best || betterRun(run, *best)) best = std::move(run);
    }
    return std::move(*best);
  }

 protected:
  // The run's first state; `best` is the best finished run so far (null for the first).
  virtual Run startRun(uint32_t k, const Run* best) = 0;
  // More rounds than this means the fixpoint does not converge.
  virtual uint32_t roundLimit() const = 0;
  virtual const char* memoryName() const = 0;  // in the guard's message
  virtual void buildRound(Run& run) = 0;
  virtual std::vector<Order> colorOrders(const Run& run) const = 0;
  virtual Selection selectWith(Run& run, const Order& order) = 0;
  virtual void endRound(Run&) {}
  // The nodes to spill after run.selection failed some; empty when no spill can help.
  virtual std::vector<uint32_t> chooseSpills(Run& run) = 0;
  // When chooseSpills found nothing: why nothing can help (the run's error).
  virtual AllocError cannotColor(Run& run) = 0;
  // Inserts the spill code of `victims`; false when the run stops there (it sets run.error or run.abandoned).
  virtual bool rewrite(Run& run, const std::vector<uint32_t>& victims) = 0;
  // Whether run a is better than run b (a later run must be strictly better to replace an earlier one). A colorer
  // that allocates with one run never compares.
  virtual bool betterRun(const Run&, const Run&) const { return false; }

 private:
  Run fixpoint(uint32_t k, const Run* best) {
    Run run = startRun(k, best);
    for (;;) {
      if (run.rounds > roundLimit())
        throw std::logic_error(std::string(memoryName()) + " spill fixpoint did not converge");
      ++run.rounds;
      buildRound(run);
      bool have = false;
      for (const Order& order : colorOrders(run)) {
        Selection s = selectWith(run, order);
        if (have && !betterSelection(s, run.selection)) continue;
        run.order = order;
        run.selection = std::move(s);
        have = true;
      }
      endRound(run);
      if (run.selection.failed.empty()) return run;
      const std::vector<uint32_t> victims = chooseSpills(run);
      if (victims.empty()) {
        run.error = cannotColor(run);
        return run;
      }
      if (!rewrite(run, victims)) return run;
    }
  }

  // A selection that places every node beats one that leaves some unplaced whatever their scores (a failed node's
  // spill cost may round to 0 cycles); then strictly the lower score.
  static bool betterSelection(const Selection& a, const Selection& b) {
    if (a.failed.empty() != b.failed.empty()) return a.failed.empty();
    if (ALLOCSIM_PLANT("round_choice_keeps_worst")) return a.score > b.score;
    return a.score < b.score;
  }
};

}  // namespace allocsim
