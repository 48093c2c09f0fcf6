// Soundness of the segment liveness (alloc/liveness.h) on programs that reuse tensors: tensors written anew after
// their last read, buffers recycled from one phase to the next, unrolled copies of one computation.
// - the static live ranges cover the verifier's dynamic liveness (also on looped programs with `if` blocks and
//   register-bounded loops, and on phases in a loop that rewrite part of a value), and on straight-line phase
//   programs (whole tensors only) the static max-live equals the dynamic one;
// - the values of one tensor, split into tensors of their own, never interfere;
// - -O7 accepts every pinned allocation that `allocsim verify` accepts;
// - the exact search says "proved" only when no placement exists: on small programs, straight-line and looped, its
//   proofs are checked against an exhaustive search over PSUM banks whose candidates the placement oracle judges
//   (props/exact_props.cpp does the same on generated loop programs with `%`, `//`, `if` and recycled tensors);
// - no level refuses a program that the exact search places.
// A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/liveness.h"
#include "alloc/value_split.h"
#include "gen/choices.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "tools/placement_check.h"
#include "verify/correct.h"
#include "verify/dynamic_liveness.h"
#include "verify/liveness_precision.h"
#include "verify/placement.h"

namespace allocsim {

void requireStaticContainsDynamic(Program p);  // props/liveness_props.cpp
// Levels 1, 2, 3, 6 and 8 place `p`, which `what` says is placeable; a refusal is saved as `regression`_O<level>.
void requireEveryLevelPlaces(const Program& p, const std::string& what, const std::string& regression);  // exact_props

namespace {

// A program of the generator with on-chip tensors recycled (GenOptions::reuse) at a high rate.
rc::Gen<Program> genRecycling() { return genTinyProgram({1, 30, {50, 100, 200}, {50, 100}, {}, 0}); }

// A looped program of the generator with `if` blocks on the loop registers and loops bounded by enclosing loops'
// registers (GenOptions::conditionals) at a high rate, tensors recycled as above.
rc::Gen<Program> genConditional() { return genTinyProgram({4, 30, {50, 100, 200}, {25, 100}, {40, 100}, 0}); }

// A straight-line program in phases, as kernels are written without loops: PSUM accumulators a0.. and SBUF buffers
// s0.. are redefined again and again (matmul start/stop or memset into a PSUM tensor, copy or tt out of it into an
// SBUF buffer), each phase reading what an earlier one left; sometimes the same phase unrolled twice, sometimes a
// PSUM value held over the later phases. Whole tensors
// only, so static and dynamic liveness agree exactly. 1 to 3 PSUM banks; SBUF is the tiny machine's.
// `looped`: the phases run in a loop of 1 to 3 iterations, and a phase may first rewrite part of its PSUM tensor and
// read that part back (a value partly rewritten in a loop, then replaced whole).
rc::Gen<Program> genPhases(bool looped = false) {
  return rc::gen::exec([looped] {
    // Draws from a seeded stream: RapidCheck's small early draws would make nearly every case one phase of one
    // tensor.
    SeededChoices c(*rc::gen::arbitrary<uint64_t>());
    auto draw = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(c.below(hi - lo + 1)); };  // [lo, hi]
    const uint32_t banks = draw(1, 3);
    const uint32_t n = draw(1, 4);  // PSUM tensors
    const uint32_t m = draw(1, 3);  // SBUF buffers
    std::string text = "arch tiny psum-banks=" + std::to_string(banks) +
                       "\n"
                       "dram X [8, 64] f32 input\n"
                       "dram W [8, 8] f32 input\n"
                       "dram O [8, 64] f32 output\n"
                       "sbuf x [8, 64] f32\n"
                       "sbuf w [8, 8] f32\n";
    for (uint32_t j = 0; j < m; ++j) text += "sbuf s" + std::to_string(j) + " [8, 64] f32\n";
    for (uint32_t i = 0; i < n; ++i) text += "psum a" + std::to_string(i) + " [8, 64] f32\n";
    if (looped) text += "reg i\n";
    text += "dma x, X\ndma w, W\n";
    if (looped) text += "loop i = 0, " + std::to_string(draw(1, 3)) + ", 1 {\n";
    std::vector<bool> s_written(m, false);
    auto source = [&]() -> std::string {  // x or a written buffer
      std::vector<std::string> from{"x"};
      for (uint32_t j = 0; j < m; ++j)
        if (s_written[j]) from.push_back("s" + std::to_string(j));
      return from[c.below(from.size())];
    };
    // Phases; one of them may keep a PSUM value open across later phases (read only at the end).
    const uint32_t phases = draw(1, 8);
    std::string last = "x", held;
    for (uint32_t k = 0; k < phases; ++k) {
      const std::string a = "a" + std::to_string(draw(0, n - 1));
      if (a == held) continue;
      const uint32_t j = draw(0, m - 1);
      const std::string s = "s" + std::to_string(j);
      std::string phase;
      if (looped && s_written[j] && draw(0, 2) == 0)
        phase += "memset " + a + "[:, 0:32], 0.25\ntt " + s + "[:, 0:32], " + s + "[:, 0:32], " + a +
                 "[:, 0:32], add\n";
      switch (draw(0, 2)) {
        case 0: phase += "matmul " + a + ", w, " + source() + ", start, stop\n"; break;
        case 1: phase += "memset " + a + ", 0.5\n"; break;
        default:
          phase += "matmul " + a + ", w, " + source() + ", start\n";
          phase += "matmul " + a + ", w, " + source() + ", stop\n";
          break;
      }
      if (held.empty() && n > 1 && draw(0, 3) == 0) {  // held over: read after the last phase
        text += phase;
        held = a;
        continue;
      }
      if (s_written[j] && draw(0, 1)) phase += "tt " + s + ", " + s + ", " + a + ", add\n";
      else phase += "copy " + s + ", " + a + "\n";
      text += phase;
      if (draw(0, 3) == 0) text += phase;  // unrolled twice
      s_written[j] = true;
      last = s;
    }
    if (!held.empty()) {
      text += "copy s0, " + held + "\n";
      last = "s0";
    }
    if (looped) text += "}\n";
    text += "dma O, " + last + "\n";
    return parseProgram(text);
  });
}

// Every SBUF tensor of a phase program at its own offset (x, w, s0, s1, ...: 256, 32, 256, ... bytes per partition),
// so that only the PSUM placement can conflict.
void placeSbufApart(Program& p) {
  uint64_t offset = 0;
  for (Tensor& t : p.tensors) {
    if (t.space != Space::Sbuf) continue;
    Placement pl;
    pl.offset = offset;
    t.placement = pl;
    offset += (t.bytesPerPartition() + 63) / 64 * 64;
  }
}

std::vector<TensorId> psumTensors(const Program& p) {
  std::vector<TensorId> out;
  for (TensorId t = 0; t < p.tensors.size(); ++t)
    if (p.tensors[t].space == Space::Psum) out.push_back(t);
  return out;
}

// Whether some assignment of banks to the PSUM tensors (SBUF placed apart) passes the placement oracle: every
// candidate of banks^n is tried.
bool someBankAssignmentFits(Program p) {
  placeSbufApart(p);
  const std::vector<TensorId> ps = psumTensors(p);
  const uint32_t banks = p.arch.psum_banks;
  std::vector<uint32_t> bank(ps.size(), 0);
  for (;;) {
    for (size_t i = 0; i < ps.size(); ++i) {
      Placement pl;
      pl.bank = bank[i];
      p.tensors[ps[i]].placement = pl;
    }
    if (checkPlacement(p).empty()) return true;
    size_t i = 0;
    while (i < bank.size() && ++bank[i] == banks) bank[i++] = 0;
    if (i == bank.size()) return false;
  }
}

RC_GTEST_PROP(Reuse, StaticRangesContainTheDynamicOnesOnRecyclingPrograms, ()) {
  requireStaticContainsDynamic(*genRecycling());
}

RC_GTEST_PROP(Reuse, StaticRangesContainTheDynamicOnesOnPhases, ()) {
  requireStaticContainsDynamic(*genPhases());
}

RC_GTEST_PROP(Reuse, StaticRangesContainTheDynamicOnesOnLoopedPhases, ()) {
  requireStaticContainsDynamic(*genPhases(true));
}

// The values of one tensor are never live together: split into tensors of their own (alloc/value_split.h), no two
// of them interfere, so splitting never asks for more room than the tensor whole.
RC_GTEST_PROP(Reuse, ValuesOfOneTensorNeverInterfere, ()) {
  const int which = *rc::gen::inRange(0, 3);
  Program p = which == 0 ? *genRecycling() : which == 1 ? *genConditional() : *genPhases(true);
  splitValues(p);
  const Liveness live = computeLiveness(p);
  uint32_t split = 0;
  for (TensorId c = 0; c < p.tensors.size(); ++c) {
    if (p.tensors[c].origin != Origin::Copy || p.tensors[c].copy_of == kNone) continue;
    ++split;
    const TensorId t = p.tensors[c].copy_of;
    for (TensorId d = 0; d < p.tensors.size(); ++d) {
      const bool sibling = d == t || (d != c && p.tensors[d].origin == Origin::Copy && p.tensors[d].copy_of == t);
      if (sibling && interferes(live.tensors[c], live.tensors[d])) {
        const std::string why = "values '" + p.tensors[c].name + "' and '" + p.tensors[d].name + "' of '" +
                                p.tensors[t].name + "' are live together";
        saveRegression("reuse_values_interfere", p, why);
        RC_FAIL(why + "\n" + printProgram(p));
      }
    }
  }
  RC_TAG(split > 0 ? "values split" : "nothing split");
}

RC_GTEST_PROP(Reuse, StaticRangesContainTheDynamicOnesOnConditionalPrograms, ()) {
  const Program p = *genConditional();
  uint32_t ifs = 0, bounded = 0;
  forEachInstruction(p.body, [&](const Instruction& i) {
    ifs += i.op == Op::If;
    bounded += hasRegisterBound(i);
  });
  RC_TAG(ifs > 0 ? "with if blocks" : "no if block");
  RC_TAG(bounded > 0 ? "with register-bounded loops" : "no register-bounded loop");
  requireStaticContainsDynamic(p);
}

RC_GTEST_PROP(Reuse, StaticMaxLiveEqualsTheDynamicOneOnPhases, ()) {
  const Program p = *genPhases();
  const LivenessPrecision lp = livenessPrecision(p);
  RC_TAG("PSUM max-live " + std::to_string(lp.dynamic_psum_banks));
  if (lp.static_sbuf_bytes != lp.dynamic_sbuf_bytes || lp.static_psum_banks != lp.dynamic_psum_banks) {
    const std::string why = "static max-live " + std::to_string(lp.static_sbuf_bytes) + " B / " +
                            std::to_string(lp.static_psum_banks) + " banks, dynamic " +
                            std::to_string(lp.dynamic_sbuf_bytes) + " B / " + std::to_string(lp.dynamic_psum_banks) +
                            " banks";
    saveRegression("reuse_max_live", p, why);
    RC_FAIL(why);
  }
}

// A pinned allocation of a phase program: SBUF apart, PSUM tensors on random banks; when `allocsim verify`
// accepts it, -O7 must reproduce it.
RC_GTEST_PROP(Reuse, O7AcceptsWhatVerifyAccepts, ()) {
  const Program original = *genPhases(*rc::gen::arbitrary<bool>());
  Program pinned = original;
  placeSbufApart(pinned);
  for (Register& r : pinned.registers) r.phys = 0;  // the looped phases' one loop register
  for (TensorId t : psumTensors(pinned)) {
    Placement pl;
    pl.bank = *rc::gen::inRange<uint32_t>(0, pinned.arch.psum_banks);
    pinned.tensors[t].placement = pl;
  }
  CorrectnessOptions check;  // as `allocsim verify --original` checks it
  check.input = &original;
  check.verify.poison_seed = 7;
  const bool accepted = checkAllocation(pinned, check).ok();
  RC_TAG(accepted ? "verify accepts" : "verify refuses");
  if (!accepted) return;
  DriverOptions o;
  o.optlevel = 7;
  try {
    allocate(pinned, o);
  } catch (const AllocError& e) {
    const std::string why = std::string("-O7 refuses an allocation that verify accepts: ") + e.what();
    saveRegression("reuse_o7_refuses", pinned, why);
    RC_FAIL(why + "\n" + printProgram(pinned));
  }
}

// The exact search's verdict against the exhaustive one; and every level places what the exact search places.
RC_GTEST_PROP(Reuse, ExactProofsHoldAndNoLevelRefusesWhatItPlaces, ()) {
  const bool looped = *rc::gen::arbitrary<bool>();
  const Program p = *genPhases(looped);
  RC_TAG(looped ? "looped phases" : "straight-line phases");
  DriverOptions eo;
  eo.allocator = "exact";
  eo.exact_check = placementOracleCheck();  // as `allocsim alloc` judges a placement over the certain conflicts
  bool placed = true;
  try {
    allocate(p, eo);
  } catch (const AllocError& e) {
    placed = false;
    const std::string msg = e.what();
    if (msg.find("(proved by") != std::string::npos && someBankAssignmentFits(p)) {
      const std::string why = "the exact search proves no placement, but one passes the placement oracle: " + msg;
      saveRegression("reuse_exact_false_proof", p, why);
      RC_FAIL(why + "\n" + printProgram(p));
    }
  }
  RC_TAG(placed ? "exact places it" : "exact refuses");
  if (!placed) return;
  requireEveryLevelPlaces(p, "the exact search places", "reuse_refuses");
}

}  // namespace
}  // namespace allocsim
