#include "gen/generate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "ir/check.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {
namespace {

Program generate(uint64_t seed, const char* arch, uint32_t size, uint32_t pressure) {
  SeededChoices c(seed);
  return generateProgram(c, GenOptions{*archPreset(arch), size, pressure});
}

// Every property a generated program must have: well-formed, equal to its printed-then-parsed form, and
// runnable by the reference interpreter.
void expectValid(const Program& p, const std::string& what) {
  std::vector<Diagnostic> diags = checkProgram(p);
  std::string text = printProgram(p);
  ASSERT_TRUE(diags.empty()) << what << ": " << formatDiagnostic("generated", diags[0]) << "\n" << text;
  Program back = parseProgram(text);
  ASSERT_TRUE(back == p) << what << ": round trip changed the program\n" << text;
  try {
    InterpResult r = interpret(p);
    size_t outputs = 0;
    for (const Tensor& t : p.tensors) outputs += t.output;
    ASSERT_GE(outputs, 1u) << what;
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (p.tensors[t].output) {
        ASSERT_EQ(r.outputs[t].size(), p.tensors[t].totalBytes()) << what;
      }
  } catch (const InputError& e) {
    FAIL() << what << ": interpreter: " << e.format("generated") << "\n" << text;
  }
}

// A choice stream that always takes the last option: the opposite extreme of an exhausted byte string.
class MaxChoices : public Choices {
 public:
  uint64_t below(uint64_t n) override { return n == 0 ? 0 : n - 1; }
};

size_t instructionCount(const Program& p) {
  size_t n = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  return n;
}

TEST(Generate, SameSeedGivesTheSameProgram) {
  for (uint64_t seed : {0u, 1u, 77u, 12345u}) {
    Program a = generate(seed, "tiny", 30, 100);
    Program b = generate(seed, "tiny", 30, 100);
    EXPECT_TRUE(a == b) << seed;
    EXPECT_EQ(printProgram(a), printProgram(b));
  }
  EXPECT_NE(printProgram(generate(1, "tiny", 30, 100)), printProgram(generate(2, "tiny", 30, 100)));
}

TEST(Generate, TinyProgramsAreWellFormedAndRoundTrip) {
  // 9,900 programs: sizes 5..60, pressures from light to spilling.
  const uint32_t pressures[] = {50, 100, 150, 200};
  for (uint64_t seed = 0; seed < 9900; ++seed) {
    uint32_t size = 5 + uint32_t(seed % 56), pressure = pressures[seed % 4];
    Program p = generate(seed, "tiny", size, pressure);
    expectValid(p, "tiny seed " + std::to_string(seed) + " size " + std::to_string(size));
    if (HasFatalFailure()) return;
  }
}

TEST(Generate, Gen2ProgramsAreWellFormedAndRoundTrip) {
  for (uint64_t seed = 0; seed < 40; ++seed) {
    uint32_t size = 5 + uint32_t(seed % 8);
    Program p = generate(seed, "gen2", size, seed % 2 ? 100 : 50);
    expectValid(p, "gen2 seed " + std::to_string(seed));
    if (HasFatalFailure()) return;
  }
}

TEST(Generate, ExhaustedBytesGiveTheSmallestProgram) {
  ByteChoices none(nullptr, 0);
  Program p = generateProgram(none, GenOptions{*archPreset("tiny"), 40, 100});
  expectValid(p, "empty input");
  EXPECT_EQ(printProgram(p),
            "arch tiny\n"
            "sbuf t0 [1, 1] u32\n"
            "dram out0 [1, 1] u32 output\n"
            "\n"
            "memset t0, 0\n"
            "dma out0, t0\n");
}

// From 200 on, --size N gives at least N / 2 top-level statements unless a budget ends the program: otherwise a
// random stop (drawn for each statement after the first at 1 in 2 N) drawn early would end `gen --seed S` there for
// every large --size (the same program, no error).
TEST(Generate, LongSizesGiveAtLeastHalfAsManyTopLevelStatements) {
  uint32_t below_half = 0, at_least_half = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SeededChoices c(seed);
    GenOutcome outcome;
    generateProgram(c, GenOptions{*archPreset("tiny"), 200, 50}, outcome);
    ASSERT_FALSE(outcome.dram_budget_reached);
    EXPECT_LE(outcome.top_level_statements, 200u);
    if (outcome.top_level_statements >= 100) ++at_least_half;
    else if (!outcome.work_budget_reached) ++below_half;
  }
  EXPECT_EQ(below_half, 0u);
  EXPECT_GE(at_least_half, 20u);  // the budget ends some programs early (loops multiply the work), not most
}

