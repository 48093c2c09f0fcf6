// What every placement made by a placer of alloc/ must satisfy, checked the same way for the no-reuse and the
// greedy placer (tests/alloc/no_reuse_test.cpp, tests/alloc/greedy_placer_test.cpp):
// - every SBUF/PSUM tensor and register placed, in bounds, aligned (sbuf_align), at a partition start that is a
//   multiple of sbuf_partition_quantum; pinned and DRAM tensors unchanged; nothing else changed;
// - no two items that the placer promised to keep apart (`apart`) share a byte, a bank or a lane;
// - the placed program is well-formed (ir/check.h) and round-trips through printProgram / parseProgram;
// - run on physical storage (placements honoured, poison everywhere), it reads the same operand values at every
//   instruction and writes the same outputs as the unplaced program on private storage.
// Also what both expect of a placer on the corpus, and how both read a placer's AllocError.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/first_fit.h"
#include "alloc/psum/psum_bank_model.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/check.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/physical_storage.h"
#include "ir/print.h"
#include "tests/common/files.h"

namespace allocsim::testing_placed {

// corpus/kernels/*.nki.txt, sorted, as (file name, text).
inline std::vector<std::pair<std::string, std::string>> corpusKernels() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels"))
    if (e.path().string().ends_with(".nki.txt")) out.push_back({e.path().filename().string(), readFile(e.path())});
  std::sort(out.begin(), out.end());
  return out;
}

inline bool isTinyKernel(const std::string& file) { return file.ends_with("_tiny.nki.txt"); }

// How many corpus kernels there are: every gen2 kernel has a _tiny twin (corpus/kernels/README.md), so a test that
// visits them all counts this many of each, whatever the corpus holds.
inline size_t corpusKernelCount(bool tiny) {
  size_t n = 0;
  for (const auto& [file, text] : corpusKernels()) n += isTinyKernel(file) == tiny;
  return n;
}

struct Apart {
  std::function<bool(TensorId, TensorId)> tensors;
  std::function<bool(RegId, RegId)> registers;
};

inline void expectPlacementRules(const Program& original, const Program& placed, const Apart& apart,
                                 const std::string& what) {
  const Arch& a = placed.arch;
  ASSERT_EQ(placed.tensors.size(), original.tensors.size()) << what;
  ASSERT_EQ(placed.registers.size(), original.registers.size()) << what;
  EXPECT_TRUE(placed.body == original.body) << what << ": the placer changed instructions";
  for (TensorId t = 0; t < placed.tensors.size(); ++t) {
    const Tensor& x = placed.tensors[t];
    Tensor unplaced = x;
    unplaced.placement = original.tensors[t].placement;
    EXPECT_TRUE(unplaced == original.tensors[t]) << what << ": " << x.name << " changed beyond its placement";
    if (x.space == Space::Dram || (original.tensors[t].pinned && original.tensors[t].placement)) {
      EXPECT_EQ(x.placement, original.tensors[t].placement) << what << ": " << x.name << " moved";
      continue;
    }
    ASSERT_TRUE(x.placement.has_value()) << what << ": " << x.name << " unplaced";
    if (x.space == Space::Sbuf) {
      EXPECT_LE(x.placement->partition + x.partitions, a.sbuf_partitions) << what << ": " << x.name;
      EXPECT_LE(x.placement->offset + x.bytesPerPartition(), a.sbuf_bytes) << what << ": " << x.name;
      EXPECT_EQ(x.placement->offset % a.sbuf_align, 0u) << what << ": " << x.name;
      EXPECT_EQ(x.placement->partition % a.sbuf_partition_quantum, 0u) << what << ": " << x.name;
    } else {
      EXPECT_LE(x.placement->bank + psumBanksOf(a, x), a.psum_banks) << what << ": " << x.name;
    }
  }
  for (const Register& r : placed.registers) {
    ASSERT_TRUE(r.phys.has_value()) << what << ": register " << r.name << " unplaced";
    EXPECT_LE(*r.phys + r.lanes(), a.sp_registers) << what << ": register " << r.name;
  }
  for (TensorId t = 0; t < placed.tensors.size(); ++t)
    for (TensorId u = t + 1; u < placed.tensors.size(); ++u) {
      const Tensor& x = placed.tensors[t];
      const Tensor& y = placed.tensors[u];
      if (x.space != y.space || x.space == Space::Dram || !apart.tensors(t, u)) continue;
      bool overlap = x.space == Space::Sbuf
                         ? overlaps(sbufRect(x, *x.placement), sbufRect(y, *y.placement))
                         : x.placement->bank < y.placement->bank + psumBanksOf(a, y) &&
                               y.placement->bank < x.placement->bank + psumBanksOf(a, x);
      EXPECT_FALSE(overlap) << what << ": " << x.name << " and " << y.name << " overlap";
    }
  for (RegId r = 0; r < placed.registers.size(); ++r)
    for (RegId s = r + 1; s < placed.registers.size(); ++s) {
      const Register& x = placed.registers[r];
      const Register& y = placed.registers[s];
      if (!apart.registers(r, s)) continue;
      EXPECT_FALSE(*x.phys < *y.phys + y.lanes() && *y.phys < *x.phys + x.lanes())
          << what << ": registers " << x.name << " and " << y.name << " share a lane";
    }
}

