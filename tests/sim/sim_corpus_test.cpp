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
  // The gen2 kernels at -O2 and the tiny ones at -O1..3, 6, 7, 8 (-O0 cannot fit a tiny kernel: no reuse, by design);
  // every kernel has its tiny twin.
  size_t tiny = 0;
  for (const std::string& name : corpusKernelNames()) tiny += name.find("_tiny") != std::string::npos;
  EXPECT_GT(tiny, 0u);
  EXPECT_EQ(corpusKernelNames().size(), 2 * tiny);
  EXPECT_EQ(size_t(simulated), tiny + tiny * 6);
}

}  // namespace
}  // namespace allocsim