TEST(Generate, RandomBytesGiveWellFormedPrograms) {
  SeededChoices bytes(99);
  for (int i = 0; i < 500; ++i) {
    std::vector<uint8_t> data(bytes.below(2048));
    for (uint8_t& b : data) b = uint8_t(bytes.below(256));
    ByteChoices c(data.data(), data.size());
    Program p = generateProgram(c, GenOptions{*archPreset(i % 25 == 0 ? "gen2" : "tiny"), 20, 100});
    expectValid(p, "byte string " + std::to_string(i));
    if (HasFatalFailure()) return;
  }
}

// A machine whose SBUF partition holds less than its PSUM (tiny has 4 x 256 PSUM bytes per partition): an accumulator
// is evacuated to an SBUF tensor of its shape, so it may not span more than a partition holds. The last option of
// every choice takes the widest accumulator (a 4-bank one needed 1,024 bytes on a 512-byte partition: ill-formed).
TEST(Generate, SmallSbufPartitionsGetWellFormedPrograms) {
  for (const char* bytes : {"512", "256", "128"}) {
    Arch arch = *archPreset("tiny");
    applyArchOverride(arch, "sbuf-bytes", bytes);
    MaxChoices last;
    expectValid(generateProgram(last, GenOptions{arch, 6, 300}), std::string("last choices, sbuf-bytes ") + bytes);
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      SeededChoices c(seed);
      expectValid(generateProgram(c, GenOptions{arch, 8, 250}), "seed " + std::to_string(seed) + ", sbuf-bytes " + bytes);
      if (HasFatalFailure()) return;
    }
  }
}

// Partitions of a few bytes: a register's round trip through a memset word tensor (2 to 7 words of 4 bytes) and
// bn_stats' six statistics per chunk (24 or 48 bytes in f32, 12 or 24 in bf16) must be left out, or made smaller,
// where a partition cannot hold them. 4 bytes hold one 32-bit word and no 64-bit register's two; 8 hold both but
// no statistics; 16 hold one chunk's bf16 statistics; 32 one chunk's f32 statistics and not two.
TEST(Generate, PartitionsOfAFewBytesGetWellFormedPrograms) {
  for (const char* bytes : {"4", "8", "16", "32"}) {
    Arch arch = *archPreset("tiny");
    applyArchOverride(arch, "sbuf-bytes", bytes);
    MaxChoices last;
    expectValid(generateProgram(last, GenOptions{arch, 6, 300}), std::string("last choices, sbuf-bytes ") + bytes);
    for (uint64_t seed = 1; seed <= 40; ++seed) {
      SeededChoices c(seed);
      const Program p = generateProgram(c, GenOptions{arch, 15, 100});
      expectValid(p, "seed " + std::to_string(seed) + ", sbuf-bytes " + bytes);
      if (HasFatalFailure()) return;
      for (const Tensor& t : p.tensors)
        if (t.space == Space::Sbuf) {
          EXPECT_LE(t.bytesPerPartition(), arch.sbuf_bytes) << t.name << ", seed " << seed;
        }
    }
  }
}

TEST(Generate, ShortByteStringsGiveSmallPrograms) {
  // Fewer decisions available, fewer instructions: the fuzzer's small inputs stay small.
  const uint8_t few[] = {7, 3, 200, 1};
  ByteChoices c(few, sizeof few);
  Program small = generateProgram(c, GenOptions{*archPreset("tiny"), 40, 100});
  expectValid(small, "short input");
  EXPECT_LT(instructionCount(small), instructionCount(generate(5, "tiny", 40, 100)));
}

TEST(Generate, TerminatesWhenEveryChoiceIsTheLast) {
  for (const char* arch : {"tiny", "gen2"}) {
    MaxChoices c;
    Program p = generateProgram(c, GenOptions{*archPreset(arch), 60, 300});
    expectValid(p, std::string("max choices on ") + arch);
  }
}

