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

// resolveView's errors, out of line: the message's string temporaries would otherwise be locals of resolveView, which
// runs for every operand of every step, and under ASan every call would pay for a stack frame big enough for them.
[[noreturn, gnu::cold, gnu::noinline]] void throwUndeclaredRegister(SourceLoc loc, const char* what) {
  throw InputError(loc, std::string(what) + " uses an undeclared register");
}
[[noreturn, gnu::cold, gnu::noinline]] void throwPartitionsOutOfRange(const AccessPattern& ap, const Tensor& t,
                                                                     __int128 part) {
  throw InputError(ap.loc, "partitions [" + str(part) + ", " + str(part + ap.partitions) + ") of '" + t.name + "'" +
                               " out of range: it has " + std::to_string(t.partitions));
}
[[noreturn, gnu::cold, gnu::noinline]] void throwElementsOutOfRange(const AccessPattern& ap, const Tensor& t,
                                                                   __int128 off, __int128 last) {
  throw InputError(ap.loc, "elements [" + str(off) + ", " + str(last + 1) + ") of '" + t.name + "'" +
                               " out of range: it has " + std::to_string(t.elements) + " per partition");
}
[[noreturn, gnu::cold, gnu::noinline]] void throwViewTooLarge(const AccessPattern& ap, __int128 elements,
                                                             uint64_t max_bytes) {
  throw InputError(ap.loc, "access pattern names " + str(elements) + " elements, more than the interpreter's limit of " +
                               std::to_string(max_bytes) + " bytes");
}

// Hashes the index's value, not its registers one by one: an allocation may rename registers (SSA webs), which
// re-sorts the terms, or merge two that hold one value, and the operand is the same as long as the value is.
__int128 evalIndex(const Program& p, Storage& s, const Index& idx, SourceLoc loc, const char* what, OperandHasher& h) {
  __int128 sum = idx.constant;
  for (const IndexTerm& t : idx.terms) {
    if (t.reg >= p.registers.size()) throwUndeclaredRegister(loc, what);
    uint64_t r = t.apply(s.readReg(t.reg));
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

  if (part < 0 || part + ap.partitions > t.partitions) throwPartitionsOutOfRange(ap, t, part);
  bool empty = ap.count == 0 || ap.count2 == 0 || ap.partitions == 0;
  __int128 last = off + (empty ? 0 : __int128(ap.count2 - 1) * ap.step2 + ap.count - 1);
  if (off < 0 || (empty ? off > t.elements : last >= t.elements)) throwElementsOutOfRange(ap, t, off, last);

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
    throwViewTooLarge(ap, __int128(v.partitions) * v.perPartition(), max_bytes);
  return v;
}

namespace {

// Copies a run of n bytes between a view's row and a buffer (never overlapping). Runs are short (a tensor row of
// a few dozen bytes is typical), where a libc memcpy call costs more than the bytes: fixed-size copies inline.
inline void copyRun(uint8_t* d, const uint8_t* s, size_t n) {
  if (n >= 16 && n <= 32) {
    std::memcpy(d, s, 16);
    std::memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8 && n < 16) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n == 4) {
    std::memcpy(d, s, 4);
  } else {
    std::memcpy(d, s, n);
  }
}

// Partitions are fetched from the storage a batch at a time (Storage::rows) where they are not equally spaced.
constexpr uint32_t kRowBatch = 32;

// Calls f(row, j) for each run of the view in view order: partition, then j; `row` points at the view's first
// element in that partition.
template <typename F>
void forEachRun(Storage& s, const ResolvedView& v, F&& f) {
  const size_t first = v.offset * v.elem_size;
  uint64_t stride = 0;
  if (uint8_t* base = s.rowRange(v.tensor, v.partition, v.partitions, stride)) {
    for (uint32_t p = 0; p < v.partitions; ++p) f(base + p * stride + first);
    return;
  }
  uint8_t* rows[kRowBatch];
  for (uint32_t p0 = 0; p0 < v.partitions; p0 += kRowBatch) {
    const uint32_t n = std::min(kRowBatch, v.partitions - p0);
    s.rows(v.tensor, v.partition + p0, n, rows);
    for (uint32_t p = 0; p < n; ++p) f(rows[p] + first);
  }
}

}  // namespace

void gatherView(Storage& s, const ResolvedView& v, uint8_t* out) {
  const size_t run = size_t(v.count) * v.elem_size;
  if (run == 0) return;
  const size_t step = size_t(v.step2) * v.elem_size;
  forEachRun(s, v, [&](const uint8_t* row) {
    for (uint32_t j = 0; j < v.count2; ++j, out += run) copyRun(out, row + j * step, run);
  });
}

void scatterView(Storage& s, const ResolvedView& v, const uint8_t* in) {
  const size_t run = size_t(v.count) * v.elem_size;
  if (run == 0) return;
  const size_t step = size_t(v.step2) * v.elem_size;
  forEachRun(s, v, [&](uint8_t* row) {
    for (uint32_t j = 0; j < v.count2; ++j, in += run) copyRun(row + j * step, in, run);
  });
}

bool copyView(Storage& s, const ResolvedView& src, const ResolvedView& dst, OperandHasher& h) {
  const size_t run = size_t(src.count) * src.elem_size;
  if (run == 0 || src.partitions == 0 || src.count != dst.count || src.count2 != dst.count2 ||
      src.partitions != dst.partitions || src.elem_size != dst.elem_size)
    return false;
  uint64_t src_stride = 0, dst_stride = 0;
  const uint8_t* src_base = s.rowRange(src.tensor, src.partition, src.partitions, src_stride);
  if (!src_base) return false;
  uint8_t* dst_base = s.rowRange(dst.tensor, dst.partition, dst.partitions, dst_stride);
  if (!dst_base) return false;
  src_base += src.offset * src.elem_size;
  dst_base += dst.offset * dst.elem_size;
  const size_t src_step = size_t(src.step2) * src.elem_size, dst_step = size_t(dst.step2) * dst.elem_size;
  // The bytes each view spans, first to last partition: disjoint, or the copy would read what it wrote.
  const uintptr_t s0 = uintptr_t(src_base), s1 = s0 + (src.partitions - 1) * src_stride + (src.count2 - 1) * src_step + run;
  const uintptr_t d0 = uintptr_t(dst_base), d1 = d0 + (dst.partitions - 1) * dst_stride + (dst.count2 - 1) * dst_step + run;
  if (s0 < d1 && d0 < s1) return false;
  OperandHasher::Stream hash(h, src.bytes());
  for (uint32_t p = 0; p < src.partitions; ++p) {
    const uint8_t* from = src_base + p * src_stride;
    uint8_t* to = dst_base + p * dst_stride;
    for (uint32_t j = 0; j < src.count2; ++j) {
      hash.feed(from + j * src_step, run);
      copyRun(to + j * dst_step, from + j * src_step, run);
    }
  }
  hash.finish();
  return true;
}

}  // namespace allocsim
