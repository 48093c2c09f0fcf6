// A hand-placed kernel against the same kernel without its placements (verify/kernel_placements.h): a rotating
// buffer given one tile where two blocks are in use at once passes the three oracles (its reference shares the tile
// too) and is caught by the comparison; with two tiles it passes both.
#include "verify/kernel_placements.h"

#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// The kernel as written: block m+1 of A is loaded into buf{(m+1)%2} while block m (in buf{m%2}) is still to be
// copied out.
const char* kUnplaced =
    "arch tiny\n"
    "dram A [8, 32] f32 input\n"
    "dram O [8, 32] f32 output\n"
    "sbuf buf [2] [8, 8] f32\n"
    "sbuf o [8, 32] f32\n"
    "reg m\n"
    "\n"
    "dma buf{0}, A[:, 0:8]\n"
    "loop m = 0, 3, 1 {\n"
    "  dma buf{m%2*-1+1}, A[:, m*8+8:8]\n"
    "  copy o[:, m*8:8], buf{m%2}\n"
    "}\n"
    "copy o[:, 24:8], buf{1}\n"
    "dma O, o\n";

// Traced with a modulo allocation of `tiles` tiles (NKI's mod_alloc(num_free_tiles=(tiles,))): the block index
// is taken modulo the tiles in the program itself.
std::string placed(int tiles) {
  const std::string decl = tiles == 2 ? "sbuf buf [2] [8, 8] f32 pinned @p0+0\n" : "sbuf buf [8, 8] f32 pinned @p0+0\n";
  const std::string next = tiles == 2 ? "buf{m%2*-1+1}" : "buf";
  const std::string cur = tiles == 2 ? "buf{m%2}" : "buf";
  const std::string last = tiles == 2 ? "buf{1}" : "buf";
  return "arch tiny\n"                                    // 1
         "dram A [8, 32] f32 input\n"                     // 2
         "dram O [8, 32] f32 output\n" +                  // 3
         decl +                                           // 4
         "sbuf o [8, 32] f32 pinned @p0+64\n"             // 5
         "reg m @r0\n"                                    // 6
         "\n"                                             // 7
         "dma " + (tiles == 2 ? "buf{0}" : "buf") + ", A[:, 0:8]\n" +  // 8
         "loop m = 0, 3, 1 {\n"                           // 9
         "  dma " + next + ", A[:, m*8+8:8]\n" +          // 10
         "  copy o[:, m*8:8], " + cur + "\n" +            // 11
         "}\n"                                            // 12
         "copy o[:, 24:8], " + last + "\n" +              // 13
         "dma O, o\n";                                    // 14
}

TEST(KernelPlacements, OneTileForTwoBlocksInFlightPassesTheOraclesButNotTheKernel) {
  const Program one = parseProgram(placed(1));
  // The reference recovered from the placed program shares the one tile as well: the oracles see nothing.
  EXPECT_TRUE(checkAllocation(one).ok());
  // Without the placements, O's block 0 is A's block 0; with one tile, the load of block 1 (line 10, m = 0) lands
  // before the copy of block 0, so O element [0, 0] is A element [0, 8]. The DMA of line 14 writes it to O.
  std::optional<Finding> f = compareWithUnplacedKernel(one, parseProgram(kUnplaced), 1);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->oracle, Oracle::Equivalence);
  EXPECT_EQ(f->kind, FindingKind::OutputMismatch);
  EXPECT_EQ(f->loc.line, 14u);
  EXPECT_EQ(f->message.rfind("output 'O' element [0, 0] is ", 0), 0u) << f->message;
  EXPECT_NE(f->message.find("with the kernel's hand placements and"), std::string::npos) << f->message;
}

TEST(KernelPlacements, TwoTilesComputeWhatTheKernelDoes) {
  const Program two = parseProgram(placed(2));
  EXPECT_TRUE(checkAllocation(two).ok());
  EXPECT_FALSE(compareWithUnplacedKernel(two, parseProgram(kUnplaced), 1).has_value());
  EXPECT_FALSE(compareWithUnplacedKernel(two, parseProgram(kUnplaced), 2).has_value());
}

}  // namespace
}  // namespace allocsim
