#include "alloc/lsa/best_fit_memory_manager.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <tuple>

#include "ir/plant.h"

namespace allocsim {
namespace {

uint64_t alignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }
uint64_t alignDown(uint64_t x, uint64_t a) { return x / a * a; }

}  // namespace

bool MemoryBlock::contains(const MemoryBlock& o) const {
  return row <= o.row && uint64_t(o.row) + o.rows <= uint64_t(row) + rows && col <= o.col &&
         o.col + o.cols <= col + cols;
}

bool MemoryBlock::overlaps(const MemoryBlock& o) const {
  return rows > 0 && cols > 0 && o.rows > 0 && o.cols > 0 && uint64_t(row) < uint64_t(o.row) + o.rows &&
         uint64_t(o.row) < uint64_t(row) + rows && col < o.col + o.cols && o.col < col + cols;
}

BestFitGeometry sbufGeometry(const Arch& arch) {
  return {arch.sbuf_partitions, arch.sbuf_bytes, std::max<uint32_t>(arch.sbuf_partition_quantum, 1),
          std::max<uint64_t>(arch.sbuf_align, 1)};
}

BestFitGeometry psumGeometry(const Arch& arch) { return {1, arch.psum_banks, 1, 1}; }

const char* cornerName(Corner c) {
  switch (c) {
    case Corner::LowerLeft: return "lower-left";
    case Corner::UpperLeft: return "upper-left";
    case Corner::Right: return "right";
  }
  return "?";
}

bool BestFitMemoryManager::AddressLess::operator()(const MemoryBlock& a, const MemoryBlock& b) const {
  return std::tie(a.row, a.col, a.rows, a.cols) < std::tie(b.row, b.col, b.rows, b.cols);
}

bool BestFitMemoryManager::SizeLess::operator()(const MemoryBlock& a, const MemoryBlock& b) const {
  const uint64_t sa = a.area(), sb = b.area();
  return std::tie(sa, a.row, a.col, a.rows, a.cols) < std::tie(sb, b.row, b.col, b.rows, b.cols);
}

BestFitMemoryManager::BestFitMemoryManager(BestFitGeometry g) : g_(g) {
  g_.row_quantum = std::max<uint32_t>(g_.row_quantum, 1);
  g_.col_align = std::max<uint64_t>(g_.col_align, 1);
  rebuildFree();
}

BestFitMemoryManager::BestFitMemoryManager(const Arch& arch, Space space)
    : BestFitMemoryManager(space == Space::Sbuf   ? sbufGeometry(arch)
                           : space == Space::Psum ? psumGeometry(arch)
                                                  : throw std::logic_error("BestFitMemoryManager manages SBUF or PSUM")) {}

MemoryBlock BestFitMemoryManager::requestOf(const Arch& arch, const Tensor& t) {
  if (t.space == Space::Psum) {
    const uint64_t bank = std::max<uint32_t>(arch.psum_bank_bytes, 1);
    return {0, 1, 0, (t.bytesPerPartition() + bank - 1) / bank};
  }
  return {0, t.partitions, 0, t.bytesPerPartition()};
}

Placement BestFitMemoryManager::placementOf(Space space, const MemoryBlock& b) {
  Placement pl;
  if (space == Space::Psum) {
    pl.bank = uint32_t(b.col);
  } else {
    pl.partition = b.row;
    pl.offset = b.col;
  }
  return pl;
}

MemoryBlock BestFitMemoryManager::blockOf(const Arch& arch, const Tensor& t, const Placement& at) {
  MemoryBlock b = requestOf(arch, t);
  if (t.space == Space::Psum) {
    b.col = at.bank;
  } else {
    b.row = at.partition;
    b.col = at.offset;
  }
  return b;
}

bool BestFitMemoryManager::legal(const MemoryBlock& b) const {
  return b.rows > 0 && b.cols > 0 && b.row % g_.row_quantum == 0 && b.col % g_.col_align == 0 &&
         uint64_t(b.row) + b.rows <= g_.rows && b.cols <= g_.cols && b.col <= g_.cols - b.cols;
}

