// Where an access lands on the machine, as the scoreboard sees it (physical byte ranges (partition x byte), PSUM
// banks and registers): a rectangle rows x bytes in one physical resource.
// - SBUF: rows = partitions, bytes = the bounding byte range of the view in each partition;
// - PSUM: one row, bytes rounded out to whole banks (a bank spans all partitions, and PE and ACT contend per
//   bank: two tensors on one bank serialize, on two banks they overlap);
// - DRAM: one row, the bounding address range (placed tensors share one array; an unplaced one is its own
//   resource);
// - registers: one row, 4 bytes per 32-bit lane.
// A bounding rectangle may add a false dependence for a strided view; it never misses a true one.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/machine_layout.h"
#include "ir/view.h"

namespace allocsim::sim {

struct Footprint {
  enum : uint32_t { kSbuf = 0, kPsum = 1, kDram = 2, kRegisters = 3, kOwnDram = 4 };  // kOwnDram + TensorId
  uint32_t resource = kSbuf;
  uint32_t row_lo = 0, row_hi = 0;    // [lo, hi)
  uint64_t byte_lo = 0, byte_hi = 0;  // [lo, hi)

  bool empty() const { return row_lo >= row_hi || byte_lo >= byte_hi; }
  bool overlaps(const Footprint& o) const {
    return resource == o.resource && row_lo < o.row_hi && o.row_lo < row_hi && byte_lo < o.byte_hi &&
           o.byte_lo < byte_hi;
  }
};

// The footprint of a resolved view of an allocated program (empty for an empty view).
Footprint viewFootprint(const MachineLayout& layout, const ResolvedView& v);

// The footprints of one view shape (tensor, partitions, counts and step) at any first partition and element: what
// dispatch recomputes when only a view's registers change. at(v.partition, v.offset) is viewFootprint(layout, v).
class ShapeFootprint {
 public:
  ShapeFootprint() = default;
  ShapeFootprint(const MachineLayout& layout, const ResolvedView& shape);
  Footprint at(uint32_t partition, uint64_t offset) const {
    Footprint f;
    if (empty_) return f;
    const uint64_t lo = offset * elem_size_;
    f.resource = resource_;
    switch (resource_) {
      case Footprint::kSbuf:
        f.row_lo = first_row_ + partition;
        f.row_hi = f.row_lo + partitions_;
        f.byte_lo = start_ + lo;
        f.byte_hi = f.byte_lo + span_;
        return f;
      case Footprint::kPsum:  // whole banks
        f.row_hi = 1;
        f.byte_lo = (start_ + lo) / bank_ * bank_;
        f.byte_hi = (start_ + lo + span_ + bank_ - 1) / bank_ * bank_;
        return f;
      default:  // DRAM: from the first partition's first byte to the last partition's last
        f.row_hi = 1;
        f.byte_lo = start_ + partition * row_bytes_ + lo;
        f.byte_hi = start_ + (uint64_t(partition) + partitions_ - 1) * row_bytes_ + lo + span_;
        return f;
    }
  }

 private:
  bool empty_ = true;
  uint32_t resource_ = Footprint::kSbuf;
  uint32_t first_row_ = 0, partitions_ = 0, elem_size_ = 0;
  uint64_t start_ = 0;      // the tensor's first byte (SBUF: in its first row; PSUM: in the banks; DRAM: address)
  uint64_t row_bytes_ = 0;  // DRAM: from one partition to the next
  uint64_t bank_ = 1;       // PSUM
  uint64_t span_ = 0;       // from the view's first byte in a partition to past its last
};
// The resource (Footprint::resource) that holds tensor `t`'s elements (SBUF, PSUM or DRAM tensor, not a register).
uint32_t tensorResource(const MachineLayout& layout, TensorId t);
// The resources the instructions of `p` write (by Footprint::resource; registers not included): those of every
// tensor an instruction names as its destination or fused reduction's destination.
std::vector<bool> writtenResources(const Program& p, const MachineLayout& layout);
// The scoreboard's bucket of SBUF bytes for `p` (sim/scoreboard.h), as a shift: about the bytes per partition its
// SBUF accesses span (the median weighted by span and by how often each runs, over the destination and first two
// sources of its instructions, loops taken their trip counts), a power of two from 64 B to 64 KiB, so that a
// typical access falls in one or two buckets.
uint32_t sbufBucketShift(const Program& p);
// Where the scoreboard's SBUF buckets of 2^shift bytes start (a byte offset below 2^shift): the one that puts the
// fewest of `p`'s SBUF views across a bucket boundary (each counted as often as it runs), among the offsets
// its views start at. A tile placed at an offset from the bucket grid would otherwise fall in two buckets, to be
// searched and entered twice. Only views whose first byte modulo 2^shift no register changes count.
uint64_t sbufBucketOrigin(const Program& p, const MachineLayout& layout, uint32_t shift);
// The footprint of a register's lanes.
Footprint registerFootprint(const MachineLayout& layout, RegId r);

}  // namespace allocsim::sim
