// Replays corpus/regressions/: every failing case the property suites (props/) or a fuzz campaign found,
// saved as a text program. Each must parse and be well-formed; an unallocated one is placed by placeGreedy and
// placeNoReuse (whichever fit) and every allocation must pass all three oracles; an allocated one is verified
// as it is. A file named after the optlevel its property found it at ("reg_O3_finding") is also allocated by
// the driver at that level, and that allocation must pass them too, and come back unchanged from O7.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "alloc/no_reuse.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "verify/reference.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

namespace fs = std::filesystem;

using Placer = Program (*)(const Program&);
const std::pair<const char*, Placer> kPlacers[] = {{"placeGreedy", placeGreedy}, {"placeNoReuse", placeNoReuse}};

std::vector<fs::path> regressionFiles() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(ALLOCSIM_SOURCE_DIR) / "corpus" / "regressions"))
    if (e.is_regular_file() && e.path().string().ends_with(".nki.txt")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Returns the number of allocations verified.
int replay(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string file = path.filename().string();
  Program p;
  try {
    p = parseProgram(text);
    requireWellFormed(p);
  } catch (const InputError& e) {
    ADD_FAILURE() << e.format(file);
    return 0;
  }
  std::vector<std::pair<std::string, Program>> allocations;
  if (isAllocated(p)) {
    allocations.emplace_back("as written", p);
  } else {
    for (auto [name, place] : kPlacers) {
      try {
        allocations.emplace_back(name, place(p));
      } catch (const AllocError&) {
      }
    }
  }
  std::smatch level;
  if (!isAllocated(p) && std::regex_search(file, level, std::regex("_O([0-9])_"))) {
    DriverOptions o;
    o.optlevel = std::stoi(level[1]);
    try {
      allocations.emplace_back("-O" + level[1].str(), allocate(p, o).program);
    } catch (const AllocError&) {
    }
    // O7 (its DMA optimization off, as coloring_driver_fuzz runs it) must accept the driver's placements and give
    // them back unchanged.
    if (!allocations.empty() && allocations.back().first.starts_with("-O")) {
      DriverOptions fixed;
      fixed.optlevel = 7;
      fixed.gca_dma_optlevel = -1;
      const Program& placed = allocations.back().second;
      try {
        EXPECT_EQ(printProgram(allocate(placed, fixed).program), printProgram(placed)) << "O7 changed the placements";
      } catch (const AllocError& e) {
        ADD_FAILURE() << "O7 rejects the -O" << level[1] << " placements: " << e.what();
      }
    }
  }
  for (const auto& [name, allocated] : allocations) {
    CorrectnessOptions check;
    check.input = isAllocated(p) ? nullptr : &p;
    check.verify.poison_seed = 1;
    const Verdict v = checkAllocation(allocated, check);
    if (!v.ok()) ADD_FAILURE() << name << ": " << describeDefect(v, file) << "allocated program:\n" << printProgram(allocated);
  }
  return int(allocations.size());
}

TEST(Regressions, EveryRegressionProgramPlacesAndVerifies) {
  std::vector<fs::path> files = regressionFiles();
  ASSERT_FALSE(files.empty()) << "corpus/regressions/ holds no .nki.txt file";
  int verified = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.filename().string());
    verified += replay(f);
  }
  EXPECT_GT(verified, 0);
}

}  // namespace
}  // namespace allocsim
