// An allocated program's bytes where the machine keeps them (ir/machine_layout.h): SBUF partitions x bytes,
// PSUM partitions x banks, the register file as 32-bit lanes, DRAM as one shared array for placed tensors
// plus a private buffer per unplaced DRAM tensor. Two tensors placed on the same bytes really share them, so
// an allocation that lets one clobber the other changes what the program reads (docs/verification.md).
//
// Everything starts as poison drawn from poison_seed (different seeds give different bytes), so that a read
// of bytes nobody wrote in this run returns garbage that varies from run to run instead of a lucky zero.
// The poison is laid down lazily, 4 KiB at a time when a tensor row first touches it: a gen2 machine has
// 26 MiB of SBUF and PSUM, most of which a small kernel never touches, and writing all of it would cost more
// than running the kernel. Which bytes are poisoned when does not change their values.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/machine_layout.h"
#include "ir/storage.h"

namespace allocsim {

// (Final: a caller holding a PhysicalStorage calls its register accessors directly; the simulator reads registers
// at every dispatch.)
class PhysicalStorage final : public Storage {
 public:
  // Throws InputError (at the declaration) for an SBUF/PSUM tensor or register without a placement or placed
  // outside the machine, and when the storage would exceed max_bytes in total.
  PhysicalStorage(const Program& allocated, uint64_t poison_seed, uint64_t max_bytes = uint64_t(1) << 32);
  PhysicalStorage(const PhysicalStorage&) = delete;  // rows point into the regions
  PhysicalStorage& operator=(const PhysicalStorage&) = delete;

  uint8_t* row(TensorId t, uint32_t partition) override;
  void rows(TensorId t, uint32_t first, uint32_t n, uint8_t** out) override;
  uint8_t* rowRange(TensorId t, uint32_t first, uint32_t n, uint64_t& stride) override;
  uint64_t readReg(RegId r) override {
    if (r >= regs_.size()) throw std::out_of_range("PhysicalStorage::readReg: no such register");
    const Reg& g = regs_[r];
    uint64_t v = lanes_[g.lane];
    if (g.two_lanes) v |= uint64_t(lanes_[g.lane + 1]) << 32;
    return v & g.mask;
  }
  void writeReg(RegId r, uint64_t v) override;
  void release(TensorId t) override;  // frees an unplaced DRAM tensor's own region (placed storage is shared)

  const MachineLayout& layout() const { return layout_; }
  // "SBUF p3 byte 260": where byte `byte_in_row` of partition `partition` of tensor t lives.
  std::string describe(TensorId t, uint32_t partition, uint64_t byte_in_row) const {
    return layout_.describe(t, partition, byte_in_row);
  }
  // The byte at a physical location (for tests and diagnostics); throws std::out_of_range outside the machine.
  uint8_t byteAt(const PhysicalByte& b);
  uint32_t lane(uint32_t index) const { return lanes_.at(index); }

 private:
  // A byte array allocated at its first use and poisoned chunk by chunk on first use (left uninitialised until
  // then, so untouched pages are never mapped).
  class Region {
   public:
    Region() = default;
    Region(Region&&) noexcept = default;
    Region& operator=(Region&&) noexcept = default;
    ~Region() { giveBack(); }
    void allocate(size_t n, uint64_t seed, uint64_t stream);
    uint8_t* data() { return data_.get(); }
    size_t size() const { return size_; }
    void ensurePoisoned(size_t first, size_t n);
    void free();  // back to never touched: the memory goes, the next use allocates and poisons again

   private:
    void giveBack();  // the bytes to this thread's spare arrays (physical_storage.cpp), or freed
    static constexpr size_t kChunk = 4096;
    std::unique_ptr<uint8_t[]> data_;
    size_t size_ = 0;
    uint64_t seed_ = 0, stream_ = 0;
    std::vector<bool> poisoned_;  // per chunk
  };
  struct RowMap {
    Region* region = nullptr;
    size_t first = 0;         // partition 0's first byte in the region
    uint64_t stride = 0;      // bytes from one partition to the next
    uint64_t row_bytes = 0;
    size_t ready = 0;            // where its partitions' flags begin in ready_ (each: its bytes are poisoned)
    uint32_t partitions = 0;
    uint32_t unready = 0;        // partitions not ready yet (0: no need to look at the flags)
  };
  void makeReady(RowMap& m, uint32_t partition);
  MachineLayout layout_;
  Region sbuf_, psum_, dram_;
  std::vector<Region> own_;  // by TensorId; used by unplaced DRAM tensors
  std::vector<uint32_t> lanes_;
  std::vector<RowMap> rows_;
  std::vector<uint8_t> ready_;  // every tensor's per-partition flags, one block (RowMap::ready)
  // By register: where its lanes are in lanes_ (the layout placed every register in the file) and its width.
  struct Reg {
    uint64_t mask;
    uint32_t lane;
    bool two_lanes;
  };
  std::vector<Reg> regs_;
};

// Fills `bytes` with the poison of (seed, stream) for the region bytes [first, first + n); `first` is a multiple
// of 8. Different seeds or streams give different patterns; a byte's poison depends only on its position.
void fillPoison(uint64_t seed, uint64_t stream, uint64_t first, uint8_t* bytes, size_t n);

}  // namespace allocsim
