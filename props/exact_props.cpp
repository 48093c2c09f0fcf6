// The exact search (alloc/exact/exact_allocator.h) on generated loop programs: loops with `%` and `//` in their
// indexes, `if` blocks on the loop registers, loops bounded by enclosing loops' registers, recycled tensors
// (GenOptions::conditionals and reuse at high rates), small enough for an exhaustive search:
// - it says "proved" only when no placement exists: each proof is checked against an exhaustive search of the space
//   it is about, whose candidates the placement oracle judges;
// - no level refuses a program that the exact search places or that the greedy placer fits.
// A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "alloc/liveness.h"
#include "alloc/value_split.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "tools/placement_check.h"
#include "verify/placement.h"

namespace allocsim {

void requireEveryLevelPlaces(const Program& p, const std::string& what, const std::string& regression) {
  for (int level : {1, 2, 3, 6, 8}) {
    DriverOptions o;
    o.optlevel = level;
    try {
      allocate(p, o);
    } catch (const AllocError& e) {
      const std::string why = "-O" + std::to_string(level) + " refuses what " + what + ": " + e.what();
      saveRegression(regression + "_O" + std::to_string(level), p, why);
      RC_FAIL(why + "\n" + printProgram(p));
    }
  }
}

namespace {

// A small looped program of the generator, mostly `%`, `//`, `if` blocks and recycled tensors, at pressure.
rc::Gen<Program> genSmallLooped() { return genTinyProgram({2, 8, {90, 100, 120, 150}, {50, 100}, {50, 100}, 16}); }

// A loop of phases under `if` blocks on the loop register, as kernels skip or alternate tiles: each phase writes a
// buffer under a condition (`i == c`, `i != c`, `i % 2 == 0`, `i // 2 == 1`, `i >= c`, ...) and later, under the
// same condition, adds it into an accumulator that lives across the loop. The phases' writes and reads interleave,
// so the live ranges of buffers whose conditions never hold together overlap; buffers come from a small pool, so
// one buffer holds several values (recycled). Every SBUF tensor has one shape (3, 4, 5 or 8 partitions; one or two
// to a 4096-byte partition), so the bands of the partition quantum and the bytes both constrain the placement.
rc::Gen<Program> genConditionalPhases() {
  return rc::gen::exec([] {
    SeededChoices c(*rc::gen::arbitrary<uint64_t>());
    auto draw = [&](uint32_t lo, uint32_t hi) { return lo + uint32_t(c.below(hi - lo + 1)); };  // [lo, hi]
    const uint32_t parts = std::vector<uint32_t>{3, 4, 5, 8}[draw(0, 3)];
    const uint32_t elems = draw(0, 1) ? 600 : 400;  // 2400 or 1600 bytes
    const std::string shape = " [" + std::to_string(parts) + ", " + std::to_string(elems) + "] u32\n";
    const uint32_t accs = draw(1, 2), bufs = draw(1, 4), trips = draw(2, 4);
    std::string text = "arch tiny\nreg i\ndram O" + shape.substr(0, shape.size() - 1) + " output\n";
    for (uint32_t k = 0; k < accs; ++k) text += "sbuf a" + std::to_string(k) + shape;
    for (uint32_t k = 0; k < bufs; ++k) text += "sbuf b" + std::to_string(k) + shape;
    for (uint32_t k = 0; k < accs; ++k) text += "memset a" + std::to_string(k) + ", " + std::to_string(k + 1) + "\n";
    text += "loop i = 0, " + std::to_string(trips) + ", 1 {\n";
    auto condition = [&]() -> std::string {
      const std::string k = std::to_string(draw(0, trips - 1));
      switch (draw(0, 8)) {
        case 0: return "i == " + k;
        case 1: return "i != " + k;
        case 2: return "i % 2 == 0";
        case 3: return "i % 2 == 1";
        case 4: return "i // 2 == 0";
        case 5: return "i // 2 == 1";
        case 6: return "i >= " + k;
        case 7: return "i < " + k;
        default: return "";  // unconditional
      }
    };
    auto block = [](const std::string& cond, const std::string& stmt) {
      return cond.empty() ? "  " + stmt + "\n" : "  if " + cond + " {\n    " + stmt + "\n  }\n";
    };
    struct Phase {
      std::string cond, buf, acc;
    };
    std::vector<Phase> phases(draw(1, 5));
    for (Phase& ph : phases) {
      ph.cond = condition();
      ph.buf = "b" + std::to_string(draw(0, bufs - 1));
      ph.acc = "a" + std::to_string(draw(0, accs - 1));
    }
    // Each phase's write comes before its read; between them, other phases' writes and reads in any order.
    std::vector<int> events;  // k + 1: write of phase k, -(k + 1): its read
    std::vector<size_t> open;
    for (size_t k = 0; k < phases.size(); ++k) {
      events.push_back(int(k) + 1);
      open.push_back(k);
      while (!open.empty() && draw(0, 1)) {
        const size_t x = draw(0, uint32_t(open.size() - 1));
        events.push_back(-int(open[x]) - 1);
        open.erase(open.begin() + long(x));
      }
    }
    while (!open.empty()) {
      const size_t x = draw(0, uint32_t(open.size() - 1));
      events.push_back(-int(open[x]) - 1);
      open.erase(open.begin() + long(x));
    }
    for (int e : events) {
      const Phase& ph = phases[size_t(std::abs(e) - 1)];
      if (e > 0) {
        text += block(ph.cond, "memset " + ph.buf + ", " + std::to_string(e) + ".0");
      } else {
        // Another phase may have rewritten the buffer since: the read takes that value, still one written in this
        // iteration (this phase's own write ran under the same condition).
        text += block(ph.cond, "tt " + ph.acc + ", " + ph.acc + ", " + ph.buf + ", add");
      }
    }
    text += "}\n";
    for (uint32_t k = 1; k < accs; ++k) text += "tt a0, a0, a" + std::to_string(k) + ", add\n";
    text += "dma O, a0\n";
    return parseProgram(text);
  });
}

// The tensors of one space the exhaustive search places: those executed code mentions, as the exact search's items.
struct Slot {
  TensorId tensor = kNone;
  uint64_t size = 0, align = 1;
  uint32_t rows = 1;
  std::vector<uint32_t> starts;
};

constexpr size_t kMaxSlots = 7;

// Whether some placement of `space`'s tensors of `p` passes the placement oracle. `p` is what the exact search places
// (its values split, alloc/value_split.h; no pinned tensor). Complete: any placement that passes can be moved down
// until each tensor sits at offset 0 or at the top (rounded up to its alignment) of a tensor on its rows, so every
// assignment of such a support (none or another tensor) and a start row is tried. Which pairs must not share storage
// is what the oracle finds with every tensor of the space at one place (each pair live together at some step, once);
// a candidate that keeps those apart is then judged by the oracle itself. nullopt: more tensors than kMaxSlots.
std::optional<bool> someSpacePlacementPasses(Program p, Space space) {
  const Arch& a = p.arch;
  const bool sbuf = space == Space::Sbuf;
  const Liveness live = computeLiveness(p);
  std::vector<Slot> slots;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    Tensor& x = p.tensors[t];
    if (x.space == Space::Dram) continue;
    x.placement = Placement{};  // every on-chip tensor at the corner
    if (x.space != space || live.tensors[t].empty()) continue;
    Slot s;
    s.tensor = t;
    s.size = sbuf ? x.bytesPerPartition() : psumBankCount(a, x);
    s.align = sbuf ? std::max<uint32_t>(a.sbuf_align, 1) : 1;
    s.rows = sbuf ? x.partitions : 1;
    const uint32_t quantum = std::max<uint32_t>(a.sbuf_partition_quantum, 1);
    if (sbuf)
      for (uint32_t r = 0; r + s.rows <= a.sbuf_partitions; r += quantum) s.starts.push_back(r);
    else
      s.starts = {0};
    slots.push_back(s);
  }
  if (slots.size() > kMaxSlots) return std::nullopt;
  for (Register& r : p.registers) r.phys = 0;
  const size_t n = slots.size();
  std::vector<int> slot_of(p.tensors.size(), -1);
  for (size_t i = 0; i < n; ++i) slot_of[slots[i].tensor] = int(i);
  auto pairsSharing = [&](const Program& q) {  // the oracle's overlaps between two of the slots
    std::vector<std::pair<int, int>> out;
    for (const Finding& f : checkPlacement(q))
      if (f.kind == FindingKind::Overlap && f.region.items.size() == 2 && slot_of[f.region.items[0]] >= 0 &&
          slot_of[f.region.items[1]] >= 0)
        out.push_back({slot_of[f.region.items[0]], slot_of[f.region.items[1]]});
    return out;
  };
  std::vector<std::vector<bool>> apart(n, std::vector<bool>(n, false));
  for (auto [i, j] : pairsSharing(p)) apart[size_t(i)][size_t(j)] = apart[size_t(j)][size_t(i)] = true;
  const uint64_t capacity = sbuf ? a.sbuf_bytes : a.psum_banks;
  std::vector<size_t> support(n, 0), start(n, 0);  // support: 0 none, k: slot k - 1
  std::vector<uint64_t> offset(n);
  std::vector<int> state(n);  // 0 not computed, 1 computing, 2 done
  for (;;) {
    // The offsets of this assignment (a cycle of supports: no placement).
    bool ok = true;
    std::fill(state.begin(), state.end(), 0);
    auto resolve = [&](auto&& self, size_t i) -> bool {
      if (state[i] == 2) return true;
      if (state[i] == 1) return false;
      state[i] = 1;
      uint64_t off = 0;
      if (support[i]) {
        const size_t j = support[i] - 1;
        if (j == i || !self(self, j)) return false;
        off = (offset[j] + slots[j].size + slots[i].align - 1) / slots[i].align * slots[i].align;
      }
      offset[i] = off;
      state[i] = 2;
      return true;
    };
    for (size_t i = 0; i < n && ok; ++i) ok = resolve(resolve, i) && offset[i] + slots[i].size <= capacity;
    for (size_t i = 0; i < n && ok; ++i)
      for (size_t j = i + 1; j < n && ok; ++j) {
        const uint32_t ri = slots[i].starts[start[i]], rj = slots[j].starts[start[j]];
        const bool rows = ri < rj + slots[j].rows && rj < ri + slots[i].rows;
        const bool bytes = offset[i] < offset[j] + slots[j].size && offset[j] < offset[i] + slots[i].size;
        ok = !(apart[i][j] && rows && bytes);
      }
    if (ok) {
      Program q = p;
      for (size_t i = 0; i < n; ++i) {
        Placement pl;
        if (sbuf) {
          pl.partition = slots[i].starts[start[i]];
          pl.offset = offset[i];
        } else {
          pl.bank = uint32_t(offset[i]);
        }
        q.tensors[slots[i].tensor].placement = pl;
      }
      if (pairsSharing(q).empty()) return true;
    }
    // The next assignment: supports, then starts, as one counter.
    size_t k = 0;
    for (; k < 2 * n; ++k) {
      const size_t i = k % n;
      if (k < n) {
        if (++support[i] <= n) break;
        support[i] = 0;
      } else {
        if (++start[i] < slots[i].starts.size()) break;
        start[i] = 0;
      }
    }
    if (k == 2 * n) return false;
  }
}

// The program as the exact search places it: unpinned placements dropped, each value of a tensor a tensor of its own.
Program asTheExactSearchPlacesIt(Program p) {
  for (Tensor& t : p.tensors)
    if (t.space != Space::Dram && !t.pinned) t.placement.reset();
  splitValues(p);
  return p;
}

bool anyPinned(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.space != Space::Dram && t.pinned) return true;
  return false;
}

