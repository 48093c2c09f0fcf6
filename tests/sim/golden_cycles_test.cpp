// Regression guard of the timing model: every real corpus kernel (corpus/kernels, corpus/nki_samples,
// corpus/register_kernels), allocated at -O2 and simulated with the default timing table, must give the cycles,
// per-engine busy cycles and stall totals recorded in tests/sim/golden_cycles/<dir>.<kernel>.cycles. A change of the
// timing table or the model made on purpose regenerates them with one command:
//   bash tests/sim/golden_cycles/regenerate.sh [BUILD_DIR]
// (this test with ALLOCSIM_REGENERATE_GOLDEN=1 writes the files instead of comparing; review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "alloc/driver.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

const std::string kRoot = std::string(ALLOCSIM_SOURCE_DIR) + "/";
const char* const kDirs[] = {"corpus/kernels", "corpus/nki_samples", "corpus/register_kernels"};
const char* const kEngineNames[] = {"PE", "ACT", "DVE", "POOL", "SP", "DMA"};

// The golden text of one kernel: cycles, busy cycles per engine (the sequencer's loop iterations as SEQ, the DMA
// queues' together as DMA-queues), stall cycles per cause.
std::string goldenText(const std::string& rel) {
  DriverOptions d;
  d.optlevel = 2;
  const Program allocated = allocate(parseProgram(readFile(kRoot + rel)), d).program;
  sim::SimOptions o;
  o.timing_only = true;
  o.record_reads = false;
  const sim::SimStats s = sim::simulate(allocated, o).stats;
  std::string out = "# " + rel + " at -O2, default timing table (tests/sim/golden_cycles_test.cpp)\n";
  out += "cycles " + std::to_string(s.cycles) + "\n";
  for (size_t e = 0; e + 1 < sim::kEngines; ++e)
    out += std::string("busy ") + kEngineNames[e] + " " + std::to_string(s.engines[e].busy_cycles) + "\n";
  uint64_t queues = 0;
  for (const sim::QueueStats& q : s.queues) queues += q.busy_cycles;
  out += "busy DMA-queues " + std::to_string(queues) + "\n";
  out += "busy SEQ " + std::to_string(s.sequencer_busy_cycles) + "\n";
  for (size_t c = 0; c < sim::kStallCauses; ++c)
    out += std::string("stall ") + sim::stallCauseName(sim::StallCause(c)) + " " + std::to_string(s.stall_cycles[c]) + "\n";
  return out;
}

std::string goldenPath(const std::string& dir, const std::string& file) {
  const std::string stem = file.substr(0, file.size() - std::string(".nki.txt").size());
  return kRoot + "tests/sim/golden_cycles/" + std::filesystem::path(dir).filename().string() + "." + stem + ".cycles";
}

TEST(GoldenCycles, EveryCorpusKernelHasItsRecordedTiming) {
  const bool regenerate = std::getenv("ALLOCSIM_REGENERATE_GOLDEN") != nullptr;
  std::set<std::string> expected_files;
  for (const char* dir : kDirs) {
    for (const auto& entry : std::filesystem::directory_iterator(kRoot + dir)) {
      const std::string file = entry.path().filename().string();
      if (file.size() < 8 || file.substr(file.size() - 8) != ".nki.txt") continue;
      const std::string rel = std::string(dir) + "/" + file;
      const std::string path = goldenPath(dir, file);
      expected_files.insert(std::filesystem::path(path).filename().string());
      SCOPED_TRACE(rel);
      const std::string actual = goldenText(rel);
      if (regenerate) {
        std::ofstream(path) << actual;
        continue;
      }
      ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing: bash tests/sim/golden_cycles/regenerate.sh";
      EXPECT_EQ(readFile(path), actual)
          << "the timing changed; if on purpose: bash tests/sim/golden_cycles/regenerate.sh";
    }
  }
  // No golden file outlives its kernel.
  for (const auto& entry : std::filesystem::directory_iterator(kRoot + "tests/sim/golden_cycles")) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 7 && name.substr(name.size() - 7) == ".cycles") {
      if (regenerate && !expected_files.count(name)) std::filesystem::remove(entry.path());
      else EXPECT_TRUE(expected_files.count(name)) << name << " has no kernel";
    }
  }
  EXPECT_GE(expected_files.size(), 40u);
}

}  // namespace
}  // namespace allocsim
