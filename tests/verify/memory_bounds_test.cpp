// The max-live lower bounds of verify/memory_bounds.h, on programs small enough to work out by hand: a tensor on
// fewer partitions than the machine's takes its bytes per partition on top of every whole-width tensor live with
// it, wherever it goes.
#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

// gen2: 128 partitions. `a` is [128, 512] f32 = 2048 B on every partition; `r` a [1, 256] f32 row = 1024 B on one.
const std::string kHead = R"(arch gen2
dram X [128, 512] f32 input
dram R [1, 256] f32 input
dram O [128, 512] f32 output
dram Q [1, 256] f32 output
sbuf a [128, 512] f32
sbuf r [1, 256] f32
)";

TEST(MemoryBounds, ARowLiveWithAWholeWidthTileComesOnTopOfIt) {
  // Both live between the two loads and the two stores: partition r sits on holds 2048 + 1024 bytes. The area
  // bound alone would give (128 * 2048 + 1024) / 128 = 2056.
  const Program p = parseProgram(kHead + "dma a, X\ndma r, R\ndma O, a\ndma Q, r\n");
  EXPECT_EQ(maxLiveBounds(p).sbuf_bytes, 2048u + 1024u);
}

TEST(MemoryBounds, ARowLiveApartFromTheTileAddsNothing) {
  // `r` is stored before `a` is loaded: never live together, so the larger of the two, 2048 B.
  const Program p = parseProgram(kHead + "dma r, R\ndma Q, r\ndma a, X\ndma O, a\n");
  EXPECT_EQ(maxLiveBounds(p).sbuf_bytes, 2048u);
}

}  // namespace
}  // namespace allocsim
