// The liveness acceptance kernels of corpus/liveness/ (README there): piecewise-written tensors that the
// old liveness kept live over whole loops. Each kernel allocates at every coloring level and passes the oracles;
// O7's in-place checker and `verify --original` accept its hand allocation, which time-shares PSUM banks and SBUF
// bytes; and the static max-live equals the dynamic max-live the interpreter observes (the independent oracle).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/in_place.h"
#include "ir/parse.h"
#include "tests/common/verify_checks.h"
#include "verify/correct.h"
#include "verify/liveness_precision.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

Program load(const std::string& name) {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/liveness/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return parseProgram(text.str());
}

struct AcceptanceCase {
  std::string kernel;
  uint64_t sbuf_max_live;  // bytes per partition, at every point of the run (the hand allocation's peak)
  uint64_t psum_banks;     // banks live at once in the run
};

// The maxima, by hand from the kernels: attention's SBUF tensors total 1176 B per partition, and p (128 B) is dead
// before pT (128 B) is written, so at most 1048 B are live; rmsnorm_qkv peaks right after `reduce ms, sq`, with
// ident 16 + gamma 128 + w_sb 384 + x 128 + sq 128 + ms 4 = 788 B live. Every PSUM tensor of both is dead before
// the next one is written: 1 bank.
const AcceptanceCase kCases[] = {
    {"attention_psum_shared_tiny", 1048, 1},
    {"rmsnorm_qkv_tiny", 788, 1},
};

TEST(LivenessCorpus, KernelsAllocateAtEveryColoringLevelAndPassTheOracles) {
  for (const AcceptanceCase& c : kCases) {
    const Program p = load(c.kernel + ".nki.txt");
    for (int level : {1, 2, 3, 6}) {
      DriverOptions o;
      o.optlevel = level;
      DriverResult r;
      try {
        r = allocate(p, o);
      } catch (const AllocError& e) {
        ADD_FAILURE() << c.kernel << " -O" << level << " refused: " << e.what();
        continue;
      }
      expectCorrectAllocation(p, r.program, c.kernel + " -O" + std::to_string(level), 5);
      EXPECT_EQ(r.liveness.find("liveness.undecidable")->value, "0") << c.kernel;
    }
  }
}

TEST(LivenessCorpus, HandAllocationsAreAcceptedByOSevenAndVerify) {
  for (const AcceptanceCase& c : kCases) {
    const Program original = load(c.kernel + ".nki.txt");
    const Program hand = load(c.kernel + ".allocated.nki.txt");
    EXPECT_NO_THROW(checkInPlace(hand)) << c.kernel;
    DriverOptions o;
    o.optlevel = 7;
    EXPECT_NO_THROW(allocate(hand, o)) << c.kernel;
    expectCorrectAllocation(original, hand, c.kernel, 9);
    // The hand allocation really time-shares: every PSUM tensor in one bank.
    for (const Tensor& t : hand.tensors) {
      if (t.space == Space::Psum) {
        EXPECT_EQ(t.placement->bank, 0u) << c.kernel << " " << t.name;
      }
    }
  }
}

// The segments of a tensor's values (alloc/liveness.h): p and pT are not live between their phases.
TEST(LivenessCorpus, StaticMaxLiveIsTheDynamicOne) {
  for (const AcceptanceCase& c : kCases) {
    const LivenessPrecision lp = livenessPrecision(load(c.kernel + ".nki.txt"));
    EXPECT_EQ(lp.dynamic_psum_banks, c.psum_banks) << c.kernel;
    EXPECT_EQ(lp.static_psum_banks, c.psum_banks) << c.kernel;  // 4 or more with a coarse liveness (README)
    EXPECT_EQ(lp.dynamic_sbuf_bytes, c.sbuf_max_live) << c.kernel;
    EXPECT_EQ(lp.static_sbuf_bytes, c.sbuf_max_live) << c.kernel;
  }
}

}  // namespace
}  // namespace allocsim
