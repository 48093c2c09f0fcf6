// The oracles check each other on mutants (verify/mutate.h) of correct allocations: greedy
// placements of generated programs and of the corpus kernels, and the correct siblings of corpus/broken/, which
// carry spills and reloads.
//
//  (a) the symbolic checker flags a mutant exactly when the equivalence oracle does (an equivalence miss is
//      re-tried with two more input/poison seeds before it counts as a disagreement, since a clobber can write
//      the value that was there);
//  (b) for mutants that only move placements, the placement checker flags every mutant either of the others
//      flags (a value-flow break made by moving storage is two live items overlapping);
//  (c) a mutant that moves an item into free space is flagged by none.
// The figures are printed so that they can be quoted.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/no_reuse.h"
#include "alloc/psum/psum_allocator.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/files.h"
#include "verify/equivalence.h"
#include "verify/mutate.h"
#include "verify/placement.h"
#include "verify/symbolic.h"

namespace allocsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> filesIn(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string p = e.path().string();
    if (p.size() >= suffix.size() && p.compare(p.size() - suffix.size(), suffix.size(), suffix) == 0) out.push_back(p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Places `p` greedily; a tiny kernel overfills the tiny machine on purpose (it needs spills, which placeGreedy does
// not make), so the machine is enlarged (SBUF bytes, PSUM banks, registers doubled) until it fits.
std::optional<Program> placeOnRoomyMachine(Program p, Program (*placer)(const Program&)) {
  for (int grow = 0; grow < 4; ++grow) {
    try {
      return placer(p);
    } catch (const AllocError&) {
      p.arch.sbuf_bytes *= 2;
      p.arch.psum_banks *= 2;
      p.arch.sp_registers *= 2;
    }
  }
  return std::nullopt;
}

struct Verdicts {
  std::vector<Finding> eq, sym, pl;
};
Verdicts judge(const Program& p, uint64_t input_seed, uint64_t poison_seed);
bool flags(const std::vector<Finding>& f);
std::string firstLine(const std::vector<Finding>& fs);

struct Base {
  std::string name;
  Program program;
};

bool hasInserted(const Program& p) {
  bool any = false;
  forEachInstruction(p.body, [&](const Instruction& i) { any = any || i.origin != Origin::Source; });
  return any;
}

// A real allocator's spill code: the PSUM colorer (which spills PSUM tensors to SBUF and reloads them), then the
// greedy placer for the rest with the PSUM placements held (pinned while it runs).
std::optional<Program> psumColoredThenGreedy(const Program& p) {
  try {
    Program q = allocatePsum(p).program;
    std::vector<bool> pinned;
    for (Tensor& t : q.tensors) {
      pinned.push_back(t.pinned);
      if (t.space == Space::Psum) t.pinned = true;
    }
    Program placed = placeGreedy(q);
    for (size_t i = 0; i < placed.tensors.size(); ++i) placed.tensors[i].pinned = pinned[i];
    return parseProgram(printProgram(placed));
  } catch (const AllocError&) {
    return std::nullopt;
  }
}

// Correct allocations: generated programs (tiny, pressure near capacity so that greedy reuses a lot), generated
// programs and matmul_blocked_tiny with PSUM spills by the PSUM colorer, the tiny corpus kernels, and the correct
// siblings of the broken-allocation suite.
std::vector<Base> bases(uint32_t generated) {
  std::vector<Base> out;
  const Arch tiny = *archPreset("tiny");
  for (uint64_t seed = 1; out.size() < generated && seed < 20 * uint64_t(generated); ++seed) {
    SeededChoices c(seed);
    GenOptions opts{tiny, uint32_t(4 + seed % 12), uint32_t(60 + seed % 41)};
    Program g = generateProgram(c, opts);
    try {
      // Printed and parsed back, so that findings carry line numbers.
      out.push_back({"gen seed " + std::to_string(seed), parseProgram(printProgram(placeGreedy(g)))});
    } catch (const AllocError&) {
    }
  }
  // Generated programs whose PSUM demand exceeds the banks, so that the PSUM colorer spills. Only its outputs
  // that are correct allocations are bases: some reload a slice into a smaller tensor marked !reload(ps), which
  // the reference recovery (verify/reference.h) reads as the whole of ps, or spill inside an open accumulation
  // group; those are the colorer's bugs, counted and printed here, not the oracles'.
  const size_t spilled = out.size() + generated / 5;
  size_t colored = 0, rejected = 0;
  for (uint64_t seed = 1; out.size() < spilled && seed < 20 * uint64_t(generated); ++seed) {
    SeededChoices c(seed);
    Program g = generateProgram(c, GenOptions{tiny, uint32_t(4 + seed % 12), uint32_t(150 + seed % 100)});
    std::optional<Program> a = psumColoredThenGreedy(g);
    if (!a || !hasInserted(*a)) continue;
    ++colored;
    std::vector<Diagnostic> ill = checkProgram(*a);
    std::string why = ill.empty() ? "" : "  not well-formed: " + formatDiagnostic("allocated", ill[0]) + "\n";
    if (ill.empty()) {
      Verdicts v = judge(*a, 1, 0);
      if (flags(v.eq) || flags(v.sym) || flags(v.pl))
        why = "  equivalence: " + firstLine(v.eq) + "\n  symbolic: " + firstLine(v.sym) + "\n  placement: " +
              firstLine(v.pl) + "\n";
    }
    bool ok = why.empty();
    if (!ok && rejected < 2)
      std::cout << "PSUM colorer output rejected (gen seed " << seed << ", tiny, size " << 4 + seed % 12
                << ", pressure " << 150 + seed % 100 << "):\n" << why;
    if (ok) out.push_back({"psum-spilled gen seed " + std::to_string(seed), *a});
    else ++rejected;
  }
  std::cout << "PSUM colorer + greedy on generated programs that spill: " << colored << " allocations, " << rejected
            << " not correct (ill-formed or flagged), " << colored - rejected << " used as bases\n";
  if (auto a = psumColoredThenGreedy(parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) +
                                                          "/corpus/kernels/matmul_blocked_tiny.nki.txt"))))
    out.push_back({"matmul_blocked_tiny.nki.txt, PSUM colored", *a});
  for (const std::string& f : filesIn(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels", "_tiny.nki.txt"))
    if (auto a = placeOnRoomyMachine(parseProgram(readFile(f)), placeGreedy))
      out.push_back({fs::path(f).filename().string(), parseProgram(printProgram(*a))});
  for (const std::string& f : filesIn(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/broken", ".fixed.nki.txt"))
    if (f.find("pinned_moved") == std::string::npos)  // its pinned placement needs the original: not a mutant base
      out.push_back({fs::path(f).filename().string(), parseProgram(readFile(f))});
  return out;
}

bool flags(const std::vector<Finding>& f) { return !f.empty(); }

std::string firstLine(const std::vector<Finding>& fs) {
  if (fs.empty()) return "-";
  return std::to_string(fs[0].loc.line) + " " + findingKindName(fs[0].kind) + ": " + fs[0].message;
}

Verdicts judge(const Program& p, uint64_t input_seed, uint64_t poison_seed) {
  EquivalenceOptions eo;
  eo.input_seed = input_seed;
  eo.poison_seed = poison_seed;
  return {checkEquivalence(p, eo), checkSymbolic(p), checkPlacement(p)};
}

// Replaces every memset and ts immediate by one drawn from `seed`, of the same kind (integer or float). Data never
// steers control flow or addresses (docs/format.md, "Addresses are known"), so the dynamic trace, and with it the
// symbolic verdict, stays the same; only values change. That undoes coincidences that no input or poison seed
// can: a generated program memsets t0 to 15 and writes relu(t0) = 15 into t1, so t1 clobbering t0 writes the
// value that was there.
void perturbConstants(std::vector<Instruction>& body, SeededChoices& c) {
  for (Instruction& i : body) {
    Immediate* imm = i.op == Op::Memset                                               ? &i.imm
                     : i.op == Op::TS && i.scalar.kind == ScalarOperand::Kind::Imm ? &i.scalar.imm
                                                                                     : nullptr;
    if (imm && imm->is_float) imm->f = double(int64_t(c.below(1024)) - 512) / 64;
    if (imm && !imm->is_float) imm->i = int64_t(c.below(1 << 16));
    if (i.op == Op::Loop) perturbConstants(i.body, c);
  }
}

Program withPerturbedConstants(const Program& p, uint64_t seed) {
  Program out = p;
  SeededChoices c(seed);
  perturbConstants(out.body, c);
  return out;
}

// The verdicts on one mutant. An equivalence miss where the symbolic checker flags is re-tried with two more
// input/poison seeds and then with three sets of other constants before it stands.
struct Outcome {
  Verdicts v;
  bool eq = false, sym = false, pl = false;
  bool by_seeds = false, by_constants = false;  // equivalence caught up only after re-running
};

// A dropped inserted copy whose destination still holds, in physical storage, the value the copy would have
// written — a PSUM reload placed on the bank its tensor was saved from, nothing written there in between: the
// symbolic checker reports the never-written read, but no data can tell (never-written bytes would be poison).
bool valueStillThere(const Mutation& mu, const Outcome& o) {
  return mu.kind == Mutation::DropInserted && o.sym && !o.eq && o.v.sym[0].kind == FindingKind::NeverWritten;
}

Outcome judgeMutant(const Program& m, uint64_t seed) {
  Outcome o;
  o.v = judge(m, 1 + seed % 5, seed);  // input data and poison vary from mutant to mutant
  o.eq = flags(o.v.eq);
  o.sym = flags(o.v.sym);
  o.pl = flags(o.v.pl);
  for (uint64_t extra = 1; o.sym && !o.eq && extra <= 2; ++extra) {
    EquivalenceOptions eo;
    eo.input_seed = 100 + seed * 7 + extra;
    eo.poison_seed = seed * 31 + extra;
    o.v.eq = checkEquivalence(m, eo);
    o.eq = o.by_seeds = flags(o.v.eq);
  }
  for (uint64_t extra = 1; o.sym && !o.eq && extra <= 3; ++extra) {
    Program variant = withPerturbedConstants(m, seed * 13 + extra);
    std::vector<Finding> vsym = checkSymbolic(variant);
    EXPECT_TRUE(flags(vsym) && vsym[0].step == o.v.sym[0].step) << "the symbolic verdict depends on data";
    EquivalenceOptions eo;
    eo.input_seed = 200 + seed + extra;
    eo.poison_seed = seed * 37 + extra;
    o.v.eq = checkEquivalence(variant, eo);
    o.eq = o.by_constants = flags(o.v.eq);
  }
  return o;
}

struct Tally {
  uint64_t mutants = 0, eq = 0, sym = 0, pl = 0;
  uint64_t both = 0, neither = 0, by_seeds = 0, by_constants = 0, same_first = 0;
  uint64_t equal_by_construction = 0, disagree = 0;
  uint64_t placement_missed = 0, free_space = 0, free_space_flagged = 0;

  void add(const Mutation& mu, const Outcome& o) {
    ++mutants;
    eq += o.eq;
    sym += o.sym;
    pl += o.pl;
    both += o.eq && o.sym;
    neither += !o.eq && !o.sym;
    by_seeds += o.by_seeds;
    by_constants += o.by_constants;
    same_first += o.eq && o.sym && o.v.eq[0].inst_id == o.v.sym[0].inst_id;
    equal_by_construction += o.sym && !o.eq && (o.pl || valueStillThere(mu, o));
    disagree += o.eq != o.sym && !(o.sym && o.pl) && !valueStillThere(mu, o);
    placement_missed += mu.kind != Mutation::DropInserted && (o.eq || o.sym) && !o.pl;
    free_space += mu.into_free_space;
    free_space_flagged += mu.into_free_space && (o.eq || o.sym || o.pl);
  }
};

void print(const char* label, const Tally& t) {
  std::cout << "  " << label << ": " << t.mutants << " mutants; flagged by equivalence " << t.eq << ", symbolic "
            << t.sym << ", placement " << t.pl << ". equivalence = symbolic on " << t.both + t.neither << " ("
            << t.both << " both flag, " << t.neither << " neither; equivalence needed more seeds on " << t.by_seeds
            << " and other constants on " << t.by_constants << "; same first instruction " << t.same_first
            << "); symbolic only, equal by construction " << t.equal_by_construction << "; disagree " << t.disagree
            << "; placement missed " << t.placement_missed << "; moves into free space " << t.free_space
            << " (flagged " << t.free_space_flagged << ")\n";
}

TEST(Mutation, CorrectBasesPassAllThreeOracles) {
  for (const Base& b : bases(300)) {
    Verdicts v = judge(b.program, 1, 0);
    EXPECT_FALSE(flags(v.eq) || flags(v.sym) || flags(v.pl))
        << b.name << ": false alarm\n  equivalence: " << firstLine(v.eq) << "\n  symbolic: " << firstLine(v.sym)
        << "\n  placement: " << firstLine(v.pl) << "\n"
        << printProgram(b.program);
  }
}

// Correct allocations of every corpus kernel pass all three oracles. The no-reuse placement (O0)
// and the greedy one, each on the kernel's own machine when it fits there, otherwise on a roomier one.
TEST(Mutation, EveryCorpusKernelPlacedCorrectlyPassesAllThreeOracles) {
  size_t checked = 0;
  for (const std::string& f : filesIn(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels", ".nki.txt")) {
    for (auto [placer, name] : {std::pair{&placeNoReuse, "no-reuse"}, std::pair{&placeGreedy, "greedy"}}) {
      std::optional<Program> a = placeOnRoomyMachine(parseProgram(readFile(f)), placer);
      ASSERT_TRUE(a.has_value()) << f << " (" << name << ")";
      Verdicts v = judge(*a, 1, 0);
      EXPECT_FALSE(flags(v.eq) || flags(v.sym) || flags(v.pl))
          << f << " (" << name << "): false alarm\n  equivalence: " << firstLine(v.eq)
          << "\n  symbolic: " << firstLine(v.sym) << "\n  placement: " << firstLine(v.pl);
      ++checked;
    }
  }
  EXPECT_GE(checked, 32u);
}

// (a), (b), (c) of the file comment. A mutant that only the symbolic checker flags, although the placement checker
// confirms that two live items overlap, is a clobber that writes the value that was there by construction (t1 =
// max(t0, t0) placed over t0; r2 = r0 + r1 with r1 = 0 written over r0): no data can tell, so it is counted, and
// the first few printed, but it is not a disagreement.
TEST(Mutation, OraclesCheckEachOtherOnMutants) {
  constexpr uint32_t kGenerated = 200;
  constexpr uint32_t kPerKind = 2, kPerKindWithSpills = 8;  // bases with spills are few: mutate them more
  constexpr size_t kPrinted = 2;
  std::array<Tally, kMutationKinds> byKind{};
  Tally all;
  size_t printed = 0;
  std::vector<Base> bs = bases(kGenerated);
  for (size_t bi = 0; bi < bs.size(); ++bi) {
    const Base& b = bs[bi];
    uint32_t perKind = hasInserted(b.program) ? kPerKindWithSpills : kPerKind;
    for (int kind = 0; kind < kMutationKinds; ++kind) {
      for (uint32_t k = 0; k < perKind; ++k) {
        uint64_t seed = bi * 1000 + uint64_t(kind) * 100 + k;
        Program m = b.program;
        std::optional<Mutation> mu = mutate(m, Mutation::Kind(kind), seed);
        if (!mu) break;
        Outcome o = judgeMutant(m, seed);
        all.add(*mu, o);
        byKind[kind].add(*mu, o);
        std::string context = b.name + ", mutation seed " + std::to_string(seed) + ": " + mu->description +
                              "\n  equivalence: " + firstLine(o.v.eq) + "\n  symbolic: " + firstLine(o.v.sym) +
                              "\n  placement: " + firstLine(o.v.pl) + "\n";
        if (o.sym && !o.eq && o.pl && printed++ < kPrinted)
          std::cout << "symbolic only, equal by construction: " << context << printProgram(m);
        // (a)
        EXPECT_FALSE(o.eq != o.sym && !(o.sym && o.pl) && !valueStillThere(*mu, o))
            << "equivalence and symbolic disagree on " << context << printProgram(m);
        // (b)
        EXPECT_FALSE(mu->kind != Mutation::DropInserted && (o.eq || o.sym) && !o.pl)
            << "placement misses a value-flow break made by moving storage: " << context << printProgram(m);
        // (c)
        EXPECT_FALSE(mu->into_free_space && (o.eq || o.sym || o.pl))
            << "a move into free space is flagged: " << context << printProgram(m);
      }
    }
  }
  std::cout << "mutation figures over " << bs.size() << " correct allocations:\n";
  print("all", all);
  for (int k = 0; k < kMutationKinds; ++k) print(mutationKindName(Mutation::Kind(k)), byKind[k]);
  // The figures mean something only if the mutants exercise the oracles.
  EXPECT_GE(all.mutants, 500u);
  EXPECT_GE(all.both, 200u);
  EXPECT_GE(all.free_space, 100u);
  for (int k = 0; k < kMutationKinds; ++k) EXPECT_GE(byKind[k].mutants, 10u) << mutationKindName(Mutation::Kind(k));
}

// ---- the mutator itself ----

Program parse(const char* text) { return parseProgram(text); }

const char* kSmall = R"(arch tiny
dram A [8, 64] u32 input
dram C [8, 64] u32 output
sbuf a [8, 64] u32 @p0+0
sbuf b [4, 64] u32 @p4+512
psum acc [8, 64] u32 @bank1
dram a_Spill1 [8, 64] u32 @0 !spill(a)
reg n @r0
reg w 64 @r2

li w, 5
dma a, A
dma a_Spill1, a !spill
dma a, a_Spill1 !reload
memset acc, 0
loop n = 0, 1, 1 {
  copy a, acc
}
dma C, a
)";

TEST(Mutator, EveryKindStaysInsideTheMachine) {
  for (int k = 0; k < kMutationKinds; ++k) {
    for (uint64_t seed = 0; seed < 200; ++seed) {
      Program p = parse(kSmall);
      std::optional<Mutation> mu = mutate(p, Mutation::Kind(k), seed);
      ASSERT_TRUE(mu.has_value()) << mutationKindName(Mutation::Kind(k)) << " seed " << seed;
      EXPECT_EQ(mu->kind, Mutation::Kind(k));
      EXPECT_EQ(mu->description.rfind(mutationKindName(Mutation::Kind(k)), 0), 0u) << mu->description;
      EXPECT_NE(printProgram(p), printProgram(parse(kSmall))) << mu->description;
      for (const Tensor& t : p.tensors) {
        if (!t.placement) continue;
        if (t.space == Space::Sbuf) {
          EXPECT_EQ(t.placement->offset % p.arch.sbuf_align, 0u) << mu->description;
          EXPECT_EQ(t.placement->partition % p.arch.sbuf_partition_quantum, 0u) << mu->description;
          EXPECT_LE(t.placement->offset + t.bytesPerPartition(), p.arch.sbuf_bytes) << mu->description;
          EXPECT_LE(t.placement->partition + t.partitions, p.arch.sbuf_partitions) << mu->description;
        }
        if (t.space == Space::Psum) {
          EXPECT_LE(t.placement->bank + 1, p.arch.psum_banks) << mu->description;
        }
      }
      for (const Register& r : p.registers) EXPECT_LE(*r.phys + r.lanes(), p.arch.sp_registers) << mu->description;
      // The mutant is still a program: it prints and parses back to itself.
      EXPECT_EQ(parseProgram(printProgram(p)), p) << mu->description;
    }
  }
}

TEST(Mutator, IsDeterministicInItsSeed) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    Program p1 = parse(kSmall), p2 = parse(kSmall);
    std::optional<Mutation> m1 = mutate(p1, seed), m2 = mutate(p2, seed);
    ASSERT_TRUE(m1 && m2);
    EXPECT_EQ(m1->description, m2->description);
    EXPECT_EQ(p1, p2);
  }
}

TEST(Mutator, ReturnsNothingWhenAKindHasNothingToChange) {
  Program p = parse("arch tiny\ndram A [8, 4] u32 input\ndram C [8, 4] u32 output\nsbuf a [8, 4] u32 pinned @p0+0\n"
                    "reg n @r0\n\ndma a, A\ndma C, a\n");
  const Program before = p;
  for (Mutation::Kind k : {Mutation::ShiftSbuf, Mutation::ShiftPsumBank, Mutation::SwapRegisters,
                           Mutation::DropInserted, Mutation::ShiftDram}) {
    EXPECT_FALSE(mutate(p, k, 1).has_value()) << mutationKindName(k);
    EXPECT_EQ(p, before);
  }
  // The one register can still move.
  std::optional<Mutation> mu = mutate(p, 7);
  ASSERT_TRUE(mu.has_value());
  EXPECT_EQ(mu->kind, Mutation::MoveRegister);
  EXPECT_TRUE(mu->into_free_space);
}

TEST(Mutator, DropsAnInsertedInstructionOnly) {
  Program p = parse(kSmall);
  std::optional<Mutation> mu = mutate(p, Mutation::DropInserted, 3);
  ASSERT_TRUE(mu.has_value());
  std::string text = printProgram(p);
  // Exactly one of the two inserted instructions is gone; every original one stays.
  bool spill = text.find("!spill\n") != std::string::npos, reload = text.find("!reload\n") != std::string::npos;
  EXPECT_NE(spill, reload) << text;
  EXPECT_NE(text.find("dma C, a\n"), std::string::npos);
  EXPECT_FALSE(mu->into_free_space);
}

TEST(Mutator, TellsAMoveIntoFreeSpaceFromACollision) {
  // Only a and b in SBUF: a [8, 64] u32 at byte 0; the whole rest of SBUF is free.
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Program p = parse(kSmall);
    std::optional<Mutation> mu = mutate(p, Mutation::ShiftSbuf, seed);
    ASSERT_TRUE(mu.has_value());
    const Tensor& a = p.tensors[p.findTensor("a")];
    const Tensor& b = p.tensors[p.findTensor("b")];
    auto meet = [](const Tensor& x, const Tensor& y) {
      return x.placement->partition < y.placement->partition + y.partitions &&
             y.placement->partition < x.placement->partition + x.partitions &&
             x.placement->offset < y.placement->offset + y.bytesPerPartition() &&
             y.placement->offset < x.placement->offset + x.bytesPerPartition();
    };
    EXPECT_EQ(mu->into_free_space, !meet(a, b)) << mu->description;
  }
}

}  // namespace
}  // namespace allocsim