std::optional<MemoryBlock> BestFitMemoryManager::atCorner(const MemoryBlock& f, Corner c, uint32_t rows,
                                                          uint64_t cols) const {
  if (rows > f.rows || cols > f.cols) return std::nullopt;
  uint64_t r = alignUp(f.row, g_.row_quantum), col = alignUp(f.col, g_.col_align);
  if (c == Corner::UpperLeft) r = alignDown(uint64_t(f.row) + f.rows - rows, g_.row_quantum);
  if (c == Corner::Right) col = alignDown(f.col + f.cols - cols, g_.col_align);
  MemoryBlock b{uint32_t(r), rows, col, cols};
  if (r < f.row || col < f.col || !f.contains(b) || !legal(b)) return std::nullopt;
  return b;
}

std::optional<MemoryBlock> BestFitMemoryManager::allocate(uint32_t owner, uint32_t rows, uint64_t cols) {
  if (by_owner_.count(owner)) throw std::logic_error("BestFitMemoryManager: owner already holds a block");
  if (rows == 0 || cols == 0 || rows > g_.rows || cols > g_.cols) return std::nullopt;
  // Best fit: the smallest free block first (first fit: the lowest).
  auto firstFitting = [&](auto first, auto last) -> std::optional<MemoryBlock> {
    for (; first != last; ++first) {
      const MemoryBlock& f = *first;
      if (f.area() < uint64_t(rows) * cols) continue;
      for (Corner c : corners_) {
        const std::optional<MemoryBlock> b = atCorner(f, c, rows, cols);
        if (!b) continue;
        by_owner_[owner] = *b;
        used_ += b->area();
        peak_used_ = std::max(peak_used_, used_);
        carve(*b);
        sample(*b);
        return b;
      }
    }
    return std::nullopt;
  };
  if (order_ == FreeBlockOrder::ByAddress) return firstFitting(by_address_.begin(), by_address_.end());
  if (ALLOCSIM_PLANT("bestfit_worst_fit"))
    return firstFitting(std::make_reverse_iterator(by_size_.end()), std::make_reverse_iterator(by_size_.begin()));
  return firstFitting(by_size_.begin(), by_size_.end());
}

bool BestFitMemoryManager::reserve(uint32_t owner, const MemoryBlock& b) {
  if (by_owner_.count(owner) || !legal(b)) return false;
  // Free exactly when some maximal free block contains it (owners and obstacles alike are outside them all).
  bool free = false;
  for (const MemoryBlock& f : by_address_) free = free || f.contains(b);
  if (!free) return false;
  by_owner_[owner] = b;
  used_ += b.area();
  peak_used_ = std::max(peak_used_, used_);
  carve(b);
  return true;
}

bool BestFitMemoryManager::deallocate(uint32_t owner) {
  auto it = by_owner_.find(owner);
  if (it == by_owner_.end()) return false;
  used_ -= it->second.area();
  by_owner_.erase(it);
  rebuildFree();
  return true;
}

void BestFitMemoryManager::obstruct(const MemoryBlock& block) {
  MemoryBlock b = block;
  if (b.row >= g_.rows || b.col >= g_.cols) return;
  b.rows = uint32_t(std::min<uint64_t>(b.rows, g_.rows - b.row));
  b.cols = std::min<uint64_t>(b.cols, g_.cols - b.col);
  if (b.rows == 0 || b.cols == 0) return;
  obstacles_.push_back(b);
  carve(b);
}

void BestFitMemoryManager::addFree(const MemoryBlock& b) {
  by_address_.insert(b);
  by_size_.insert(b);
}

void BestFitMemoryManager::removeFree(const MemoryBlock& b) {
  by_address_.erase(b);
  by_size_.erase(b);
}

