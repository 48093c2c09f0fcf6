// Where an access pattern lives on the machine, conservatively, for the DMA optimization's "nothing touched these
// bytes in between" questions (the production allocator, DMAOptimization: every peephole works "on real addresses").
//
// An Area is a rectangle: a row range (SBUF / PSUM partitions) times a byte range within the row, in one region.
// Placed SBUF and PSUM tensors live in the shared SBUF / PSUM regions (PSUM bytes counted from bank 0, as in
// ir/machine_layout.h); a placed DRAM tensor in the shared DRAM region (one row, its whole byte range: DRAM is
// row-major, so a partition slice is not one rectangle). A tensor without a placement — a DRAM tensor in storage
// of its own, or an SBUF tensor the SBUF allocator has not placed yet when the PSUM instance runs — is a region
// of its own: nothing but a view of the same tensor can touch it (the allocator that places it later keeps its
// live values apart). A view whose slice depends on a register covers its whole tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct Area {
  enum class Region : uint8_t { Sbuf, Psum, Dram, Own } region = Region::Sbuf;
  TensorId own = kNone;  // Region::Own: the tensor
  uint64_t row_lo = 0, row_hi = 0;
  uint64_t lo = 0, hi = 0;  // bytes within a row, [lo, hi)
  bool operator==(const Area&) const = default;
};

bool overlaps(const Area& a, const Area& b);
// Every byte of `inner` is a byte of `outer`.
bool contains(const Area& outer, const Area& inner);

// The bytes `ap` may touch (its hull; the whole tensor when a slice depends on a register).
Area areaOf(const Program& p, const AccessPattern& ap);

// A view whose partition and offset are constants and whose second dimension (if any) is dense: one contiguous
// element run [offset, offset + elements) in each of its partitions (bir::AccessPattern::IsContiguous).
bool isPlainRun(const AccessPattern& ap);

// What an instruction (a loop: everything in its body, every iteration) may read and write.
struct InstAreas {
  std::vector<Area> reads, writes;
};
InstAreas areasOf(const Program& p, const Instruction& inst);

bool readsAny(const InstAreas& a, const Area& x);
// Whether one instruction writes or reads a byte of x, without listing its areas.
bool writesAny(const Program& p, const Instruction& inst, const Area& x);
bool readsAny(const Program& p, const Instruction& inst, const Area& x);

// The instructions strictly between positions i and j of one body (loops included whole) write no byte of x.
bool untouchedBetween(const Program& p, const std::vector<Instruction>& body, size_t i, size_t j, const Area& x);

}  // namespace allocsim
