// BestFitMemoryManager (the production allocator, "Placement backend — BestFitMemoryManager"): the free-list backend
// that the linear-scan allocator hands each interval to for a concrete placement. One class, two geometries chosen by
// the memory type, as in the production allocator:
//   SBUF  a 2-D window of partitions (rows) x bytes (columns); a tensor is a rows x bytes rectangle whose
//         base partition is a multiple of the partition-start quantum and whose byte offset is a multiple of the byte
//         alignment (kept as arch data);
//   PSUM  one row of banks (a bank spans all partitions): a tensor takes ceil(bytes per partition / bank bytes)
//         consecutive banks at any base bank — bank-addressed, no corner search.
//
// The production boost::multi_index_container<MemoryBlock> has three indices; so does this one:
//   by address   the free blocks in (row, column) order (the production allocator's sequenced index);
//   by size      the free blocks by area, then address: the best-fit key — the smallest block that holds the
//                request is tried first;
//   by owner     the allocated block of each owner (the production allocator's hashed index by MemoryLocation).
// Free blocks are the *maximal* free rectangles of the window (they may overlap one another): every free
// rectangle lies inside one of them, so a request is refused only when no legal position is free at all.
// Placing a block splits every free block it meets into the (up to four) maximal parts around it; freeing one
// merges it with its free neighbours — the free blocks are rebuilt from the blocks still owned, which yields
// exactly the maximal rectangles of the enlarged free space.
//
// Inside the chosen block the SB path tries the production allocator's corners in order: lower-left (lowest
// partition, lowest byte), upper-left (highest legal partition band, lowest byte), right (lowest partition, highest
// legal byte). With the machine's rules (round the block's edges up or down to the quantum and alignment) the
// lower-left corner is legal whenever any position in the block is, so in the production allocator's order it always
// wins; the order is data (setCornerOrder) and the model property exercises every order.
//
// Fragmentation statistics (the production allocator's two p_square accumulators): after every successful allocation,
// the fragmentation 1 - (largest free block / free area) and the size of the block placed, each streamed into
// P-square estimators of the median and the 90th percentile (alloc/lsa/p_square.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "alloc/lsa/p_square.h"
#include "alloc/sorted_vector_set.h"
#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

// Rows [row, row + rows) x columns [col, col + cols): SBUF partitions x bytes, or (PSUM) row 0 x banks.
struct MemoryBlock {
  uint32_t row = 0;
  uint32_t rows = 0;
  uint64_t col = 0;
  uint64_t cols = 0;
  uint64_t area() const { return uint64_t(rows) * cols; }
  bool contains(const MemoryBlock& o) const;
  bool overlaps(const MemoryBlock& o) const;
  bool operator==(const MemoryBlock&) const = default;
};

// The window and its placement rules.
struct BestFitGeometry {
  uint32_t rows = 1;
  uint64_t cols = 0;
  uint32_t row_quantum = 1;  // a block starts at a row that is a multiple of this
  uint64_t col_align = 1;    // ... and at a column that is a multiple of this
};
BestFitGeometry sbufGeometry(const Arch& arch);
BestFitGeometry psumGeometry(const Arch& arch);

enum class Corner : uint8_t { LowerLeft, UpperLeft, Right };
// Which free block a request tries first: the smallest (best fit, the production allocator's) or the lowest in
// address order (first fit: the lowest partition, then the lowest byte), the linear scan's second try
// (alloc/lsa/lsa_allocator.h).
enum class FreeBlockOrder : uint8_t { BySize, ByAddress };
const char* cornerName(Corner c);

struct FragmentationStats {
  uint64_t samples = 0;
  double fragmentation_p50 = 0, fragmentation_p90 = 0;  // 1 - largest free block / free area, in [0, 1]
  double block_p50 = 0, block_p90 = 0;                  // area of the blocks placed (cells: partition-bytes, banks)
  uint64_t peak_used = 0;                               // the most cells owned at once
};

class BestFitMemoryManager {
 public:
  explicit BestFitMemoryManager(BestFitGeometry g);
  // SBUF or PSUM of `arch` (DRAM is not managed: an internal error).
  BestFitMemoryManager(const Arch& arch, Space space);

  // Places a rows x cols block for `owner` (who must own none): the first free block in the free-block order
  // that has a legal corner (best fit: the smallest), at the first legal corner in corner order. nullopt when no
  // legal position is free (or the request is empty or larger than the window).
  std::optional<MemoryBlock> allocate(uint32_t owner, uint32_t rows, uint64_t cols);
  // Gives `owner` exactly `block` (a pinned placement); false when it is illegal, outside the window or not free.
  bool reserve(uint32_t owner, const MemoryBlock& block);
  // Frees the owner's block, merging it with its free neighbours; false when `owner` owns nothing.
  bool deallocate(uint32_t owner);
  // Makes `block` (clipped to the window) unavailable for good, without an owner and whatever it overlaps: the
  // placement of a tensor another pass fixed, which may share memory with another fixed one.
  void obstruct(const MemoryBlock& block);

  // A tensor's request and placement in this manager's geometry: SBUF partitions x bytes per partition, PSUM
  // 1 x banks.
  static MemoryBlock requestOf(const Arch& arch, const Tensor& t);
  static Placement placementOf(Space space, const MemoryBlock& b);
  static MemoryBlock blockOf(const Arch& arch, const Tensor& t, const Placement& at);

  void setCornerOrder(const std::array<Corner, 3>& order) { corners_ = order; }
  void setFreeBlockOrder(FreeBlockOrder order) { order_ = order; }
  const BestFitGeometry& geometry() const { return g_; }
  // The free blocks in address order, and by size (best-fit order).
  std::vector<MemoryBlock> freeByAddress() const;
  std::vector<MemoryBlock> freeBySize() const;
  std::optional<MemoryBlock> ownedBy(uint32_t owner) const;
  uint64_t usedCells() const { return used_; }  // owned cells (obstacles not counted)
  FragmentationStats stats() const;

 private:
  struct AddressLess {
    bool operator()(const MemoryBlock& a, const MemoryBlock& b) const;
  };
  struct SizeLess {
    bool operator()(const MemoryBlock& a, const MemoryBlock& b) const;
  };
  bool legal(const MemoryBlock& b) const;
  std::optional<MemoryBlock> atCorner(const MemoryBlock& free, Corner c, uint32_t rows, uint64_t cols) const;
  void addFree(const MemoryBlock& b);
  void removeFree(const MemoryBlock& b);
  void carve(const MemoryBlock& taken);  // splits the free blocks that meet `taken`
  void rebuildFree();
  void sample(const MemoryBlock& placed);

  BestFitGeometry g_;
  std::array<Corner, 3> corners_{Corner::LowerLeft, Corner::UpperLeft, Corner::Right};
  FreeBlockOrder order_ = FreeBlockOrder::BySize;
  SortedVectorSet<MemoryBlock, AddressLess> by_address_;
  SortedVectorSet<MemoryBlock, SizeLess> by_size_;
  std::vector<MemoryBlock> hit_, parts_;                   // carve's scratch
  std::vector<std::pair<uint32_t, MemoryBlock>> owned_;    // rebuildFree's scratch
  std::unordered_map<uint32_t, MemoryBlock> by_owner_;
  std::vector<MemoryBlock> obstacles_;
  uint64_t used_ = 0, peak_used_ = 0;
  PSquareQuantile frag_p50_{0.5}, frag_p90_{0.9}, block_p50_{0.5}, block_p90_{0.9};
};

}  // namespace allocsim
