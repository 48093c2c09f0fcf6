// Where an element of a tensor, or a lane of a register, lives on the machine, as a location of a SymbolMap
// (verify/symbol_map.h): a region and a unit index. Placements (docs/format.md "Semantics") decide it:
//   SBUF @pP+B   region SBUF partition P+p, byte B + e*size
//   PSUM @bankN  region PSUM partition p,   byte N*bank_bytes + e*size
//   DRAM @B      region DRAM,               byte B + (p*ELEMENTS + e)*size (row-major)
//   DRAM, none   region private to the tensor, unit p*ELEMENTS + e
//   reg @rN      region register file,      lanes N (and N+1 for 64 bits)
// A unit is the gcd of the space's placement offsets and element sizes, so every element is a whole number
// of units and two elements share a byte exactly when they share a unit — one symbol per byte would be
// exact too but needs up to four times the memory on a full gen2 SBUF.
// Unplaced SBUF/PSUM tensors and registers get private regions (they cannot collide with anything); the
// caller reports them. Out-of-bounds placements are mapped as written: bounds are the placement checker's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

enum class RegionKind : uint8_t { Sbuf = 1, Psum, Dram, PrivateTensor, Registers, PrivateRegister };

inline uint64_t regionId(RegionKind k, uint64_t index) { return uint64_t(k) << 56 | index; }

// Element e of one partition of a tensor occupies units [first + e*units, first + (e+1)*units) of region.
struct RowLocation {
  uint64_t region = 0;
  uint64_t first = 0;
  uint32_t units = 1;
  uint64_t unit(uint64_t element) const { return first + element * units; }
};

class PhysicalLayout {
 public:
  explicit PhysicalLayout(const Program& p);

  RowLocation row(TensorId t, uint64_t partition) const;
  RowLocation lanes(RegId r) const;  // one unit per lane
  // DRAM tensors count as placed: an unplaced DRAM tensor has storage of its own by definition.
  bool tensorPlaced(TensorId t) const;
  bool registerPlaced(RegId r) const;
  // "SBUF partition 3, bytes 256..259" for `units` units starting at `unit` of `region`.
  std::string describe(uint64_t region, uint64_t unit, uint32_t units) const;

 private:
  uint32_t unitBytes(RegionKind k) const;

  const Program& p_;
  uint32_t sbuf_unit_ = 1, psum_unit_ = 1, dram_unit_ = 1;
};

}  // namespace allocsim
