// Where an executing program's bytes live. The reference run uses PrivateStorage (one buffer per tensor); a
// physical storage (SBUF partitions x bytes, PSUM banks, register file, DRAM) implements the same interface,
// so the interpreter touches memory and registers only through it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

class Storage {
 public:
  virtual ~Storage() = default;
  virtual uint8_t* row(TensorId t, uint32_t partition) = 0;  // the bytes of one partition of t (bytesPerPartition long)
  // out[i] = row(t, first + i) for i < n: one call per view and not per partition (gatherView, scatterView).
  virtual void rows(TensorId t, uint32_t first, uint32_t n, uint8_t** out) {
    for (uint32_t i = 0; i < n; ++i) out[i] = row(t, first + i);
  }
  // Where rows(t, first, n) are equally spaced: row `first`, with row first + i at `stride` * i bytes from it
  // (ready to use, as rows() gives them). Null where the storage keeps them otherwise: callers use rows().
  virtual uint8_t* rowRange(TensorId /*t*/, uint32_t /*first*/, uint32_t /*n*/, uint64_t& /*stride*/) { return nullptr; }
  virtual uint64_t readReg(RegId r) = 0;                       // value truncated to the register width
  virtual void writeReg(RegId r, uint64_t v) = 0;
  // Tensor t is dead for the rest of the run (ir/release_schedule.h): storage of its own may be freed. Storage
  // shared with other tensors (the machine's) is kept. Touching t again gives fresh storage.
  virtual void release(TensorId) {}
};

// One zero-initialised buffer per tensor, allocated on first touch; one value per virtual register.
// The caller bounds the program's size (interpret() does); ids out of range throw std::out_of_range.
class PrivateStorage : public Storage {
 public:
  explicit PrivateStorage(const Program& p);
  uint8_t* row(TensorId t, uint32_t partition) override;
  uint64_t readReg(RegId r) override;
  void writeReg(RegId r, uint64_t v) override;
  void release(TensorId t) override;

 private:
  struct Buffer {
    uint64_t row_bytes = 0;
    uint32_t partitions = 0;
    std::vector<uint8_t> bytes;  // empty until first touched
  };
  std::vector<Buffer> buffers_;
  std::vector<uint64_t> regs_;
  std::vector<uint64_t> masks_;
};

// All bits of a register of `width` bits (32 or 64; anything but 64 counts as 32).
inline uint64_t registerMask(uint32_t width) { return width == 64 ? ~uint64_t(0) : 0xffffffffULL; }

}  // namespace allocsim
