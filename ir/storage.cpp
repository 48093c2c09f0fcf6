#include "ir/storage.h"

#include <stdexcept>

namespace allocsim {

PrivateStorage::PrivateStorage(const Program& p) : buffers_(p.tensors.size()), regs_(p.registers.size(), 0) {
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    buffers_[t].row_bytes = p.tensors[t].bytesPerPartition();
    buffers_[t].partitions = p.tensors[t].partitions;
  }
  for (const Register& r : p.registers) masks_.push_back(registerMask(r.width));
}

uint8_t* PrivateStorage::row(TensorId t, uint32_t partition) {
  if (t >= buffers_.size() || partition >= buffers_[t].partitions)
    throw std::out_of_range("PrivateStorage::row: no such tensor partition");
  Buffer& b = buffers_[t];
  if (b.bytes.empty()) b.bytes.assign(b.partitions * b.row_bytes, 0);
  return b.bytes.data() + partition * b.row_bytes;
}

void PrivateStorage::release(TensorId t) {
  if (t < buffers_.size()) std::vector<uint8_t>().swap(buffers_[t].bytes);
}

uint64_t PrivateStorage::readReg(RegId r) { return regs_.at(r); }

void PrivateStorage::writeReg(RegId r, uint64_t v) { regs_.at(r) = v & masks_.at(r); }

}  // namespace allocsim
