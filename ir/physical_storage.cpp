#include "ir/physical_storage.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#if defined(__SANITIZE_ADDRESS__)
#define ALLOCSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOCSIM_ASAN 1
#endif
#endif
#ifdef ALLOCSIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace allocsim {
namespace {

uint64_t mix(uint64_t z) {  // splitmix64's finalizer
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Poison streams: one per memory, so that SBUF and PSUM do not start with the same pattern.
enum Stream : uint64_t { kSbuf = 1, kPsum, kDram, kRegisters, kOwnDram };

// Byte arrays of storages gone, kept by this thread for the next storage's regions of the same size: the equivalence
// oracle builds a PhysicalStorage per run, and allocating and freeing its SBUF and PSUM arrays every time (32-96 KiB
// on the fuzz targets' machines) cost a sanitizer build the shadow updates and quarantine of the whole array per run
//. Reuse changes no value: a region's bytes are poisoned from its seed, chunk by
// chunk, before any of them is handed out (ensurePoisoned). Under AddressSanitizer a kept array is poisoned, so that
// a pointer into a storage gone is still caught when used. Only arrays of kMinKept..kMaxKept bytes, a few of them.
class SpareArrays {
 public:
  static constexpr size_t kMinKept = 4096, kMaxKept = size_t(1) << 20, kSlots = 4;
  std::unique_ptr<uint8_t[]> take(size_t n) {
    for (Slot& s : slots_)
      if (s.data && s.size == n) {
        unpoison(s.data.get(), n);
        return std::move(s.data);
      }
    return std::make_unique_for_overwrite<uint8_t[]>(n);
  }
  void give(std::unique_ptr<uint8_t[]> data, size_t n) {
    if (!data || n < kMinKept || n > kMaxKept) return;
    Slot* slot = nullptr;  // an empty slot, else each in turn
    for (Slot& s : slots_)
      if (!s.data && !slot) slot = &s;
    if (!slot) {
      slot = &slots_[next_];
      next_ = (next_ + 1) % kSlots;
    }
    poison(data.get(), n);
    slot->data = std::move(data);  // an older array in the slot is freed
    slot->size = n;
  }

 private:
#ifdef ALLOCSIM_ASAN
  static void poison(uint8_t* p, size_t n) { __asan_poison_memory_region(p, n); }
  static void unpoison(uint8_t* p, size_t n) { __asan_unpoison_memory_region(p, n); }
#else
  static void poison(uint8_t*, size_t) {}
  static void unpoison(uint8_t*, size_t) {}
#endif
  struct Slot {
    size_t size = 0;
    std::unique_ptr<uint8_t[]> data;
  };
  Slot slots_[kSlots];
  size_t next_ = 0;
};

SpareArrays& spareArrays() {
  thread_local SpareArrays spare;
  return spare;
}

}  // namespace

void fillPoison(uint64_t seed, uint64_t stream, uint64_t first, uint8_t* bytes, size_t n) {
  const uint64_t key = mix(seed ^ mix(stream + 0x9e3779b97f4a7c15ULL));
  size_t i = 0;
  for (uint64_t w = first / 8; i + 8 <= n; i += 8, ++w) {
    uint64_t v = mix(key + w * 0x9e3779b97f4a7c15ULL);
    std::memcpy(bytes + i, &v, 8);
  }
  if (i < n) {
    uint64_t v = mix(key + ((first + i) / 8) * 0x9e3779b97f4a7c15ULL);
    std::memcpy(bytes + i, &v, n - i);
  }
}

// The bytes are allocated at first use (ensurePoisoned): a long program has a DRAM tensor of its own for every
// input, output and spill slot, most of them not in use at any one time.
void PhysicalStorage::Region::allocate(size_t n, uint64_t seed, uint64_t stream) {
  giveBack();
  size_ = n;
  seed_ = seed;
  stream_ = stream;
  poisoned_.assign((n + kChunk - 1) / kChunk, false);
}

// The bytes themselves go: a released tensor's region is not replaced by a fresh one of the same size, which would
// keep every released DRAM tensor's memory allocated until the end of the run.
void PhysicalStorage::Region::free() { allocate(size_, seed_, stream_); }

void PhysicalStorage::Region::giveBack() { spareArrays().give(std::move(data_), size_); }

void PhysicalStorage::Region::ensurePoisoned(size_t first, size_t n) {
  if (!data_) data_ = spareArrays().take(size_);
  if (n == 0) return;
  for (size_t c = first / kChunk; c <= (first + n - 1) / kChunk && c < poisoned_.size(); ++c) {
    if (poisoned_[c]) continue;
    const size_t start = c * kChunk;
    fillPoison(seed_, stream_, start, data_.get() + start, std::min(kChunk, size_ - start));
    poisoned_[c] = true;
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

  sbuf_.allocate(size_t(a.sbuf_partitions) * a.sbuf_bytes, seed, kSbuf);
  psum_.allocate(size_t(a.psumPartitions()) * a.psumBytes(), seed, kPsum);
  dram_.allocate(layout_.sharedDramBytes(), seed, kDram);
  lanes_.resize(a.sp_registers);
  fillPoison(seed, kRegisters, 0, reinterpret_cast<uint8_t*>(lanes_.data()), lanes_.size() * 4);

  own_.resize(p.tensors.size());
  rows_.resize(p.tensors.size());
  size_t flags = 0;
  for (const Tensor& t : p.tensors) flags += t.partitions;
  ready_.assign(flags, 0);
  flags = 0;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    const Tensor& t = p.tensors[id];
    RowMap& m = rows_[id];
    m.ready = flags;
    m.partitions = t.partitions;
    m.unready = t.partitions;
    flags += t.partitions;
    m.row_bytes = t.bytesPerPartition();
    PhysicalByte first = layout_.locate(id, 0, 0);
    switch (first.region) {
      case PhysRegion::Sbuf:
        m.region = &sbuf_;
        m.first = size_t(first.row) * a.sbuf_bytes + first.byte;
        m.stride = a.sbuf_bytes;
        break;
      case PhysRegion::Psum:
        m.region = &psum_;
        m.first = first.byte;
        m.stride = a.psumBytes();
        break;
      case PhysRegion::Dram:
        m.region = &dram_;
        m.first = first.byte;
        m.stride = t.bytesPerPartition();
        break;
      case PhysRegion::OwnDram:
        // Also poisoned: a spill slot read before anything was stored there must not read a lucky zero.
        own_[id].allocate(t.totalBytes(), seed, kOwnDram + id);
        m.region = &own_[id];
        m.first = 0;
        m.stride = t.bytesPerPartition();
        break;
    }
  }
  regs_.reserve(p.registers.size());
  for (RegId r = 0; r < p.registers.size(); ++r)
    regs_.push_back({registerMask(p.registers[r].width), layout_.firstLane(r), layout_.lanes(r) == 2});
}

void PhysicalStorage::makeReady(RowMap& m, uint32_t partition) {
  uint8_t& ready = ready_[m.ready + partition];
  if (ready) return;
  m.region->ensurePoisoned(m.first + partition * m.stride, m.row_bytes);
  ready = 1;
  --m.unready;
}

uint8_t* PhysicalStorage::row(TensorId t, uint32_t partition) {
  if (t >= rows_.size() || partition >= rows_[t].partitions)
    throw std::out_of_range("PhysicalStorage::row: no such tensor partition");
  RowMap& m = rows_[t];
  if (m.unready) makeReady(m, partition);
  return m.region->data() + m.first + partition * m.stride;
}

void PhysicalStorage::rows(TensorId t, uint32_t first, uint32_t n, uint8_t** out) {
  uint64_t stride;
  uint8_t* base = rowRange(t, first, n, stride);
  for (uint32_t i = 0; i < n; ++i) out[i] = base + i * stride;
}

uint8_t* PhysicalStorage::rowRange(TensorId t, uint32_t first, uint32_t n, uint64_t& stride) {
  if (t >= rows_.size() || first > rows_[t].partitions || n > rows_[t].partitions - first)
    throw std::out_of_range("PhysicalStorage::rows: no such tensor partition");
  RowMap& m = rows_[t];
  if (m.unready)
    for (uint32_t i = 0; i < n; ++i) makeReady(m, first + i);
  stride = m.stride;
  return m.region->data() + m.first + size_t(first) * m.stride;
}

void PhysicalStorage::release(TensorId t) {
  if (t >= rows_.size() || t >= own_.size() || rows_[t].region != &own_[t]) return;
  own_[t].free();
  RowMap& m = rows_[t];
  std::fill(ready_.begin() + std::ptrdiff_t(m.ready), ready_.begin() + std::ptrdiff_t(m.ready + m.partitions), 0);
  m.unready = m.partitions;
}

void PhysicalStorage::writeReg(RegId r, uint64_t v) {
  if (r >= regs_.size()) throw std::out_of_range("PhysicalStorage::writeReg: no such register");
  const Reg& g = regs_[r];
  v &= g.mask;
  lanes_[g.lane] = uint32_t(v);
  if (g.two_lanes) lanes_[g.lane + 1] = uint32_t(v >> 32);
}

uint8_t PhysicalStorage::byteAt(const PhysicalByte& b) {
  const Arch& a = layout_.arch();
  Region* region = nullptr;
  size_t at = b.byte;
  switch (b.region) {
    case PhysRegion::Sbuf:
      if (b.row < a.sbuf_partitions && b.byte < a.sbuf_bytes) region = &sbuf_, at += size_t(b.row) * a.sbuf_bytes;
      break;
    case PhysRegion::Psum:
      if (b.row < a.psumPartitions() && b.byte < a.psumBytes()) region = &psum_, at += size_t(b.row) * a.psumBytes();
      break;
    case PhysRegion::Dram: region = &dram_; break;
    case PhysRegion::OwnDram:
      if (b.own < own_.size()) region = &own_[b.own];
      break;
  }
  if (!region || at >= region->size()) throw std::out_of_range("PhysicalStorage::byteAt: outside the machine");
  region->ensurePoisoned(at, 1);
  return region->data()[at];
}

}  // namespace allocsim
