#include "verify/best_fit_model.h"

#include <algorithm>
#include <tuple>

namespace allocsim {

OccupancyGrid::OccupancyGrid(const BestFitGeometry& g) : g_(g), used_(size_t(g.rows) * g.cols, false) {
  g_.row_quantum = std::max<uint32_t>(g_.row_quantum, 1);
  g_.col_align = std::max<uint64_t>(g_.col_align, 1);
}

bool OccupancyGrid::isFree(const MemoryBlock& b) const {
  if (uint64_t(b.row) + b.rows > g_.rows || b.col + b.cols > g_.cols) return false;
  for (uint64_t r = b.row; r < uint64_t(b.row) + b.rows; ++r)
    for (uint64_t c = b.col; c < b.col + b.cols; ++c)
      if (!freeAt(r, c)) return false;
  return true;
}

bool OccupancyGrid::legal(const MemoryBlock& b) const {
  return b.rows > 0 && b.cols > 0 && b.row % g_.row_quantum == 0 && b.col % g_.col_align == 0 &&
         uint64_t(b.row) + b.rows <= g_.rows && b.col + b.cols <= g_.cols;
}

bool OccupancyGrid::anyFit(uint32_t rows, uint64_t cols) const {
  for (uint32_t r = 0; r < g_.rows; ++r)
    for (uint64_t c = 0; c < g_.cols; ++c) {
      const MemoryBlock b{r, rows, c, cols};
      if (legal(b) && isFree(b)) return true;
    }
  return false;
}

void OccupancyGrid::set(const MemoryBlock& b, bool used) {
  for (uint64_t r = b.row; r < std::min<uint64_t>(uint64_t(b.row) + b.rows, g_.rows); ++r)
    for (uint64_t c = b.col; c < std::min<uint64_t>(b.col + b.cols, g_.cols); ++c) used_[r * g_.cols + c] = used;
}

uint64_t OccupancyGrid::usedCells() const { return uint64_t(std::count(used_.begin(), used_.end(), true)); }

std::string checkFreeBlocks(const BestFitMemoryManager& m, const OccupancyGrid& grid) {
  const BestFitGeometry& g = m.geometry();
  const std::vector<MemoryBlock> blocks = m.freeByAddress();
  std::vector<MemoryBlock> by_size = m.freeBySize();
  std::vector<MemoryBlock> sorted = blocks;
  auto less = [](const MemoryBlock& a, const MemoryBlock& b) {
    return std::tie(a.row, a.col, a.rows, a.cols) < std::tie(b.row, b.col, b.rows, b.cols);
  };
  std::sort(by_size.begin(), by_size.end(), less);
  std::sort(sorted.begin(), sorted.end(), less);
  if (by_size != sorted) return "the address and size indexes list different blocks";
  std::vector<bool> covered(size_t(g.rows) * g.cols, false);
  for (const MemoryBlock& b : blocks) {
    const std::string name = "free block " + std::to_string(b.rows) + "x" + std::to_string(b.cols) + " at (" +
                             std::to_string(b.row) + ", " + std::to_string(b.col) + ")";
    if (b.rows == 0 || b.cols == 0 || uint64_t(b.row) + b.rows > g.rows || b.col + b.cols > g.cols)
      return name + " is empty or outside the window";
    if (!grid.isFree(b)) return name + " holds a used cell";
    const bool left = b.col > 0 && grid.isFree({b.row, b.rows, b.col - 1, 1});
    const bool right = b.col + b.cols < g.cols && grid.isFree({b.row, b.rows, b.col + b.cols, 1});
    const bool below = b.row > 0 && grid.isFree({b.row - 1, 1, b.col, b.cols});
    const bool above = uint64_t(b.row) + b.rows < g.rows && grid.isFree({b.row + b.rows, 1, b.col, b.cols});
    if (left || right || below || above) return name + " is not maximal";
    for (uint64_t r = b.row; r < uint64_t(b.row) + b.rows; ++r)
      for (uint64_t c = b.col; c < b.col + b.cols; ++c) covered[r * g.cols + c] = true;
  }
  for (uint64_t r = 0; r < g.rows; ++r)
    for (uint64_t c = 0; c < g.cols; ++c)
      if (covered[r * g.cols + c] != grid.freeAt(r, c))
        return "cell (" + std::to_string(r) + ", " + std::to_string(c) + ") is " +
               (grid.freeAt(r, c) ? "free but in no free block" : "used but in a free block");
  return "";
}

}  // namespace allocsim
