// An access-only run (InterpOptions::values = false: the placement and symbolic oracles' walks) must show its
// observer exactly what a full run shows — every step's views, registers, inputs loaded, releases and final outputs,
// in the same order — and fail with the same error where a full run fails; it must not touch a tensor's bytes; and a
// program with a reg_load (a register, maybe an index, from a tensor's value) must run with values anyway.
// Compared on every corpus program and on generated programs, original and greedily placed.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/diag.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

std::string viewText(const ResolvedView& v) {
  std::ostringstream s;
  s << v.tensor << ":" << int(v.dtype) << ":" << v.partition << "+" << v.partitions << ":" << v.offset << "+" << v.count
    << "/" << v.step2 << "x" << v.count2;
  return s.str();
}

// Everything an observer is told, as text.
class Recorder : public ExecObserver {
 public:
  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& a) override {
    text << "step " << step << " inst " << inst.id << " R";
    for (const ResolvedView& v : a.reads) text << " " << viewText(v);
    text << " W";
    for (const ResolvedView& v : a.writes) text << " " << viewText(v);
    text << " r";
    for (RegId r : a.reg_reads) text << " " << r;
    text << " w";
    for (RegId r : a.reg_writes) text << " " << r;
    text << "\n";
  }
  void onRelease(TensorId t) override { text << "release " << t << "\n"; }
  void onOutputFinal(TensorId t) override { text << "final " << t << "\n"; }
  void onInput(TensorId t) override { text << "input " << t << "\n"; }
  std::ostringstream text;
};

// A storage that counts the rows handed out.
class CountingStorage : public PrivateStorage {
 public:
  using PrivateStorage::PrivateStorage;
  uint8_t* row(TensorId t, uint32_t partition) override {
    ++rows;
    return PrivateStorage::row(t, partition);
  }
  uint64_t rows = 0;
};

struct Observed {
  std::string events;
  uint64_t rows_touched = 0;
};

Observed observe(const Program& p, bool values, bool release_dead) {
  Recorder rec;
  CountingStorage storage(p);
  InterpOptions o;
  o.observer = &rec;
  o.values = values;
  o.release_dead = release_dead;
  o.max_steps = 200'000;
  Observed run;
  try {
    InterpResult r = interpret(p, storage, o);
    rec.text << "steps " << r.steps << "\n";
  } catch (const InputError& e) {
    rec.text << "error " << e.format("program") << "\n";
  }
  run.events = rec.text.str();
  run.rows_touched = storage.rows;
  return run;
}

bool hasRegLoad(const std::vector<Instruction>& body) {
  for (const Instruction& i : body)
    if (i.op == Op::RegLoad || (i.op == Op::Loop && hasRegLoad(i.body))) return true;
  return false;
}

// The observer's view of an access-only run is the full run's; without a reg_load no row is touched.
void expectSameAccesses(const Program& p) {
  for (bool release_dead : {false, true}) {
    SCOPED_TRACE(release_dead ? "release_dead" : "no release");
    const Observed full = observe(p, true, release_dead);
    const Observed access_only = observe(p, false, release_dead);
    EXPECT_EQ(access_only.events, full.events);
    if (!hasRegLoad(p.body)) {
      EXPECT_EQ(access_only.rows_touched, 0u);
    }
  }
}

TEST(InterpAccessOnly, CorpusProgramsShowTheSameAccesses) {
  int programs = 0;
  for (const char* dir : {"kernels", "allocated", "register_kernels", "nki_samples", "regressions", "liveness"}) {
    const std::filesystem::path root = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "corpus" / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".txt") continue;
      Program p;
      try {
        p = parseProgram(readFile(entry.path()));
      } catch (const InputError&) {
        continue;  // a corpus of bad programs is the parser's business
      }
      SCOPED_TRACE(entry.path().string());
      expectSameAccesses(p);
      ++programs;
    }
  }
  EXPECT_GE(programs, 40);
}

TEST(InterpAccessOnly, GeneratedProgramsShowTheSameAccesses) {
  int with_reg_load = 0, without = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    GenOptions g;
    g.arch = *archPreset("tiny");
    g.size = 2 + uint32_t(seed % 12);
    g.pressure = 40 + uint32_t(seed % 5) * 40;
    SeededChoices choices(seed);
    const Program p = generateProgram(choices, g);
    SCOPED_TRACE("generated program " + std::to_string(seed));
    expectSameAccesses(p);
    (hasRegLoad(p.body) ? with_reg_load : without)++;
    try {
      expectSameAccesses(placeGreedy(p));
    } catch (const AllocError&) {
    }
  }
  EXPECT_GT(without, 40);
  EXPECT_GT(with_reg_load, 5);
}

// Shape errors found while resolving come out of an access-only run as out of a full one.
TEST(InterpAccessOnly, FailsWhereAFullRunFails) {
  const Program p = parseProgram(
      "arch tiny\n"
      "sbuf a [4, 8] f32\n"
      "sbuf b [4, 4] f32\n"
      "reg i\n"
      "memset a, 1\n"
      "loop i = 0, 4, 1 {\n"
      "  copy b, a[0:4, i*2:4]\n"
      "}\n");
  const Observed full = observe(p, true, false);
  ASSERT_NE(full.events.find("error"), std::string::npos) << full.events;
  EXPECT_EQ(observe(p, false, false).events, full.events);
}

// A reg_load makes the run compute values: the loaded register is an index here, and the view it gives is the one
// the value (3) names.
TEST(InterpAccessOnly, AProgramWithARegLoadRunsWithValues) {
  const Program p = parseProgram(
      "arch tiny\n"
      "sbuf a [1, 4] u32\n"
      "sbuf b [1, 16] u32\n"
      "reg n\n"
      "memset a, 3\n"
      "reg_load n, a[0:1, 0:1]\n"
      "memset b[0:1, n:1], 7\n");
  const Observed access_only = observe(p, false, false);
  EXPECT_EQ(access_only.events, observe(p, true, false).events);
  EXPECT_NE(access_only.events.find("W 1:" + std::to_string(int(DType::U32)) + ":0+1:3+1"), std::string::npos)
      << access_only.events;
  EXPECT_GT(access_only.rows_touched, 0u);
}

}  // namespace
}  // namespace allocsim
