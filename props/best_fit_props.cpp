// Model-based property of the BestFitMemoryManager (alloc/lsa/best_fit_memory_manager.h): random sequences of
// allocate / reserve / free on small SBUF- and PSUM-like windows, checked after every step against a brute-force
// occupancy grid (one bool per cell). The model decides on its own, by trying every legal position, whether a
// request can be placed; the manager must agree in both directions — it places a block exactly when the model
// finds a free legal position (no refusal while room is left), and the block it returns is legal, inside the
// window and free in the grid. Its free blocks must be exactly free cells, each one maximal, and together cover
// every free cell (verify/best_fit_model.h is the model).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <vector>

#include "alloc/lsa/best_fit_memory_manager.h"
#include "verify/best_fit_model.h"

namespace allocsim {
namespace {

rc::Gen<BestFitGeometry> genGeometry() {
  return rc::gen::exec([] {
    BestFitGeometry g;
    if (*rc::gen::element(0, 1) == 0) {  // PSUM-like: one row of banks
      g.rows = 1;
      g.cols = *rc::gen::inRange<uint64_t>(1, 9);
    } else {  // SBUF-like, scaled down (cells are bytes)
      g.rows = *rc::gen::inRange<uint32_t>(1, 9);
      g.cols = *rc::gen::inRange<uint64_t>(1, 25);
      g.row_quantum = *rc::gen::element<uint32_t>(1, 2, 4);
      g.col_align = *rc::gen::element<uint64_t>(1, 2, 4);
    }
    return g;
  });
}

RC_GTEST_PROP(BestFit, AgreesWithAnOccupancyGrid, ()) {
  const BestFitGeometry g = *genGeometry();
  BestFitMemoryManager m(g);
  const auto order = *rc::gen::element(std::array<Corner, 3>{Corner::LowerLeft, Corner::UpperLeft, Corner::Right},
                                      std::array<Corner, 3>{Corner::UpperLeft, Corner::Right, Corner::LowerLeft},
                                      std::array<Corner, 3>{Corner::Right, Corner::LowerLeft, Corner::UpperLeft});
  m.setCornerOrder(order);
  OccupancyGrid grid(g);
  std::map<uint32_t, MemoryBlock> owned;
  const int steps = *rc::gen::inRange(1, 60);
  uint32_t next_owner = 0, placed = 0, refused = 0;
  uint64_t obstacle_cells = 0;
  for (int s = 0; s < steps; ++s) {
    const int kind = *rc::gen::inRange(0, 10);
    if (kind < 3 && !owned.empty()) {  // free a random owner
      auto it = owned.begin();
      std::advance(it, *rc::gen::inRange<size_t>(0, owned.size()));
      RC_ASSERT(m.deallocate(it->first));
      RC_ASSERT(!m.deallocate(it->first));
      grid.set(it->second, false);
      owned.erase(it);
    } else if (kind == 4) {  // an obstacle (a placement fixed by another pass) on free cells
      MemoryBlock b{*rc::gen::inRange<uint32_t>(0, g.rows), *rc::gen::inRange<uint32_t>(1, g.rows + 1),
                    *rc::gen::inRange<uint64_t>(0, g.cols), *rc::gen::inRange<uint64_t>(1, g.cols + 1)};
      if (grid.isFree(b)) {
        m.obstruct(b);
        grid.set(b, true);
        obstacle_cells += b.area();
      }
    } else if (kind == 3) {  // reserve a fixed block (a pinned placement)
      MemoryBlock b{*rc::gen::inRange<uint32_t>(0, g.rows), *rc::gen::inRange<uint32_t>(1, g.rows + 1),
                    *rc::gen::inRange<uint64_t>(0, g.cols), *rc::gen::inRange<uint64_t>(1, g.cols + 1)};
      const bool ok = m.reserve(next_owner, b);
      RC_ASSERT(ok == (grid.legal(b) && grid.isFree(b)));
      if (ok) {
        grid.set(b, true);
        owned[next_owner] = b;
      }
      ++next_owner;
    } else {
      const uint32_t rows = *rc::gen::inRange<uint32_t>(1, g.rows + 1);
      const uint64_t cols = *rc::gen::inRange<uint64_t>(1, g.cols + 1);
      const bool fits = grid.anyFit(rows, cols);
      const std::optional<MemoryBlock> b = m.allocate(next_owner, rows, cols);
      RC_ASSERT(b.has_value() == fits);  // refused exactly when no legal free position exists
      if (b) {
        RC_ASSERT(b->rows == rows && b->cols == cols);
        RC_ASSERT(grid.legal(*b));
        RC_ASSERT(grid.isFree(*b));
        grid.set(*b, true);
        owned[next_owner] = *b;
        RC_ASSERT(m.ownedBy(next_owner) == b);
        ++placed;
      } else {
        ++refused;
      }
      ++next_owner;
    }
    RC_ASSERT(m.usedCells() + obstacle_cells == grid.usedCells());
    const std::string broken = checkFreeBlocks(m, grid);
    if (!broken.empty()) RC_FAIL(broken);
  }
  RC_TAG(refused > 0 ? "some refused" : "none refused");
  RC_TAG(placed > 3 ? "placed > 3" : "placed <= 3");
}

// Best fit: with a choice of free blocks, the smallest that holds the request is used (checked against the
// model's own search over the free blocks the manager reports).
RC_GTEST_PROP(BestFit, PlacesInTheSmallestFreeBlockThatHoldsTheRequest, ()) {
  const BestFitGeometry g = *genGeometry();
  BestFitMemoryManager m(g);
  const int steps = *rc::gen::inRange(1, 30);
  for (int s = 0; s < steps; ++s) {
    const uint32_t rows = *rc::gen::inRange<uint32_t>(1, g.rows + 1);
    const uint64_t cols = *rc::gen::inRange<uint64_t>(1, g.cols + 1);
    const std::vector<MemoryBlock> before = m.freeBySize();
    const std::optional<MemoryBlock> b = m.allocate(uint32_t(s), rows, cols);
    if (!b) continue;
    uint64_t smallest = UINT64_MAX;
    for (const MemoryBlock& f : before) {
      // a block holds the request when its lower-left corner, rounded to the rules, leaves room
      const uint64_t r = (f.row + g.row_quantum - 1) / g.row_quantum * g.row_quantum;
      const uint64_t c = (f.col + g.col_align - 1) / g.col_align * g.col_align;
      if (r + rows <= uint64_t(f.row) + f.rows && c + cols <= f.col + f.cols) smallest = std::min(smallest, f.area());
    }
    bool inside_smallest = false;
    for (const MemoryBlock& f : before)
      if (f.area() == smallest && f.contains(*b)) inside_smallest = true;
    RC_ASSERT(inside_smallest);
    if (*rc::gen::inRange(0, 3) == 0) m.deallocate(uint32_t(*rc::gen::inRange(0, s + 1)));
  }
}

}  // namespace
}  // namespace allocsim