// The MaxRects split: a free block that meets `taken` is replaced by its maximal parts left of, right of, below
// and above `taken` (each spanning the block's full extent in the other dimension); parts contained in another
// free block are dropped, so the free blocks stay the maximal free rectangles.
void BestFitMemoryManager::carve(const MemoryBlock& taken) {
  std::vector<MemoryBlock>& hit = hit_;
  std::vector<MemoryBlock>& parts = parts_;
  hit.clear();
  parts.clear();
  for (const MemoryBlock& f : by_address_)
    if (f.overlaps(taken)) hit.push_back(f);
  for (const MemoryBlock& f : hit) {
    removeFree(f);
    const uint64_t f_top = uint64_t(f.row) + f.rows, t_top = uint64_t(taken.row) + taken.rows;
    const uint64_t f_right = f.col + f.cols, t_right = taken.col + taken.cols;
    if (taken.col > f.col) {
      const uint64_t over = ALLOCSIM_PLANT("bestfit_left_part_overlaps") ? 4 : 0;
      parts.push_back({f.row, f.rows, f.col, taken.col - f.col + over});
    }
    if (t_right < f_right) parts.push_back({f.row, f.rows, t_right, f_right - t_right});
    if (taken.row > f.row) parts.push_back({f.row, taken.row - f.row, f.col, f.cols});
    if (t_top < f_top) parts.push_back({uint32_t(t_top), uint32_t(f_top - t_top), f.col, f.cols});
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    bool redundant = false;
    for (const MemoryBlock& f : by_address_)
      if (f.contains(parts[i])) redundant = true;
    for (size_t j = 0; j < parts.size() && !redundant; ++j)
      if (j != i && parts[j].contains(parts[i]) && (!(parts[i] == parts[j]) || j < i)) redundant = true;
    if (!redundant) addFree(parts[i]);
  }
}

void BestFitMemoryManager::rebuildFree() {
  by_address_.clear();
  by_size_.clear();
  if (g_.rows > 0 && g_.cols > 0) addFree({0, g_.rows, 0, g_.cols});
  owned_.assign(by_owner_.begin(), by_owner_.end());
  std::sort(owned_.begin(), owned_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const MemoryBlock& b : obstacles_) carve(b);
  for (const auto& [owner, b] : owned_) carve(b);
}

void BestFitMemoryManager::sample(const MemoryBlock& placed) {
  const uint64_t window = uint64_t(g_.rows) * g_.cols;
  // Obstacles that overlap one another (two fixed tensors sharing memory) are counted twice here.
  uint64_t taken = used_;
  for (const MemoryBlock& b : obstacles_) taken += b.area();
  const uint64_t free_area = window - std::min(window, taken);
  const uint64_t largest = by_size_.empty() ? 0 : by_size_.back().area();
  const double frag = free_area == 0 ? 0.0 : 1.0 - double(std::min(largest, free_area)) / double(free_area);
  frag_p50_.add(frag);
  frag_p90_.add(frag);
  block_p50_.add(double(placed.area()));
  block_p90_.add(double(placed.area()));
}

std::vector<MemoryBlock> BestFitMemoryManager::freeByAddress() const { return {by_address_.begin(), by_address_.end()}; }
std::vector<MemoryBlock> BestFitMemoryManager::freeBySize() const { return {by_size_.begin(), by_size_.end()}; }

std::optional<MemoryBlock> BestFitMemoryManager::ownedBy(uint32_t owner) const {
  auto it = by_owner_.find(owner);
  if (it == by_owner_.end()) return std::nullopt;
  return it->second;
}

FragmentationStats BestFitMemoryManager::stats() const {
  FragmentationStats s;
  s.samples = frag_p50_.count();
  s.fragmentation_p50 = frag_p50_.value();
  s.fragmentation_p90 = frag_p90_.value();
  s.block_p50 = block_p50_.value();
  s.block_p90 = block_p90_.value();
  s.peak_used = peak_used_;
  return s;
}

}  // namespace allocsim
