#include "ir/view.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace allocsim {
namespace {

std::string str(__int128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return std::to_string(int64_t(v));
  return v < 0 ? "-huge" : "huge";
}

// Each term is |scale * r| < 2^127; clamping every partial sum to +-2^100 keeps the sum exact whenever it could
// name an element (tensors are far smaller than 2^100) and free of overflow otherwise.
__int128 clampIndex(__int128 v) {
  const __int128 limit = __int128(1) << 100;
  return v > limit ? limit : v < -limit ? -limit : v;
}

// Hashes the index's value, not its registers one by one: an allocation may rename registers (SSA webs), which
// re-sorts the terms, or merge two that hold one value, and the operand is the same as long as the value is.
__int128 evalIndex(const Program& p, Storage& s, const Index& idx, SourceLoc loc, const char* what, OperandHasher& h) {
  __int128 sum = idx.constant;
  for (const IndexTerm& t : idx.terms) {
    if (t.reg >= p.registers.size()) throw InputError(loc, std::string(what) + " uses an undeclared register");
    uint64_t r = s.readReg(t.reg);
    sum = clampIndex(sum + clampIndex(__int128(t.scale) * __int128(r)));
  }
  if (!idx.terms.empty()) {
    h.u64(uint64_t(sum));
    h.u64(uint64_t(sum >> 64));
  }
  return sum;
}

}  // namespace

__int128 evaluateIndex(const Program& p, Storage& s, const Index& idx, SourceLoc loc, OperandHasher& h) {
  return evalIndex(p, s, idx, loc, "index", h);
}

ResolvedView resolveView(const Program& p, Storage& s, const AccessPattern& ap, uint64_t max_bytes,
                         OperandHasher& h) {
  if (ap.tensor >= p.tensors.size()) throw InputError(ap.loc, "access pattern names no tensor");
  const Tensor& t = p.tensors[ap.tensor];
  __int128 part = evalIndex(p, s, ap.partition, ap.loc, "access pattern", h);
  __int128 off = evalIndex(p, s, ap.offset, ap.loc, "access pattern", h);

  if (part < 0 || part + ap.partitions > t.partitions)
    throw InputError(ap.loc, "partitions [" + str(part) + ", " + str(part + ap.partitions) + ") of '" + t.name + "'" +
                                 " out of range: it has " + std::to_string(t.partitions));
  bool empty = ap.count == 0 || ap.count2 == 0 || ap.partitions == 0;
  __int128 last = off + (empty ? 0 : __int128(ap.count2 - 1) * ap.step2 + ap.count - 1);
  if (off < 0 || (empty ? off > t.elements : last >= t.elements))
    throw InputError(ap.loc, "elements [" + str(off) + ", " + str(last + 1) + ") of '" + t.name + "'" +
                                 " out of range: it has " + std::to_string(t.elements) + " per partition");

  ResolvedView v;
  v.tensor = ap.tensor;
  v.dtype = t.dtype;
  v.elem_size = dtypeSize(t.dtype);
  v.partition = uint32_t(part);
  v.partitions = ap.partitions;
  v.offset = uint64_t(off);
  v.count = ap.count;
  v.step2 = ap.step2;
  v.count2 = ap.count2;
  // partitions <= 2^32 and perPartition < 2^64 can overflow 64 bits: compare in 128.
  if (__int128(v.partitions) * v.perPartition() * v.elem_size > max_bytes)
    throw InputError(ap.loc, "access pattern names " + str(__int128(v.partitions) * v.perPartition()) +
                                 " elements, more than the interpreter's limit of " + std::to_string(max_bytes) +
                                 " bytes");
  return v;
}

// Partitions are fetched from the storage a batch at a time (Storage::rows).
constexpr uint32_t kRowBatch = 32;

void gatherView(Storage& s, const ResolvedView& v, uint8_t* out) {
  const size_t run = size_t(v.count) * v.elem_size;
  if (run == 0) return;
  uint8_t* rows[kRowBatch];
  for (uint32_t p0 = 0; p0 < v.partitions; p0 += kRowBatch) {
    const uint32_t n = std::min(kRowBatch, v.partitions - p0);
    s.rows(v.tensor, v.partition + p0, n, rows);
    for (uint32_t p = 0; p < n; ++p) {
      const uint8_t* row = rows[p] + v.offset * v.elem_size;
      for (uint32_t j = 0; j < v.count2; ++j, out += run) std::memcpy(out, row + size_t(j) * v.step2 * v.elem_size, run);
    }
  }
}

void scatterView(Storage& s, const ResolvedView& v, const uint8_t* in) {
  const size_t run = size_t(v.count) * v.elem_size;
  if (run == 0) return;
  uint8_t* rows[kRowBatch];
  for (uint32_t p0 = 0; p0 < v.partitions; p0 += kRowBatch) {
    const uint32_t n = std::min(kRowBatch, v.partitions - p0);
    s.rows(v.tensor, v.partition + p0, n, rows);
    for (uint32_t p = 0; p < n; ++p) {
      uint8_t* row = rows[p] + v.offset * v.elem_size;
      for (uint32_t j = 0; j < v.count2; ++j, in += run) std::memmove(row + size_t(j) * v.step2 * v.elem_size, in, run);
    }
  }
}

}  // namespace allocsim
