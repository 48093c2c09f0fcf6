// The NKI sample kernels (corpus/nki_samples/, issue 7 item 3; README there): each kernel of the public
// aws-neuron/nki-samples tutorials translated into the format, gen2-sized and tiny. Every file allocates at O1, O2, O3
// and O6 without refusal; each allocation passes the three oracles against the original (tests/verify_checks.h);
// the simulator computes what the interpreter computes on the allocated program (tests/sim_checks.h); and where
// nothing spilled, the SBUF peak is within 1.05x of the per-iteration max-live bound (verify/memory_bounds.h) at O2,
// O3 and O6.
// The gen2 files take ~0.2 s per level (their data is large): here they run at -O2 only, and at every level with
// ALLOCSIM_NKI_SAMPLES_ALL_LEVELS=1, which ci/long_checks.sh sets. The tiny files run at every level always.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "tests/sim_checks.h"
#include "tests/verify_checks.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

const std::string kDir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/nki_samples/";

// Every kernel of the directory, each as <name>.nki.txt and <name>_tiny.nki.txt (README.md has a row for each).
const std::vector<std::string> kKernels = {
    "matmul_basic", "matmul_tiled", "matmul_hoist_load", "matmul_block_free", "matmul_fully_optimized",
    "transpose2d",  "average_pool2d", "softmax",       "rmsnorm",           "layernorm_v1",
    "layernorm_v2", "rotary",         "attention_fwd_v2", "sd_attention",     "mamba_v2",
};

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> kernelFiles() {
  std::vector<std::string> files;
  for (const std::string& k : kKernels) {
    files.push_back(k + ".nki.txt");
    files.push_back(k + "_tiny.nki.txt");
  }
  return files;
}

TEST(NkiSamples, TheListNamesEveryFileOfTheDirectoryAndTheReadmeEveryKernel) {
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(kDir))
    if (e.path().string().ends_with(".nki.txt")) on_disk.insert(e.path().filename().string());
  const std::vector<std::string> listed = kernelFiles();
  EXPECT_EQ(on_disk, std::set<std::string>(listed.begin(), listed.end()));
  const std::string readme = readFile(kDir + "README.md");
  for (const std::string& k : kKernels) EXPECT_NE(readme.find("| `" + k + "` |"), std::string::npos) << k;
}

class NkiSample : public ::testing::TestWithParam<std::string> {};

TEST_P(NkiSample, AllocatesAtEveryColoringLevelPassesTheOraclesAndSimulates) {
  const std::string file = GetParam();
  const Program source = parseProgram(readFile(kDir + file));
  EXPECT_TRUE(checkProgram(source).empty()) << file;
  const MemoryBounds bound = maxLiveBounds(source);
  const bool tiny = file.ends_with("_tiny.nki.txt");
  const bool all_levels = tiny || std::getenv("ALLOCSIM_NKI_SAMPLES_ALL_LEVELS") != nullptr;
  for (int level : {1, 2, 3, 6}) {
    if (!all_levels && level != 2) continue;
    const std::string what = file + " -O" + std::to_string(level);
    SCOPED_TRACE(what);
    DriverOptions o;
    o.optlevel = level;
    DriverResult r;
    try {
      r = allocate(source, o);
    } catch (const AllocError& e) {
      ADD_FAILURE() << what << " refused: " << e.what();
      continue;
    }
    expectOraclesPass(source, r.program, what, uint64_t(level) + 3);
    expectSimulatorMatchesInterpreter(r.program, uint64_t(level) + 11);
    // O1 runs one SBUF heuristic and no packing (alloc/driver.cpp effortFor): on the tiny attention kernels, whose
    // [P,1] statistics tiles fragment SBUF, it reaches 1.2x the bound (docs/quality.md, "NKI sample kernels").
    // The 1.05x requirement holds at the levels that sweep heuristics and pack: O2, O3 and O6.
    const MemoryUse use = memoryUse(r.program);
    if (use.spilled_tensors == 0 && level != 1) {
      EXPECT_LE(use.sbuf_peak * 100, bound.sbuf_bytes * 105)
          << what << ": SBUF peak " << use.sbuf_peak << " B/partition, max-live bound " << bound.sbuf_bytes;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, NkiSample, ::testing::ValuesIn(kernelFiles()),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = i.param.substr(0, i.param.size() - 8);
                           return n;
                         });

}  // namespace
}  // namespace allocsim
