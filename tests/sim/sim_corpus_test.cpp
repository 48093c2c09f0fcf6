// The simulator computes what the interpreter computes: on every corpus kernel at every optlevel
// the driver accepts, the simulated run of the allocated program has the same DRAM outputs and the same operand
// hash at every executed instruction as the reference interpreter running that allocated program on physical
// storage poisoned from the same seed (which verify/equivalence.h in turn compares with the unallocated program), and
// the same run's timing is the timing oracle's (tests/common/sim_checks.h).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/corpus_allocations.h"
#include "tests/common/sim_checks.h"

namespace allocsim {
namespace {

TEST(SimCorpus, EveryKernelAtEveryOptlevelMatchesTheInterpreter) {
  const int simulated = forEachCorpusAllocation([](const std::string& name, int level, const Program& allocated) {
    SCOPED_TRACE(name + " -O" + std::to_string(level));
    expectSimulatorMatchesInterpreter(allocated, 7);
  });
  // 8 gen2 kernels at -O2 + 8 tiny kernels at -O1..3, 6, 7, 8 (-O0 cannot fit a tiny kernel: no reuse, by design).
  EXPECT_EQ(simulated, 8 + 8 * 6);
}

}  // namespace
}  // namespace allocsim
