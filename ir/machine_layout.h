// Where an allocated program's tensors and registers live on the machine (docs/verification.md "Oracle 1"):
// the geometry only, no bytes. PhysicalStorage (ir/physical_storage.h) keeps the bytes; the oracles use the
// geometry alone to ask which tensor's element a physical byte is, and to name a byte in a diagnostic.
//
// - SBUF: sbuf_partitions rows of sbuf_bytes; a tensor at @pP+B keeps partition q at row P+q, bytes B... .
// - PSUM: psumPartitions() rows of psum_banks * psum_bank_bytes; a tensor at @bankN keeps partition q at row q,
//   element e at byte N*psum_bank_bytes + e*size.
// - DRAM: tensors with a placement @B share one byte array (row-major, byte B + (q*elements + e)*size); a DRAM
//   tensor without one has a private buffer, shared with nothing.
// - Registers: sp_registers 32-bit lanes; a register at @rN uses lane N (a 64-bit one also N+1, its high half).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "ir/view.h"

namespace allocsim {

enum class PhysRegion : uint8_t { Sbuf, Psum, Dram, OwnDram };

// One physical byte.
struct PhysicalByte {
  PhysRegion region = PhysRegion::Sbuf;
  uint32_t row = 0;       // SBUF / PSUM partition; 0 in DRAM
  uint64_t byte = 0;      // byte in the row (PSUM: counted from bank 0); DRAM: the address
  TensorId own = kNone;   // OwnDram: the tensor whose private buffer holds it
  bool operator==(const PhysicalByte&) const = default;
};

class MachineLayout {
 public:
  // Throws InputError at the declaration of an SBUF/PSUM tensor or register without a placement, or of a
  // placement outside the machine (messages name the tensor or register).
  explicit MachineLayout(const Program& allocated);

  PhysicalByte locate(TensorId t, uint32_t partition, uint64_t byte_in_row) const;
  // The (partition, element) of t stored at b, if b lies in t's footprint.
  struct Element {
    uint32_t partition;
    uint64_t element;
  };
  std::optional<Element> elementAt(TensorId t, const PhysicalByte& b) const;
  // True when the view names the element of its tensor stored at b.
  bool covers(const ResolvedView& v, const PhysicalByte& b) const;

  // "SBUF p3 byte 260", "PSUM p0 bank 1 byte 8", "DRAM byte 1024", "DRAM 'X' (own buffer) byte 12";
  // with length > 1 a range: "SBUF p3 bytes 260..263".
  std::string describe(const PhysicalByte& b, uint64_t length = 1) const;
  std::string describe(TensorId t, uint32_t partition, uint64_t byte_in_row) const;

  uint32_t firstLane(RegId r) const { return first_lane_.at(r); }
  uint32_t lanes(RegId r) const { return lane_count_.at(r); }
  std::string describeLane(uint32_t lane) const { return "r" + std::to_string(lane); }

  uint64_t sharedDramBytes() const { return shared_dram_bytes_; }
  const Arch& arch() const { return arch_; }

 private:
  struct Footprint {
    Space space = Space::Sbuf;
    bool placed = false;
    uint32_t partitions = 0;
    uint64_t row_bytes = 0;  // bytes per partition
    uint32_t elem_size = 4;
    uint32_t first_row = 0;  // SBUF: base partition
    uint64_t start = 0;      // SBUF: byte offset; PSUM: bank * bank bytes; DRAM: address
    std::string name;
  };
  Arch arch_;
  std::vector<Footprint> tensors_;
  std::vector<uint32_t> first_lane_, lane_count_;
  uint64_t shared_dram_bytes_ = 0;
};

}  // namespace allocsim
