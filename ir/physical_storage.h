// An allocated program's bytes where the machine keeps them (ir/machine_layout.h): SBUF partitions x bytes,
// PSUM partitions x banks, the register file as 32-bit lanes, DRAM as one shared array for placed tensors
// plus a private buffer per unplaced DRAM tensor. Two tensors placed on the same bytes really share them, so
// an allocation that lets one clobber the other changes what the program reads (docs/verification.md).
//
// Everything starts as poison drawn from poison_seed (different seeds give different bytes), so that a read
// of bytes nobody wrote in this run returns garbage that varies from run to run instead of a lucky zero.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/machine_layout.h"
#include "ir/storage.h"

namespace allocsim {

class PhysicalStorage : public Storage {
 public:
  // Throws InputError (at the declaration) for an SBUF/PSUM tensor or register without a placement or placed
  // outside the machine, and when the storage would exceed max_bytes in total.
  PhysicalStorage(const Program& allocated, uint64_t poison_seed, uint64_t max_bytes = uint64_t(1) << 32);

  uint8_t* row(TensorId t, uint32_t partition) override;
  uint64_t readReg(RegId r) override;
  void writeReg(RegId r, uint64_t v) override;

  const MachineLayout& layout() const { return layout_; }
  // "SBUF p3 byte 260": where byte `byte_in_row` of partition `partition` of tensor t lives.
  std::string describe(TensorId t, uint32_t partition, uint64_t byte_in_row) const {
    return layout_.describe(t, partition, byte_in_row);
  }
  // The byte at a physical location (for tests and diagnostics); throws std::out_of_range outside the machine.
  uint8_t byteAt(const PhysicalByte& b) const;
  uint32_t lane(uint32_t index) const { return lanes_.at(index); }

 private:
  struct RowMap {
    uint8_t* base = nullptr;  // partition 0
    uint64_t stride = 0;      // bytes from one partition to the next
    uint32_t partitions = 0;
  };
  MachineLayout layout_;
  std::vector<uint8_t> sbuf_, psum_, dram_;
  std::vector<std::vector<uint8_t>> own_;  // by TensorId; empty unless an unplaced DRAM tensor
  std::vector<uint32_t> lanes_;
  std::vector<RowMap> rows_;
  std::vector<uint64_t> masks_;
};

// Fills `bytes` with the poison of (seed, stream): different seeds or streams give different patterns.
void fillPoison(uint64_t seed, uint64_t stream, uint8_t* bytes, size_t n);

}  // namespace allocsim
