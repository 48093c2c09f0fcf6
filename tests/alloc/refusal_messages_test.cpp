// Exit-3 messages name the real obstacle: the tensors that must be resident together, their sizes and the capacity.
// Each expected message is derived by hand from the program (tiny: 8 partitions x 4096 bytes of SBUF, 256-byte
// PSUM banks).
#include <gtest/gtest.h>

#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/parse.h"
#include "tests/common/thrown.h"

namespace allocsim {
namespace {

std::string refusalAt(const Program& p, int level, const char* allocator = "") {
  DriverOptions o;
  o.optlevel = level;
  o.allocator = allocator;
  return messageThrown<AllocError>([&] { allocate(p, o); }, "a refusal");
}

// A copy's source and destination are resident together (a result is never written over a source still being
// read): two [8, 704] u32 tensors take 8 x 2816 bytes each, 45056 of the SBUF's 32768, although each alone fits.
TEST(RefusalMessages, ASourceAndItsDestinationThatDoNotFitTogetherAreNamedAtOnce) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 704] u32 input\n"
      "dram O [8, 704] u32 output\n"
      "sbuf t0 [8, 704] u32\n"
      "sbuf t1 [8, 704] u32\n"
      "dma t0, A\n"
      "copy t1, t0\n"  // line 7
      "dma O, t1\n");
  const std::string expected =
      "copy reads and writes SBUF tensors of 45056 bytes in all (t0, t1), all resident while it runs, and the SBUF "
      "holds 32768 (8 partitions x 4096 bytes): no allocation exists";
  for (int level : {1, 2, 3, 6, 8}) EXPECT_EQ(refusalAt(p, level), expected) << "-O" << level;
  EXPECT_EQ(refusalAt(p, 2, "exact"), expected);
  EXPECT_EQ(refusalAt(p, 6, "lsa"), expected);
}

// Three one-bank accumulators written one after the other and read together later are live together from the
// third matmul (line 15) on: 3 banks on a 2-bank PSUM. The exact search, which never spills, proves it by the area
// bound and names them.
TEST(RefusalMessages, TheExactSearchNamesTheTensorsThatMakeItsBound) {
  const Program p = parseProgram(
      "arch tiny psum-banks=2\n"
      "dram W [8, 8] f32 input\n"
      "dram X [8, 64] f32 input\n"
      "dram O [8, 64] f32 output\n"
      "sbuf w [8, 8] f32\n"
      "sbuf x [8, 64] f32\n"
      "sbuf s [8, 64] f32\n"
      "psum a [8, 64] f32\n"
      "psum b [8, 64] f32\n"
      "psum c [8, 64] f32\n"
      "dma w, W\n"
      "dma x, X\n"
      "matmul a, w, x, start, stop\n"
      "matmul b, w, x, start, stop\n"
      "matmul c, w, x, start, stop\n"  // line 15
      "tt s, a, b, add\n"
      "tt s, s, c, add\n"
      "dma O, s\n");
  const std::string msg = refusalAt(p, 2, "exact");
  EXPECT_EQ(msg.rfind("exact: no placement of 3 live PSUM tensors fits in 2 banks (proved by lower bound: lower bound "
                      "3 banks, ",
                      0),
            0u)
      << msg;
  const std::string tail = "; live together at line 15: 'a' (1 bank), 'b' (1 bank), 'c' (1 bank), 3 banks against 2";
  EXPECT_TRUE(msg.ends_with(tail)) << msg;
  // The colorers spill an accumulator to SBUF instead: no refusal there.
  DriverOptions o;
  o.optlevel = 2;
  EXPECT_NO_THROW(allocate(p, o));
}

}  // namespace
}  // namespace allocsim
