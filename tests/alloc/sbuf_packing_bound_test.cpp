// The SBUF colorer skips the exact packing when the best heuristic run spills nothing and its footprint is already
// g.max_live (alloc/sbuf/sbuf_allocator.cpp, packingCannotWin): no placement's footprint is below max_live. Checked
// on generated programs: wherever the colorer says it skipped the search, the search itself (packSbuf, called
// directly) finds nothing lower, and the colorer's result is the one it gives with the packing switched off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_footprint.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "alloc/sbuf/sbuf_packing.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/print.h"

namespace allocsim {
namespace {

TEST(SbufPackingBound, NoPackingBeatsARunAtTheMaxLiveBound) {
  size_t skips = 0, packings_checked = 0;
  for (uint64_t seed = 1; seed <= 400 && skips < 40; ++seed) {
    SeededChoices c(seed);
    Program p = generateProgram(c, GenOptions{*archPreset("tiny"), uint32_t(1 + seed % 4), uint32_t(20 + seed % 60)});
    SbufResult r;
    try {
      r = allocateSbuf(p);
    } catch (const std::exception&) {
      continue;
    }
    if (r.stats.packing != SbufStats::Packing::NotSearched) continue;
    ++skips;
    const uint64_t footprint = sbufFootprintBytes(r.program);
    p.renumber();
    const Liveness live = sbufLiveness(p, std::vector<bool>(p.tensors.size(), false));
    const SbufGraph g = buildSbufGraph(p, live);
    EXPECT_EQ(footprint, g.max_live) << printProgram(p);  // the bound is reached, as the colorer says
    if (std::optional<std::vector<Placement>> at = packSbuf(p, g)) {
      ++packings_checked;
      std::vector<SbufRect> used;
      for (uint32_t i = 0; i < g.nodes.size(); ++i)
        if (!g.nodes[i].range.empty()) used.push_back({(*at)[i].partition, g.nodes[i].partitions, (*at)[i].offset, g.nodes[i].bytes});
      EXPECT_GE(sbufFootprintBytes(p.arch, used), g.max_live) << printProgram(p);
    }
    SbufOptions off;
    off.packing = false;
    EXPECT_EQ(printProgram(allocateSbuf(p, off).program), printProgram(r.program));
  }
  EXPECT_GE(skips, 10u);  // the shortcut was exercised
  EXPECT_GE(packings_checked, 5u);
}

}  // namespace
}  // namespace allocsim