// The most iterations any instruction of `body` runs: the product of its enclosing loops' trip counts.
uint64_t mostIterations(const std::vector<Instruction>& body, uint64_t enclosing = 1) {
  uint64_t most = body.empty() ? 0 : enclosing;
  for (const Instruction& i : body)
    if (i.op == Op::Loop) {
      const uint64_t trips = i.hi > i.lo ? uint64_t((i.hi - i.lo + i.step - 1) / i.step) : 0;
      most = std::max(most, mostIterations(i.body, enclosing * trips));
    }
  return most;
}

// GenOptions::max_nest_trips bounds every nest, the last option of every choice included (the longest loops), and the
// programs stay valid. Uncapped, the same choices nest far deeper, so the bound is the cap's doing.
TEST(Generate, NestTripCapBoundsEveryStatementsIterations) {
  MaxChoices uncapped;
  EXPECT_GT(mostIterations(generateProgram(uncapped, GenOptions{*archPreset("tiny"), 20, 300}).body), 32u);
  for (uint32_t cap : {1u, 4u, 32u}) {
    GenOptions o{*archPreset("tiny"), 20, 300};
    o.max_nest_trips = cap;
    MaxChoices last;
    Program p = generateProgram(last, o);
    EXPECT_LE(mostIterations(p.body), cap) << "last choices\n" << printProgram(p);
    expectValid(p, "last choices, cap " + std::to_string(cap));
    uint64_t most = 0;
    for (uint64_t seed = 1; seed <= 150; ++seed) {
      SeededChoices c(seed);
      o.pressure = uint32_t(25 + seed % 250);
      Program q = generateProgram(c, o);
      EXPECT_LE(mostIterations(q.body), cap) << "seed " << seed << "\n" << printProgram(q);
      most = std::max(most, mostIterations(q.body));
      expectValid(q, "seed " + std::to_string(seed) + ", cap " + std::to_string(cap));
      if (HasFatalFailure()) return;
    }
    EXPECT_EQ(most, cap) << "no program reached the cap";
  }
}

// Peak demand from a plain liveness walk, independent of the generator's own bookkeeping: a tensor is live
// from the first instruction (in preorder) that names it to the last one. SBUF in bytes, PSUM in banks, both
// relative to capacity.
std::pair<double, double> peakDemand(const Program& p) {
  const size_t n = p.tensors.size();
  std::vector<int64_t> first(n, -1), last(n, -1);
  int64_t at = 0;
  forEachInstruction(p.body, [&](const Instruction& i) {
    for (const AccessPattern* ap : {&i.dst, &i.a, &i.b, &i.scalar.ap.get()}) {
      if (ap->tensor == kNone) continue;
      if (first[ap->tensor] < 0) first[ap->tensor] = at;
      last[ap->tensor] = at;
    }
    ++at;
  });
  double sbuf = 0, psum = 0;
  for (int64_t x = 0; x < at; ++x) {
    double s = 0, b = 0;
    for (size_t t = 0; t < n; ++t) {
      if (first[t] < 0 || x < first[t] || x > last[t]) continue;
      const Tensor& T = p.tensors[t];
      if (T.space == Space::Sbuf) s += double(T.totalBytes());
      if (T.space == Space::Psum) b += double((T.bytesPerPartition() + p.arch.psum_bank_bytes - 1) / p.arch.psum_bank_bytes);
    }
    sbuf = std::max(sbuf, s);
    psum = std::max(psum, b);
  }
  return {sbuf / (double(p.arch.sbuf_partitions) * p.arch.sbuf_bytes), psum / p.arch.psum_banks};
}

