// Each buffer of a multi-buffer SBUF tensor as a tensor of its own (alloc/sbuf/sbuf_tile_split.h): which tile arrays
// split and how their mentions are renamed, and what the SBUF colorer gains from it.
#include <gtest/gtest.h>

#include <string>

#include "alloc/driver.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_tile_split.h"
#include "ir/parse.h"
#include "verify/memory_bounds.h"
#include "tests/common/verify_checks.h"

namespace allocsim {
namespace {

// tiny: 8 partitions of 4096 bytes. `buf` is two tiles of [8, 256] f32 (1024 bytes per partition each, 2048 in
// all); c and d are [8, 256] f32. Tile 0 is loaded and last read by `tt c`; tile 1 is loaded after that and read by
// `tt d`, which also reads c.
const char* kTwoBuffers =
    "arch tiny\ndram X [8, 256] f32 input\ndram Y [8, 256] f32 output\n"
    "sbuf buf [2] [8, 256] f32\nsbuf c [8, 256] f32\nsbuf d [8, 256] f32\n"
    "dma buf{0}, X\ntt c, buf{0}, buf{0}, add\ndma buf{1}, X\ntt d, buf{1}, c, add\ndma Y, d\n";

TEST(SbufTileSplit, EachTileMentionedAtConstantOffsetsBecomesATensorOfItsOwn) {
  Program p = parseProgram(kTwoBuffers);
  EXPECT_EQ(splitSbufTiles(p), 1u);
  const TensorId buf = p.findTensor("buf"), copy = p.findTensor("buf_Tile1");
  ASSERT_NE(buf, kNone);
  ASSERT_NE(copy, kNone);
  EXPECT_EQ(p.tensors[copy].origin, Origin::Copy);
  EXPECT_EQ(p.tensors[copy].copy_of, buf);
  EXPECT_EQ(p.tensors[copy].tiles, 2u);  // the same shape: the offsets stay as they are
  EXPECT_EQ(p.tensors[copy].elements, 512u);
  // The first two instructions keep buf (tile 0); the third and fourth name the copy (tile 1).
  EXPECT_EQ(p.body[0].dst.tensor, buf);
  EXPECT_EQ(p.body[1].a.tensor, buf);
  EXPECT_EQ(p.body[2].dst.tensor, copy);
  EXPECT_EQ(p.body[2].dst.offset.constant, 256);
  EXPECT_EQ(p.body[3].a.tensor, copy);
  // Again: every tensor names one tile now, nothing more to split.
  EXPECT_EQ(splitSbufTiles(p), 0u);
}

TEST(SbufTileSplit, ATileArrayIndexedByARegisterOrReadAcrossItsTilesStaysWhole) {
  Program by_register = parseProgram(
      "arch tiny\ndram X [8, 256] f32 input\ndram Y [8, 256] f32 output\nsbuf buf [2] [8, 256] f32\nreg i\n"
      "loop i = 0, 4, 1 {\n  dma buf{i%2}, X\n  dma Y, buf{i%2}\n}\n");
  EXPECT_EQ(splitSbufTiles(by_register), 0u);
  Program across = parseProgram(
      "arch tiny\ndram X [8, 512] f32 input\ndram Y [8, 256] f32 output\nsbuf buf [2] [8, 256] f32\n"
      "dma buf{0}, X[:, 0:256]\ndma buf{1}, X[:, 256:256]\ndma Y, buf[:, 128:256]\n");
  EXPECT_EQ(splitSbufTiles(across), 0u);
  EXPECT_EQ(across.tensors.size(), 3u);
}

// By hand: as one tensor, buf (2048 bytes) is live from its first load to `tt d`, with c (from `tt c`) and d (at
// `tt d`): 4096 bytes per partition, the whole of tiny's SBUF, and no placement of whole tensors goes lower. Split,
// at `tt d` only tile 1, c and d are live, 1024 bytes each: 3072 is the least any placement reaches, and one does:
// tile 0 at 0 (its tensor ends at 2048, tile 1's dead bytes included), c at 1024, tile 1 at 2048 (its tensor starts
// at 1024, where tile 0's bytes are dead by then), d at 0.
TEST(SbufTileSplit, TheColorerPlacesTheBuffersApartAndBelowTheWholeTensorsMaxLive) {
  for (const bool split : {false, true}) {
    SbufOptions o;
    o.split_tiles = split;
    const SbufResult r = allocateSbuf(parseProgram(kTwoBuffers), o);
    EXPECT_EQ(memoryUse(r.program).sbuf_peak, split ? 3072u : 4096u) << split;
    EXPECT_EQ(r.stats.max_live_bytes, 8u * 4096u) << split;  // whole tensors, as the input declares them
    expectCorrectAllocation(parseProgram(kTwoBuffers), r.program, split ? "split" : "whole", 1);
  }
  const Program q = allocate(parseProgram(kTwoBuffers), DriverOptions{}).program;
  EXPECT_EQ(memoryUse(q).sbuf_peak, 3072u);
  expectCorrectAllocation(parseProgram(kTwoBuffers), q, "O2", 1);
}

}  // namespace
}  // namespace allocsim
