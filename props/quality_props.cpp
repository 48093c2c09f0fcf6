// Quality properties of the allocators over generated programs: not whether an allocation is correct (the oracles
// say that) but whether it is as good as the allocator's own design promises. Each compares the allocator with
// itself or with a simpler or exact one on the same program:
// - best of n: the level's result scores no worse than any heuristic it tries, run alone; and the PSUM colorer's
//   choice in its first round, judged by a score computed here from the documented rule, is the best it tried;
// - no PSUM spill when the most banks live at once fit the machine (at -O1 with tensors of one bank only), and at
//   every level none where no tensor's neighbours can cover every run of banks it could take;
// - no level spills SBUF or PSUM where the no-reuse placement (-O0) fits every tensor without reuse;
// - -O3 (every heuristic) scores no worse than -O2 (the first seven);
// - on small programs the colorer's SBUF height is within kHeightFactor of the exact search's.
// Comparisons of scores are made where both runs finish in one round: a later round colors a different program
// (the spill code of the first), so its score is not comparable.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/liveness.h"
#include "alloc/optlevel.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/psum/psum_interference.h"
#include "ir/print.h"
#include "tools/report_format.h"
#include "props/rc_program.h"

namespace allocsim {
namespace {

// The colorer's SBUF height on small programs against the exact search's. Two things add up. The colorer fills the
// lowest band of partitions first, where the search spreads small tensors over both bands of the tiny machine: seven
// tensors of one or two partitions, all live together, take 508 bytes of partition 0 from the colorer and 256 from
// the search (1.98x). And inside its band a small tensor that lives long and was placed first keeps the band's
// lowest bytes, so the tensors after it stack above it: a 20-byte tensor at offset 0 for the whole program lifts a
// 116-byte pair to 140 and a last one to 256 bytes, where the search, with the small ones in the other band, needs
// 120 (2.13x). Neither has a bound of its own (the colorer is a heuristic): the factor is what the generated
// programs reach, with a small margin.
constexpr double kHeightFactor = 2.25;

struct Run {
  bool ok = false;
  DriverResult result;
  std::vector<AllocReport> reports;  // the steps' figures as their report fields (tools/report_format.h)
  double number(const std::string& key, double otherwise = 0) const {
    for (const AllocReport& r : reports)
      if (const ReportField* f = r.find(key))
        return f->kind == ReportField::Kind::Text ? otherwise : std::stod(f->value);
    return otherwise;
  }
  bool has(const std::string& key) const {
    for (const AllocReport& r : reports)
      if (r.find(key)) return true;
    return false;
  }
  std::string text(const std::string& key) const {
    for (const AllocReport& r : reports)
      if (const ReportField* f = r.find(key)) return f->value;
    return "";
  }
};

Run allocateWith(const Program& p, DriverOptions o) {
  Run run;
  try {
    run.result = allocate(p, o);
    for (const StepStats& step : run.result.steps) run.reports.push_back(cli::formatStep(step));
    run.ok = true;
  } catch (const AllocError&) {
  }
  return run;
}

Run atLevel(const Program& p, int level) {
  DriverOptions o;
  o.optlevel = level;
  return allocateWith(p, o);
}

rc::Gen<Program> genTiny(uint32_t max_size = 30) { return genProgramOn(*archPreset("tiny"), max_size); }

// Tensors spilled from SBUF and PSUM by whichever allocator ran (the colorers' or the linear scan's fields).
double onChipSpills(const Run& r) {
  return r.number("sbuf.tensors_spilled") + r.number("psum.tensors_spilled") + r.number("lsa.sbuf.spilled") +
         r.number("lsa.psum.spilled");
}

RC_GTEST_PROP(Quality, BestOfNKeepsTheBestCandidateItTried, ()) {
  const Program p = *genTiny();
  const Run best = atLevel(p, 2);
  RC_PRE(best.ok);
  const Effort effort = effortFor(2);
  // Each of the colorer's n heuristics alone (one of `heuristics`), against the best of them.
  auto eachAlone = [&](const std::string& key, uint32_t heuristics, std::optional<uint32_t> DriverOptions::*which) {
    if (!best.has(key + ".rounds") || best.number(key + ".rounds") != 1) return;
    for (uint32_t h = 0; h < heuristics; ++h) {
      DriverOptions o;
      o.*which = h;
      const Run one = allocateWith(p, o);
      if (!one.ok || one.number(key + ".rounds") != 1) continue;
      RC_ASSERT(best.number(key + ".score") <= one.number(key + ".score") + 1e-9);
    }
  };
  eachAlone("sbuf", effort.sbuf_heuristics, &DriverOptions::sbuf_heuristic);
  eachAlone("psum", effort.psum_heuristics, &DriverOptions::psum_heuristic);
}

// With one-bank tensors the interference graph of live ranges is chordal, so the colorer's simplify always finds a
// tensor whose live neighbours and itself fit, and select has a free bank for it: every level is held to it. A
// tensor of several banks needs a run of adjacent free banks, which the banks live at once fitting does not give by
// itself: placing intervals of several units in a line (dynamic storage allocation) can leave the free units apart,
// and which ones depends on the order the tensors are colored in. -O1 colors in one order and on generated programs
// does spill a multi-bank tensor with enough banks free but not adjacent. -O2 and -O3 try every color order of the
// PSUM colorer in each round and keep the best; they have found a run in every generated program whose live banks
// fit, so they are held to it with tensors of any size.
RC_GTEST_PROP(Quality, NoPsumSpillWhenTheLiveBanksFit, ()) {
  const Program p = *genTiny();
  const bool one_bank_tensors = std::all_of(p.tensors.begin(), p.tensors.end(), [&](const Tensor& t) {
    return t.space != Space::Psum || t.bytesPerPartition() <= p.arch.psum_bank_bytes;
  });
  for (int level : {1, 2, 3}) {
    if (level == 1 && !one_bank_tensors) continue;
    const Run r = atLevel(p, level);
    if (!r.ok || !r.has("psum.max_concurrent_banks")) continue;
    if (r.number("psum.max_concurrent_banks") <= p.arch.psum_banks) RC_ASSERT(r.number("psum.tensors_spilled") == 0);
  }
}

RC_GTEST_PROP(Quality, NoLevelSpillsWhereNoReuseFits, ()) {
  const Program p = *genTiny();
  RC_PRE(atLevel(p, 0).ok);  // every SBUF and PSUM tensor has storage of its own
  for (int level : {1, 2, 3, 8}) {
    const Run r = atLevel(p, level);
    RC_ASSERT(r.ok);
    RC_ASSERT(onChipSpills(r) == 0);
  }
}

RC_GTEST_PROP(Quality, O3ScoresNoWorseThanO2, ()) {
  const Program p = *genTiny();
  const Run o2 = atLevel(p, 2), o3 = atLevel(p, 3);
  RC_PRE(o2.ok && o3.ok);
  if (o2.number("sbuf.rounds") == 1 && o3.number("sbuf.rounds") == 1)
    RC_ASSERT(o3.number("sbuf.score") <= o2.number("sbuf.score") + 1e-9);
  if (o2.number("psum.rounds") == 1 && o3.number("psum.rounds") == 1)
    RC_ASSERT(o3.number("psum.score") <= o2.number("psum.score") + 1e-9);
}

// The PSUM colorer's first round, judged by the scoring rule it documents (alloc/psum/psum_select.h,
// alloc/psum/psum_costs.h), computed here from what the colorer wrote rather than by its scorer: a selection that
// leaves tensors without banks costs, for each, the tensor's banks times its spill points (the saves and reloads its
// spill code inserts, each moving the same bank-sized tile), and +inf for one that cannot be spilled; the banks a
// selection uses weigh less than one spill point. So of the orders the round tried, the one it keeps must leave
// the least spill cost. A tensor's spill points are counted in the colorer's output, where the spill code of every
// tensor it spilled is (a tensor that found no bank in the first round and was not spilled cannot be: +inf); an
// order whose unplaced tensors include one never spilled is not judged, its cost being unknown here.
uint64_t banksOf(const Arch& arch, const Tensor& t) {
  return (t.bytesPerPartition() + arch.psum_bank_bytes - 1) / arch.psum_bank_bytes;
}

// Per source tensor (by name) that was spilled: the spill DMAs the output holds for it.
std::map<std::string, uint64_t> psumSpillPoints(const Program& out) {
  auto source = [&](TensorId t) {
    for (size_t hops = 0; t < out.tensors.size() && out.tensors[t].origin != Origin::Source; ++hops) {
      if (hops > out.tensors.size()) return kNone;
      t = out.tensors[t].copy_of;
    }
    return t;
  };
  std::map<std::string, uint64_t> points;
  for (const Tensor& t : out.tensors)  // a spill slot: its tensor was spilled
    if (t.origin == Origin::Spill && source(t.copy_of) < out.tensors.size())
      points.emplace(out.tensors[source(t.copy_of)].name, 0);
  forEachInstruction(out.body, [&](const Instruction& i) {
    if (i.op != Op::Dma || (i.origin != Origin::Spill && i.origin != Origin::Reload)) return;
    const TensorId t = source(i.dst.tensor);
    if (t < out.tensors.size()) ++points[out.tensors[t].name];
  });
  return points;
}

// The PSUM colorer alone on `p` with its trace (verbosity 1, or 2 with simplify's worklist sizes); a program it
// cannot place is discarded.
PsumResult tracedPsum(const Program& p, int verbosity) {
  PsumOptions o;
  o.verbosity = verbosity;
  try {
    return allocatePsum(p, o);
  } catch (const AllocError&) {
    RC_DISCARD("the PSUM colorer cannot place this program");
  }
  return {};
}

// The first round's events of one kind in the colorer's trace.
template <class Event>
std::vector<const Event*> firstRound(const PsumResult& r) {
  std::vector<const Event*> out;
  uint32_t round = 0;
  for (const ColorerEvent& e : r.stats.trace.events) {
    if (const auto* start = std::get_if<colorer_event::RoundStart>(&e)) round = start->round;
    if (const auto* x = std::get_if<Event>(&e); x && round == 1) out.push_back(x);
  }
  return out;
}

RC_GTEST_PROP(Quality, PsumFirstRoundKeepsTheLeastSpillCostItTried, ()) {
  const Program p = *genTiny();
  const PsumResult r = tracedPsum(p, 1);
  const std::map<std::string, uint64_t> points = psumSpillPoints(r.program);
  std::map<std::string, uint64_t> banks;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Psum) banks[t.name] = banksOf(p.arch, t);
  constexpr double kUnknown = -1, kInf = std::numeric_limits<double>::infinity();
  // never_spilled: what a tensor that found no bank but has no spill code costs (+inf for the kept order, whose
  // unplaced tensors the colorer spills if it can; unknown for the others)
  auto cost = [&](const std::vector<colorer_event::FailedNode>& failed, double never_spilled) {
    double c = 0;
    for (const colorer_event::FailedNode& f : failed) {
      const auto it = points.find(f.tensor);
      if (it == points.end()) return never_spilled;
      c += double(banks.at(f.tensor) * it->second);
    }
    return c;
  };
  const std::vector<const colorer_event::Tried*> tried = firstRound<colorer_event::Tried>(r);
  const std::vector<const colorer_event::RoundBest*> bests = firstRound<colorer_event::RoundBest>(r);
  RC_ASSERT(bests.size() == 1u);
  const colorer_event::RoundBest* best = bests.front();
  const auto kept = std::find_if(tried.begin(), tried.end(), [&](const auto* t) { return t->order == best->order; });
  RC_ASSERT(kept != tried.end());
  RC_TAG((*kept)->failed.empty() ? "placed every tensor" : "spilled");
  const double kept_cost = cost((*kept)->failed, kInf);
  for (const colorer_event::Tried* t : tried) {
    const double c = cost(t->failed, kUnknown);
    if (c != kUnknown) RC_ASSERT(kept_cost <= c);
  }
}

// The PSUM colorer's bank count, against one made here. Simplify first colors the tensors that are colorable at
// once: those whose banks and the banks of all the tensors interfering with them fit in PSUM together (the lo
// worklist), the others later, in the order of their spill cost. The sizes the colorer reports for each simplify
// order of its first round (`alloc -v -v`) must be that rule's counts, with each tensor's banks taken from its
// shape here (bytes per partition over the bank's bytes, rounded up) and the interference from the colorer's graph
// of the input: a colorer that counts a neighbour by anything but its banks files tensors on the wrong list.
RC_GTEST_PROP(Quality, PsumSimplifyCountsTheBanksOfEachNeighbour, ()) {
  const Program p = *genTiny();
  const PsumGraph g = buildPsumGraph(p, computeLiveness(p));
  uint32_t lo = 0, others = 0;
  bool multi_bank_neighbour = false;
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].pinned) continue;
    uint64_t banks = banksOf(p.arch, p.tensors[g.nodes[i].tensor]);
    for (uint32_t j : g.neighbours[i]) {
      const uint64_t b = banksOf(p.arch, p.tensors[g.nodes[j].tensor]);
      banks += b;
      multi_bank_neighbour |= b > 1;
    }
    ++(banks <= p.arch.psum_banks ? lo : others);
  }
  RC_TAG(multi_bank_neighbour ? "a neighbour of several banks" : "neighbours of one bank");
  const PsumResult r = tracedPsum(p, 2);
  for (const colorer_event::Tried* t : firstRound<colorer_event::Tried>(r)) {
    if (!t->sizes) continue;  // a plain order: no simplify
    RC_ASSERT(t->sizes->lo == lo);
    RC_ASSERT(t->sizes->hi + t->sizes->inf == others);
  }
}

