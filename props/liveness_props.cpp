// Properties of the one liveness (alloc/liveness.h) and of what allocators must keep:
// - soundness: on generated programs, the static live range of every tensor and register contains every step at
//   which the interpreter observes it live (verify/dynamic_liveness.h), mapped to its linear position;
// - every optlevel keeps the pinned placements of its input (gen/pins.h makes them);
// - a coloring level never refuses a program that the greedy placer (no spilling) fits.
// A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "alloc/liveness.h"
#include "alloc/reg/reg_live_pieces.h"
#include "gen/pins.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "verify/dynamic_liveness.h"
#include "verify/liveness_precision.h"

namespace allocsim {
namespace {

rc::Gen<Program> genTiny() {
  return genProgramOn(*archPreset("tiny"), 30);  // the real register file: the REG colorer spills
}

}  // namespace

// For each step of a run (as stepPositions maps them) that executes inside the body of `loop`: 1 when it belongs to
// the last iteration of the loop's run, 0 to another; -1 for a step outside the body. An iteration runs from the
// loop's own step (at its header position) over the body's steps; the next iteration's step ends it (it was not the
// last), any other step outside the body ends the run (it was).
std::vector<int8_t> lastIterationSteps(const LinearOrder& order, const std::vector<uint32_t>& pos_of_step,
                                       int32_t loop) {
  const LinearLoop& l = order.loops[size_t(loop)];
  std::vector<int8_t> out(pos_of_step.size(), -1);
  std::vector<uint64_t> open;  // the body's steps of the current iteration
  auto close = [&](bool last) {
    for (uint64_t s : open) out[s] = last ? 1 : 0;
    open.clear();
  };
  for (uint64_t s = 1; s < pos_of_step.size(); ++s) {
    const uint32_t pos = pos_of_step[s];
    if (pos == l.header) close(false);
    else if (pos > l.header && pos < l.end) open.push_back(s);
    else close(true);
  }
  close(true);
  return out;
}

// Requires every step at which the interpreter observes a tensor or register live to lie in its static range (a
// segment of it), on an iteration the range claims there (LiveRange::only), and for a register in one of the REG
// colorer's pieces. Also used by props/reuse_props.cpp.
void requireStaticContainsDynamic(Program p);
void requireStaticContainsDynamic(Program p) {
  p.renumber();
  const Liveness st = computeLiveness(p);
  const std::vector<uint32_t> pos_of_step = stepPositions(p, st.order);
  const DynamicLiveness dy = computeDynamicLiveness(p);
  std::vector<std::vector<int8_t>> last_of(st.order.loops.size());  // lastIterationSteps, by loop, when asked
  bool narrowed = false;
  auto check = [&](const std::string& what, const LiveRange& r, const LiveIntervals& d) {
    for (const StepInterval& i : d.intervals())
      for (uint64_t s = i.lo; s <= i.hi && s < pos_of_step.size(); ++s) {
        const uint32_t pos = pos_of_step[s];
        std::string why;
        if (!r.contains(pos)) {
          why = what + " is live at step " + std::to_string(s) + " (linear position " + std::to_string(pos) +
                ") but its static range is " +
                (r.empty() ? "empty" : std::to_string(r.first) + ".." + std::to_string(r.last)) +
                (r.segmentCount() > 1 ? " in " + std::to_string(r.segmentCount()) + " segments" : "");
        } else if (const IterationPart* q = r.partAt(pos)) {
          narrowed = true;
          // 1: the step is on the last iteration of every loop of the part's chain; 0: not of some; -1: outside one.
          int8_t all = 1;
          bool whole_chain = false;  // every loop of the chain holds the step
          for (int32_t l = q->loop; l >= 0; l = st.order.loops[size_t(l)].parent) {
            std::vector<int8_t>& last = last_of[size_t(l)];
            if (last.empty()) last = lastIterationSteps(st.order, pos_of_step, l);
            if (last[s] < 0) break;
            if (last[s] == 0) all = 0;
            if (l == q->outermost()) {
              whole_chain = true;
              break;
            }
          }
          if (!whole_chain) all = -1;
          if (all == (q->last_iteration ? 1 : 0)) continue;
          why = what + " is live at step " + std::to_string(s) + " (linear position " + std::to_string(pos) +
                ", " + (all == 1 ? "the last" : all == 0 ? "not the last" : "no") +
                " iteration of the loops from the one at " +
                std::to_string(st.order.loops[size_t(q->outermost())].header) + " in to the one at " +
                std::to_string(st.order.loops[size_t(q->loop)].header) + ") but its static range holds positions " +
                std::to_string(q->first) + ".." + std::to_string(q->last) + " on " +
                (q->last_iteration ? "the last iteration only" : "every iteration but the last");
        } else {
          continue;
        }
        saveRegression("liveness_unsound", p, why);
        RC_FAIL(why + "\n" + printProgram(p));
      }
  };
  for (TensorId t = 0; t < p.tensors.size(); ++t) check("tensor '" + p.tensors[t].name + "'", st.tensors[t], dy.tensors[t]);
  // Registers: their segments, and the REG colorer's pieces (one per segment: alloc/reg/reg_live_pieces.h), which
  // is what it colors and what O7's checker accepts.
  const std::vector<std::vector<LiveRange>> pieces = registerLivePieces(p, st);
  for (RegId r = 0; r < p.registers.size(); ++r) {
    check("register '" + p.registers[r].name + "'", st.registers[r], dy.registers[r]);
    LiveRange colored;
    for (const LiveRange& piece : pieces[r]) colored.add({piece.first, piece.last});
    check("register '" + p.registers[r].name + "' (REG colorer's pieces)", colored, dy.registers[r]);
  }
  RC_TAG(st.stats.per_iteration > 0 ? "per-iteration decisions" : "none per iteration");
  RC_TAG(st.stats.carried > 0 ? "loop-carried decisions" : "none carried");
  RC_TAG(narrowed ? "live on some iterations only" : "no iteration narrowed");
}

namespace {

RC_GTEST_PROP(Liveness, StaticRangesContainTheDynamicOnes, ()) { requireStaticContainsDynamic(*genTiny()); }

// A view `T[:, OFF:COUNT]` of a [8, 64] tensor whose offset is constant or affine in a loop register, in range for
// every value the register takes (0 .. trips - 1).
std::string chunk(const std::string& t, const std::string& reg, uint64_t trips, uint32_t count) {
  const uint32_t scale = reg.empty() ? 0 : *rc::gen::element(0u, 8u, count);
  const uint64_t span = uint64_t(scale) * (trips - 1) + count;
  if (span > 64) return t + "[:, 0:" + std::to_string(count) + "]";
  const uint64_t constant = *rc::gen::inRange<uint64_t>(0, 64 - span + 1) / 8 * 8;
  std::string off = scale == 0 ? std::to_string(constant)
                               : reg + "*" + std::to_string(scale) + (constant ? "+" + std::to_string(constant) : "");
  return t + "[:, " + off + ":" + std::to_string(count) + "]";
}

// Loops whose bodies write and read tensors piecewise — column chunks indexed by the loop registers, partial
// coverage, reads before or after the writes, an accumulation over an inner loop — where the back-edge rule
// has something to decide (the general generator rarely makes these). Not necessarily well-formed (a read may
// find never-written memory), which liveness and the interpreter handle.
rc::Gen<Program> genPiecewiseLoops() {
  return rc::gen::exec([] {
    const uint64_t ti = *rc::gen::inRange<uint64_t>(1, 5), tj = *rc::gen::inRange<uint64_t>(1, 4);
    std::string text =
        "arch tiny\n"
        "dram A [8, 64] f32 input\n"
        "dram O [8, 64] f32 output\n"
        "sbuf t0 [8, 64] f32\nsbuf t1 [8, 64] f32\nsbuf t2 [8, 64] f32\nsbuf t3 [8, 64] f32\n"
        "psum acc [8, 8] f32\n"
        "reg i\nreg j\n"
        "dma t0, A\n"
        "loop i = 0, " + std::to_string(ti) + ", 1 {\n";
    const char* names[] = {"t1", "t2", "t3"};
    auto any = [&] { return std::string(names[*rc::gen::inRange(0, 3)]); };
    auto body = [&](const std::string& reg, uint64_t trips, int statements) {
      for (int s = 0; s < statements; ++s) {
        switch (*rc::gen::inRange(0, 4)) {
          case 0: text += "  memset " + chunk(any(), reg, trips, *rc::gen::element(8u, 16u, 32u)) + ", 1.0\n"; break;
          case 1: {
            const uint32_t count = *rc::gen::element(8u, 16u, 32u);
            text += "  copy " + chunk(any(), reg, trips, count) + ", " + chunk(any(), reg, trips, count) + "\n";
            break;
          }
          case 2: text += "  copy " + any() + ", t0\n"; break;
          default: text += "  tt " + any() + ", t0, " + any() + ", add\n"; break;
        }
      }
    };
    body("i", ti, *rc::gen::inRange(1, 5));
    if (*rc::gen::inRange(0, 2)) {
      text += "  loop j = 0, " + std::to_string(tj) + ", 1 {\n";
      body("j", tj, *rc::gen::inRange(1, 4));
      if (*rc::gen::inRange(0, 2))
        text += "  matmul acc, t0[:, 0:8], " + any() + "[:, 8:8], start@first, stop@last\n";
      text += "  }\n";
      if (*rc::gen::inRange(0, 2)) text += "  copy " + any() + "[:, 0:8], acc\n";
      body("i", ti, *rc::gen::inRange(0, 3));
    }
    text += "}\n";
    if (*rc::gen::inRange(0, 2)) text += "dma O, " + any() + "\n";
    return parseProgram(text);
  });
}

RC_GTEST_PROP(Liveness, StaticRangesContainTheDynamicOnesOnPiecewiseLoops, ()) {
  requireStaticContainsDynamic(*genPiecewiseLoops());
}

RC_GTEST_PROP(Pinned, EveryLevelKeepsPinnedPlacements, ()) {
  Program p = *genTiny();
  // Which tensors to pin: a seeded stream (RapidCheck's small early draws would pin nothing).
  SeededChoices choices(*rc::gen::arbitrary<uint64_t>());
  const uint32_t pinned = pinPlacements(p, choices, 50);
  // DRAM tensors at given offsets too: no allocator may move them, pinned or not (only spill slots get DRAM
  // addresses, at O8, past every placed tensor).
  const uint32_t dram_placed = placeDramTensors(p, choices, 50);
  RC_PRE(pinned + dram_placed > 0u);
  // Every path: O0 no reuse, O1-O3 coloring, O6 coloring with loops, O7 fixed assignment, O8 linear scan.
  const int level = *rc::gen::element(0, 1, 2, 3, 6, 7, 8);
  DriverOptions o;
  o.optlevel = level;
  DriverResult r;
  try {
    r = allocate(p, o);
  } catch (const AllocError&) {
    RC_DISCARD("allocation impossible");  // when refusing is wrong: Coloring.NeverRefusesWhatTheGreedyPlacerFits
  }
  for (const Tensor& t : p.tensors) {
    if (!t.pinned && !(t.space == Space::Dram && t.placement)) continue;
    const TensorId out = r.program.findTensor(t.name);
    RC_ASSERT(out != kNone);
    const Tensor& u = r.program.tensors[out];
    if (u.placement != t.placement || u.pinned != t.pinned) {
      const std::string why = "-O" + std::to_string(level) + " moved " + (t.pinned ? "pinned" : "placed DRAM") +
                              " tensor '" + t.name + "'";
      saveRegression("pinned_moved_O" + std::to_string(level), p, why);
      RC_FAIL(why + "\n" + printProgram(r.program));
    }
  }
  RC_TAG("O" + std::to_string(level));
}

RC_GTEST_PROP(Coloring, NeverRefusesWhatTheGreedyPlacerFits, ()) {
  Program p = *genTiny();
  SeededChoices choices(*rc::gen::arbitrary<uint64_t>());
  RC_TAG(pinPlacements(p, choices, 20) > 0 ? "some pinned" : "none pinned");
  try {
    placeGreedy(p);
  } catch (const AllocError&) {
    RC_DISCARD("the greedy placer does not fit it either");
  }
  const int level = *rc::gen::element(1, 2, 3, 6);
  DriverOptions o;
  o.optlevel = level;
  try {
    allocate(p, o);
  } catch (const AllocError& e) {
    const std::string why = "-O" + std::to_string(level) + " refuses what the greedy placer fits: " + e.what();
    saveRegression("coloring_refuses_O" + std::to_string(level), p, why);
    RC_FAIL(why);
  }
  RC_TAG("O" + std::to_string(level));
}

}  // namespace
}  // namespace allocsim
