#include "ir/physical_storage.h"

#include <cstring>
#include <stdexcept>

namespace allocsim {
namespace {

uint64_t mix(uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Poison streams: one per memory, so that SBUF and PSUM do not start with the same pattern.
enum Stream : uint64_t { kSbuf = 1, kPsum, kDram, kRegisters, kOwnDram };

}  // namespace

void fillPoison(uint64_t seed, uint64_t stream, uint8_t* bytes, size_t n) {
  const uint64_t key = mix(seed ^ mix(stream + 0x9e3779b97f4a7c15ULL));
  size_t i = 0;
  for (uint64_t w = 0; i + 8 <= n; i += 8, ++w) {
    uint64_t v = mix(key + w * 0x9e3779b97f4a7c15ULL);
    std::memcpy(bytes + i, &v, 8);
  }
  if (i < n) {
    uint64_t v = mix(key + (i / 8) * 0x9e3779b97f4a7c15ULL);
    std::memcpy(bytes + i, &v, n - i);
  }
}

PhysicalStorage::PhysicalStorage(const Program& p, uint64_t seed, uint64_t max_bytes) : layout_(p) {
  const Arch& a = p.arch;
  unsigned __int128 total = (unsigned __int128)a.sbuf_partitions * a.sbuf_bytes +
                            (unsigned __int128)a.psumPartitions() * a.psumBytes() + layout_.sharedDramBytes() +
                            uint64_t(a.sp_registers) * 4;
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Dram && !t.placement) total += t.totalBytes();
  if (total > max_bytes)
    throw InputError(SourceLoc{}, "physical storage of the program's machine needs more than the limit of " +
                                      std::to_string(max_bytes) + " bytes");

  sbuf_.resize(size_t(a.sbuf_partitions) * a.sbuf_bytes);
  psum_.resize(size_t(a.psumPartitions()) * a.psumBytes());
  dram_.resize(layout_.sharedDramBytes());
  lanes_.resize(a.sp_registers);
  fillPoison(seed, kSbuf, sbuf_.data(), sbuf_.size());
  fillPoison(seed, kPsum, psum_.data(), psum_.size());
  fillPoison(seed, kDram, dram_.data(), dram_.size());
  fillPoison(seed, kRegisters, reinterpret_cast<uint8_t*>(lanes_.data()), lanes_.size() * 4);

  own_.resize(p.tensors.size());
  rows_.resize(p.tensors.size());
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    const Tensor& t = p.tensors[id];
    RowMap& m = rows_[id];
    m.partitions = t.partitions;
    PhysicalByte first = layout_.locate(id, 0, 0);
    switch (first.region) {
      case PhysRegion::Sbuf:
        m.base = sbuf_.data() + size_t(first.row) * a.sbuf_bytes + first.byte;
        m.stride = a.sbuf_bytes;
        break;
      case PhysRegion::Psum:
        m.base = psum_.data() + first.byte;
        m.stride = a.psumBytes();
        break;
      case PhysRegion::Dram:
        m.base = dram_.data() + first.byte;
        m.stride = t.bytesPerPartition();
        break;
      case PhysRegion::OwnDram:
        own_[id].resize(t.totalBytes());
        // Also poisoned: a spill slot read before anything was stored there must not read a lucky zero.
        fillPoison(seed, kOwnDram + id, own_[id].data(), own_[id].size());
        m.base = own_[id].data();
        m.stride = t.bytesPerPartition();
        break;
    }
  }
  for (const Register& r : p.registers) masks_.push_back(registerMask(r.width));
}

uint8_t* PhysicalStorage::row(TensorId t, uint32_t partition) {
  if (t >= rows_.size() || partition >= rows_[t].partitions)
    throw std::out_of_range("PhysicalStorage::row: no such tensor partition");
  return rows_[t].base + partition * rows_[t].stride;
}

uint64_t PhysicalStorage::readReg(RegId r) {
  uint32_t lane = layout_.firstLane(r);
  uint64_t v = lanes_.at(lane);
  if (layout_.lanes(r) == 2) v |= uint64_t(lanes_.at(lane + 1)) << 32;
  return v & masks_.at(r);
}

void PhysicalStorage::writeReg(RegId r, uint64_t v) {
  uint32_t lane = layout_.firstLane(r);
  v &= masks_.at(r);
  lanes_.at(lane) = uint32_t(v);
  if (layout_.lanes(r) == 2) lanes_.at(lane + 1) = uint32_t(v >> 32);
}

uint8_t PhysicalStorage::byteAt(const PhysicalByte& b) const {
  const Arch& a = layout_.arch();
  switch (b.region) {
    case PhysRegion::Sbuf:
      if (b.row >= a.sbuf_partitions || b.byte >= a.sbuf_bytes) break;
      return sbuf_[size_t(b.row) * a.sbuf_bytes + b.byte];
    case PhysRegion::Psum:
      if (b.row >= a.psumPartitions() || b.byte >= a.psumBytes()) break;
      return psum_[size_t(b.row) * a.psumBytes() + b.byte];
    case PhysRegion::Dram: return dram_.at(b.byte);
    case PhysRegion::OwnDram: return own_.at(b.own).at(b.byte);
  }
  throw std::out_of_range("PhysicalStorage::byteAt: outside the machine");
}

}  // namespace allocsim