inline void expectRunsLikeTheOriginal(const Program& original, const Program& placed, const std::string& what) {
  std::vector<Diagnostic> diags = checkProgram(placed);
  ASSERT_TRUE(diags.empty()) << what << ": " << formatDiagnostic("placed", diags[0]);
  std::string text = printProgram(placed);
  ASSERT_TRUE(parseProgram(text) == placed) << what << ": round trip changed the placed program\n" << text;
  InterpResult want = interpret(original);
  for (uint64_t poison : {1u, 2u}) {
    PhysicalStorage storage(placed, poison);
    InterpResult got = interpret(placed, storage, InterpOptions{});
    ASSERT_EQ(got.reads.size(), want.reads.size()) << what;
    for (size_t i = 0; i < want.reads.size(); ++i)
      ASSERT_EQ(got.reads[i], want.reads[i]) << what << ": operands of executed instruction " << i << " differ";
    EXPECT_EQ(got.outputs, want.outputs) << what << ": outputs differ";
  }
}

// The AllocError message and line of `place` (a callable that places a program) on `text`, or {"", 0} if it
// fits.
template <class Place>
std::pair<std::string, uint32_t> placeFailure(Place place, const std::string& text) {
  try {
    place(parseProgram(text));
  } catch (const AllocError& e) {
    return {e.what(), e.loc().line};
  }
  return {"", 0};
}

// Every corpus kernel through `place`: each gen2 kernel is placed and passes expectPlacementRules (items
// kept apart: apart_of(program)) and expectRunsLikeTheOriginal; each tiny kernel fails with an AllocError whose
// "line: message" begins with its entry in tiny_failures.
template <class Place, class ApartOf>
void expectCorpusOutcomes(Place place, ApartOf apart_of, const std::map<std::string, std::string>& tiny_failures) {
  size_t gen2 = 0, tiny = 0;
  for (const auto& [file, text] : corpusKernels()) {
    Program p = parseProgram(text);
    if (isTinyKernel(file)) {
      ++tiny;
      ASSERT_TRUE(tiny_failures.count(file)) << file << " has no expected outcome here";
      std::string got;
      try {
        place(p);
      } catch (const AllocError& e) {
        got = std::to_string(e.loc().line) + ": " + e.what();
      }
      const std::string& want = tiny_failures.at(file);
      EXPECT_EQ(got.substr(0, want.size()), want) << file;
      continue;
    }
    ++gen2;
    Program placed = place(p);
    expectPlacementRules(p, placed, apart_of(p), file);
    expectRunsLikeTheOriginal(p, placed, file);
  }
  EXPECT_EQ(gen2, tiny);  // every kernel has its tiny twin
  EXPECT_EQ(tiny, tiny_failures.size());
}

// The program generated on `arch` from `seed` for the placers' tests: `min_size` to `min_size + sizes - 1`
// statements and memory pressure 10 to 80, both varying with the seed.
inline Program generatedForPlacers(const Arch& arch, uint64_t seed, uint32_t min_size = 5, uint32_t sizes = 30) {
  SeededChoices c(seed);
  return generateProgram(c, GenOptions{arch, uint32_t(min_size + seed % sizes), uint32_t(10 + seed % 71)});
}

}  // namespace allocsim::testing_placed
