// The simulator computes what the interpreter computes: on every corpus kernel at every optlevel
// the driver accepts, the simulated run of the allocated program has the same DRAM outputs and the same operand
// hash at every executed instruction as the reference interpreter running that allocated program on physical
// storage poisoned from the same seed (which verify/equivalence.h in turn compares with the unallocated program).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/optlevel.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/physical_storage.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

const std::string kKernelDir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/";

TEST(SimCorpus, EveryKernelAtEveryOptlevelMatchesTheInterpreter) {
  int simulated = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kKernelDir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 8 || name.substr(name.size() - 8) != ".nki.txt") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const Program source = parseProgram(ss.str());
    // gen2 kernels at -O2 only (their data is large); the tiny ones at every level. ci/long_checks.sh runs
    // `allocsim run --compare` on every kernel at every level.
    const bool tiny = name.find("_tiny") != std::string::npos;
    for (int level : {0, 1, 2, 3, 6, 7, 8}) {
      if (!tiny && level != 2) continue;
      DriverOptions o;
      o.optlevel = level;
      Program allocated;
      try {
        // O7 runs no PSUM coloring pass (alloc/driver.h): its PSUM placements come with the input.
        allocated = allocate(level == 7 ? allocatePsum(source, PsumOptions{}).program : source, o).program;
      } catch (const AllocError&) {
        continue;  // the allocator cannot fit it: nothing to simulate
      }
      SCOPED_TRACE(name + " -O" + std::to_string(level));
      expectSimulatorMatchesInterpreter(allocated, 7);
      ++simulated;
    }
  }
  // 8 gen2 kernels at -O2 + 8 tiny kernels at -O1..3, 6, 7, 8 (-O0 cannot fit a tiny kernel: no reuse, by design).
  EXPECT_EQ(simulated, 8 + 8 * 6);
}

}  // namespace
}  // namespace allocsim
