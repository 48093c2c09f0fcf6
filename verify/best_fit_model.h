// A brute-force model of alloc/lsa/best_fit_memory_manager.h, for the model-based property (props/) and the fuzz
// target (fuzz/best_fit_fuzz.cpp): one bool per cell of the window, and every legal position tried in turn. It
// shares no code with the manager, so the two can disagree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "alloc/lsa/best_fit_memory_manager.h"

namespace allocsim {

class OccupancyGrid {
 public:
  explicit OccupancyGrid(const BestFitGeometry& g);
  bool freeAt(uint64_t row, uint64_t col) const { return !used_[row * g_.cols + col]; }
  // Inside the window and every cell free.
  bool isFree(const MemoryBlock& b) const;
  // Inside the window, non-empty, starting on the quantum and the alignment.
  bool legal(const MemoryBlock& b) const;
  // Whether some legal rows x cols position is free: every start tried.
  bool anyFit(uint32_t rows, uint64_t cols) const;
  void set(const MemoryBlock& b, bool used);  // clipped to the window
  uint64_t usedCells() const;

 private:
  BestFitGeometry g_;
  std::vector<bool> used_;
};

// The manager's free blocks against the grid: each inside the window, entirely free and maximal (no free row or
// column can be added on any side), and together covering every free cell; both indexes list the same blocks.
// Returns the first broken rule, or "".
std::string checkFreeBlocks(const BestFitMemoryManager& m, const OccupancyGrid& grid);

}  // namespace allocsim