// The rule "no spill when the live banks fit" for tensors of any bank count, at every level and in any color order.
// Select gives a tensor of b banks the lowest run of b banks free of its colored neighbours; a neighbour of c banks
// placed at bank s rules out the b + c - 1 runs that start from s - b + 1 to s + c - 1. So when, for every tensor,
// b plus the sum over its neighbours of c + b - 1 is at most the banks of PSUM, a run is left whatever the neighbours'
// places, no tensor fails, and nothing is spilled. (With one-bank tensors this is "degree below the banks", weaker
// than the chordal rule above; with larger ones it is the rule that holds for one color order.) The neighbours are
// those of the colorer's interference graph of the input: the rule is about select, given what interferes.
RC_GTEST_PROP(Quality, NoPsumSpillWhereNoNeighboursCanCoverEveryRun, ()) {
  const Program p = *genTiny();
  const PsumGraph g = buildPsumGraph(p, computeLiveness(p));
  bool roomy = !g.nodes.empty();
  bool multi_bank = false;
  for (uint32_t i = 0; i < g.nodes.size() && roomy; ++i) {
    const uint64_t b = g.nodes[i].banks;
    multi_bank |= b > 1;
    if (g.nodes[i].pinned) continue;
    uint64_t ruled_out = 0;
    for (uint32_t j : g.neighbours[i]) ruled_out += g.nodes[j].banks + b - 1;
    roomy = b + ruled_out <= p.arch.psum_banks;
  }
  RC_TAG(!roomy ? "some tensor's neighbours could cover its runs" : multi_bank ? "roomy, multi-bank" : "roomy");
  if (!roomy) return;
  for (int level : {1, 2, 3}) {
    const Run r = atLevel(p, level);
    if (!r.ok || !r.has("psum.tensors_spilled")) continue;
    RC_ASSERT(r.number("psum.tensors_spilled") == 0);
  }
}

uint64_t sbufHeight(const Program& allocated) {
  uint64_t h = 0;
  for (const Tensor& t : allocated.tensors)
    if (t.space == Space::Sbuf && t.placement) h = std::max(h, t.placement->offset + t.bytesPerPartition());
  return h;
}

RC_GTEST_PROP(Quality, ColorerHeightWithinAFactorOfTheExactSearch, ()) {
  const Program p = *genTiny(8);
  const Run colored = atLevel(p, 2);
  RC_PRE(colored.ok && colored.number("sbuf.tensors_spilled") == 0);
  DriverOptions o;
  o.allocator = "exact";
  o.node_budget = 100000;  // the outcome depends on the program only, not on the machine's speed
  const Run exact = allocateWith(p, o);
  RC_PRE(exact.ok && exact.text("exact.sbuf.status") == "fit");
  const double exactHeight = exact.number("exact.sbuf.height");
  RC_PRE(exactHeight > 0);
  const double height = double(sbufHeight(colored.result.program));
  RC_ASSERT(height <= kHeightFactor * exactHeight);
}

}  // namespace
}  // namespace allocsim
