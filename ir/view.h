// Access patterns at run time: an AccessPattern with its register terms evaluated and checked against its
// tensor, and the copies between such a view and a contiguous buffer (in view order: partition, then j, then i).
#pragma once

#include <cstdint>

#include "ir/hash.h"
#include "ir/program.h"
#include "ir/storage.h"

namespace allocsim {

struct ResolvedView {
  TensorId tensor = kNone;
  DType dtype = DType::U32;
  uint32_t elem_size = 4;
  uint32_t partition = 0;  // first partition
  uint32_t partitions = 0;
  uint64_t offset = 0;  // first element in each partition
  uint32_t count = 0;
  uint32_t step2 = 0;
  uint32_t count2 = 1;

  uint64_t perPartition() const { return uint64_t(count) * count2; }
  uint64_t elements() const { return partitions * perPartition(); }
  uint64_t bytes() const { return elements() * elem_size; }
};

// Reads the registers of ap's address terms (feeding their values to `h`, in order: partition, then offset) and
// checks that every element the view names lies inside its tensor, and that the view is at most `max_bytes` long
// (a second dimension may overlap itself, so a view can be larger than its tensor). Throws InputError at ap.loc.
ResolvedView resolveView(const Program& p, Storage& s, const AccessPattern& ap, uint64_t max_bytes,
                         OperandHasher& h);

// The value of an index outside a view (affine_select's offset c): its registers read from `s`, the sum exact within
// +-2^100 and clamped beyond, as a view's indexes are; the value (not each register) is fed to `h` when the index
// has registers. Throws InputError at `loc` for an undeclared register.
__int128 evaluateIndex(const Program& p, Storage& s, const Index& idx, SourceLoc loc, OperandHasher& h);

void gatherView(Storage& s, const ResolvedView& v, uint8_t* out);       // v.bytes() bytes
void scatterView(Storage& s, const ResolvedView& v, const uint8_t* in);  // later elements win where v overlaps itself
// dst = src for two views of the same shape and dtype, without a buffer between them: the source's bytes are hashed
// into `h` as h.bytes() would hash gatherView's result. Only where the two lie in equally spaced rows with the same
// runs (count, count2) and their bytes are disjoint; returns false, having done nothing, otherwise (the caller
// gathers and scatters).
bool copyView(Storage& s, const ResolvedView& src, const ResolvedView& dst, OperandHasher& h);

}  // namespace allocsim