DriverOptions exactOptions() {
  DriverOptions o;
  o.allocator = "exact";
  o.time_limit_s = 10;
  o.node_budget = 200000;
  o.exact_check = placementOracleCheck();
  return o;
}

// What the program has of the constructs these properties are about.
void tagConstructs(const Program& p) {
  uint32_t ifs = 0, loops = 0;
  forEachInstruction(p.body, [&](const Instruction& i) {
    ifs += i.op == Op::If;
    loops += i.op == Op::Loop;
  });
  uint32_t values = 0;
  Program split = asTheExactSearchPlacesIt(p);
  for (const Tensor& t : split.tensors) values += t.origin == Origin::Copy && t.copy_of != kNone;
  RC_TAG(std::string(loops ? "loops" : "no loop") + (ifs ? ", if blocks" : "") + (values ? ", recycled" : ""));
}

RC_GTEST_PROP(ExactProofs, HoldOnLoopedProgramsWithConditionalsAndRecycling, ()) {
  const Program p = *rc::gen::arbitrary<bool>() ? *genSmallLooped() : *genConditionalPhases();
  RC_PRE(!anyPinned(p));
  tagConstructs(p);
  std::string msg;
  try {
    allocate(p, exactOptions());
    RC_TAG("exact places it");
    return;
  } catch (const AllocError& e) {
    msg = e.what();
  } catch (const InputError&) {
    RC_DISCARD("the program does not run within the interpreter's limits");
  }
  if (msg.find("(proved by") == std::string::npos) {
    RC_TAG("refused, not proved");
    return;
  }
  const bool psum = msg.find(" live PSUM tensors") != std::string::npos;
  const std::optional<bool> fits = someSpacePlacementPasses(asTheExactSearchPlacesIt(p), psum ? Space::Psum : Space::Sbuf);
  if (!fits) {
    RC_TAG("proved, too many tensors to search");
    return;
  }
  RC_TAG(psum ? "proved, PSUM checked" : "proved, SBUF checked");
  if (*fits) {
    const std::string why = "the exact search proves no placement, but one passes the placement oracle: " + msg;
    saveRegression("exact_false_proof", p, why);
    RC_FAIL(why + "\n" + printProgram(p));
  }
}

// Every level that spills places what the exact search places or the greedy placer fits.
RC_GTEST_PROP(ExactProofs, NoLevelRefusesWhatTheExactSearchOrTheGreedyPlacerPlaces, ()) {
  const Program p = *rc::gen::arbitrary<bool>() ? *genSmallLooped() : *genConditionalPhases();
  bool exact = true, greedy = true;
  try {
    allocate(p, exactOptions());
  } catch (const AllocError&) {
    exact = false;
  } catch (const InputError&) {
    RC_DISCARD("the program does not run within the interpreter's limits");
  }
  try {
    placeGreedy(p);
  } catch (const AllocError&) {
    greedy = false;
  }
  RC_TAG(exact ? (greedy ? "both place it" : "exact places it") : greedy ? "greedy fits it" : "neither");
  if (!exact && !greedy) return;
  requireEveryLevelPlaces(p, exact ? "the exact search places" : "the greedy placer fits", "exact_refused");
}

}  // namespace
}  // namespace allocsim
