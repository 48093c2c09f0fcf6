// Fuzz target for the BestFitMemoryManager (alloc/lsa/best_fit_memory_manager.h) against the brute-force
// occupancy grid of verify/best_fit_model.h: the bytes choose a window (PSUM-like row of banks or a small SBUF
// with a partition quantum and byte alignment), a corner order, and a sequence of allocate / reserve / obstruct /
// free steps. After every step the manager must agree with the grid: a request is placed exactly when a legal
// free position exists, the block placed is legal and free, and the free blocks are the maximal free rectangles.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "alloc/lsa/best_fit_memory_manager.h"
#include "gen/choices.h"
#include "verify/best_fit_model.h"

using namespace allocsim;

namespace {

[[noreturn]] void bug(const std::string& what, int step) {
  std::fprintf(stderr, "best_fit: step %d: %s\n", step, what.c_str());
  std::abort();
}

MemoryBlock anyBlock(ByteChoices& c, const BestFitGeometry& g) {
  return {uint32_t(c.below(g.rows)), uint32_t(1 + c.below(g.rows)), c.below(g.cols), 1 + c.below(g.cols)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteChoices c(data, size);
  BestFitGeometry g;
  if (c.below(2) == 0) {
    g.rows = 1;
    g.cols = 1 + c.below(16);
  } else {
    g.rows = uint32_t(1 + c.below(16));
    g.cols = 1 + c.below(48);
    g.row_quantum = uint32_t(1) << c.below(3);
    g.col_align = uint64_t(1) << c.below(3);
  }
  BestFitMemoryManager m(g);
  static const std::array<Corner, 3> kOrders[] = {{Corner::LowerLeft, Corner::UpperLeft, Corner::Right},
                                                  {Corner::UpperLeft, Corner::Right, Corner::LowerLeft},
                                                  {Corner::Right, Corner::LowerLeft, Corner::UpperLeft}};
  m.setCornerOrder(kOrders[c.below(3)]);
  OccupancyGrid grid(g);
  std::map<uint32_t, MemoryBlock> owned;
  uint64_t obstacle_cells = 0;
  const int steps = int(1 + c.below(80));
  for (int s = 0; s < steps; ++s) {
    const uint64_t kind = c.below(10);
    const uint32_t owner = uint32_t(s);
    if (kind < 3 && !owned.empty()) {
      auto it = owned.begin();
      std::advance(it, long(c.below(owned.size())));
      if (!m.deallocate(it->first)) bug("deallocate refused an owner", s);
      grid.set(it->second, false);
      owned.erase(it);
    } else if (kind == 3) {
      const MemoryBlock b = anyBlock(c, g);
      const bool ok = m.reserve(owner, b);
      if (ok != (grid.legal(b) && grid.isFree(b))) bug(ok ? "reserved an illegal or used block" : "refused a free legal reservation", s);
      if (ok) {
        grid.set(b, true);
        owned[owner] = b;
      }
    } else if (kind == 4) {
      const MemoryBlock b = anyBlock(c, g);
      if (grid.isFree(b)) {
        m.obstruct(b);
        grid.set(b, true);
        obstacle_cells += b.area();
      }
    } else {
      const uint32_t rows = uint32_t(1 + c.below(g.rows));
      const uint64_t cols = 1 + c.below(g.cols);
      const bool fits = grid.anyFit(rows, cols);
      const std::optional<MemoryBlock> b = m.allocate(owner, rows, cols);
      if (b.has_value() != fits) bug(fits ? "refused a request that fits" : "placed a request that cannot fit", s);
      if (b) {
        if (b->rows != rows || b->cols != cols || !grid.legal(*b) || !grid.isFree(*b))
          bug("placed an illegal, misshapen or used block", s);
        grid.set(*b, true);
        owned[owner] = *b;
      }
    }
    if (m.usedCells() + obstacle_cells != grid.usedCells()) bug("used cells differ from the grid", s);
    const std::string broken = checkFreeBlocks(m, grid);
    if (!broken.empty()) bug(broken, s);
  }
  return 0;
}