TEST(Generate, PressureSetsPeakDemand) {
  double sbuf50 = 0, sbuf200 = 0, psum50 = 0, psum200 = 0;
  const int n = 200;
  for (uint64_t seed = 0; seed < n; ++seed) {
    auto [s50, p50] = peakDemand(generate(seed, "tiny", 20, 50));
    auto [s200, p200] = peakDemand(generate(seed, "tiny", 20, 200));
    sbuf50 += s50 / n, psum50 += p50 / n, sbuf200 += s200 / n, psum200 += p200 / n;
  }
  // About pressure% of capacity on average; 200 forces SBUF spills.
  EXPECT_GT(sbuf50, 0.35);
  EXPECT_LT(sbuf50, 0.7);
  EXPECT_GT(sbuf200, 1.5);
  EXPECT_GT(psum200, 1.0);
  EXPECT_GT(sbuf200, 2 * sbuf50);
  EXPECT_GT(psum200, 2 * psum50);
}

TEST(Generate, EveryFeatureIsReachedOften) {
  const int n = 400;
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < n; ++seed) {
    Program p = generate(seed, "tiny", 20 + uint32_t(seed % 20), 100);
    std::set<std::string> f;
    for (const Tensor& t : p.tensors) {
      f.insert(std::string("dtype ") + dtypeName(t.dtype));
      if (t.space != Space::Dram && t.partitions < p.arch.sbuf_partitions) f.insert("partial-partition tensor");
      if (t.input) f.insert("input");
      if (t.output) f.insert("output");
    }
    for (const Register& r : p.registers)
      if (r.width == 64) f.insert("64-bit register");
    auto walk = [&](auto& self, const std::vector<Instruction>& body, int depth) -> void {
      for (const Instruction& i : body) {
        f.insert(std::string("op ") + opName(i.op));
        if (i.op == Op::Loop) {
          f.insert("loop depth " + std::to_string(depth + 1));
          self(self, i.body, depth + 1);
          // Two accumulation groups of one PSUM tensor open together: its pieces in one K-loop.
          std::map<TensorId, int> kloop_groups;
          for (const Instruction& j : i.body)
            if (j.op == Op::Matmul && j.start == When::First && j.stop == When::Last && ++kloop_groups[j.dst.tensor] == 2)
              f.insert("K-loop over several pieces");
        }
        if (i.op == Op::Matmul && i.start == When::First && i.stop == When::Last) f.insert("K-loop");
        if (i.op == Op::Matmul && i.start == When::Never) f.insert("matmul accumulates");
        if (i.op == Op::TS) f.insert("ts scalar kind " + std::to_string(int(i.scalar.kind)));
        if (i.op == Op::Copy && p.tensors[i.a.tensor].space == Space::Psum) f.insert("psum to sbuf copy");
        if (i.op != Op::Matmul && i.op != Op::Loop && i.dst.tensor != kNone &&
            p.tensors[i.dst.tensor].space == Space::Psum)
          f.insert("engine op writes psum");
        for (const AccessPattern* ap : {&i.dst, &i.a, &i.b, &i.scalar.ap.get()}) {
          if (ap->tensor == kNone) continue;
          if (!ap->offset.isConstant()) f.insert("register-indexed offset");
          if (!ap->partition.isConstant() && p.tensors[ap->tensor].space == Space::Dram)
            f.insert("partition-indexed dram");
          if (ap->hasSecondDim()) f.insert("second dimension");
          if (ap->hasSecondDim() && ap->step2 < ap->count) f.insert("source view overlaps itself");
          if (!isFullAccess(p, *ap)) f.insert("partial view");
        }
      }
    };
    walk(walk, p.body, 0);
    for (const std::string& s : f) ++seen[s];
  }
  const char* features[] = {
      "dtype u32", "dtype i32", "dtype f32", "dtype bf16", "dtype u16", "partial-partition tensor", "input", "output",
      "64-bit register", "op dma", "op matmul", "op copy", "op act", "op tt", "op ts", "op reduce", "op memset",
      "op li", "op addi", "op add", "op mov", "op reg_load", "op reg_store", "op loop", "loop depth 1",
      "loop depth 2", "loop depth 3", "K-loop", "K-loop over several pieces", "matmul accumulates", "ts scalar kind 0", "ts scalar kind 1",
      "ts scalar kind 2", "psum to sbuf copy", "engine op writes psum", "register-indexed offset", "partition-indexed dram",
      "second dimension", "source view overlaps itself", "partial view"};
  for (const char* feature : features) EXPECT_GE(seen[feature], n / 4) << feature;
}

}  // namespace
}  // namespace allocsim
