#include "alloc/dma_opt/dma_footprint.h"

#include <algorithm>

#include "ir/operand_table.h"

namespace allocsim {

bool overlaps(const Area& a, const Area& b) {
  if (a.region != b.region || (a.region == Area::Region::Own && a.own != b.own)) return false;
  return a.row_lo < b.row_hi && b.row_lo < a.row_hi && a.lo < b.hi && b.lo < a.hi;
}

bool contains(const Area& outer, const Area& inner) {
  if (outer.region != inner.region || (outer.region == Area::Region::Own && outer.own != inner.own)) return false;
  return outer.row_lo <= inner.row_lo && inner.row_hi <= outer.row_hi && outer.lo <= inner.lo && inner.hi <= outer.hi;
}

bool isPlainRun(const AccessPattern& ap) {
  return !ap.hasRegister() && ap.partition.constant >= 0 && ap.offset.constant >= 0 && isContiguous(ap);
}

Area areaOf(const Program& p, const AccessPattern& ap) {
  const Tensor& t = p.tensors.at(ap.tensor);
  const uint64_t size = dtypeSize(t.dtype);
  // Rows and element range within the tensor.
  uint64_t row_lo = 0, row_hi = t.partitions, e_lo = 0, e_hi = t.elements;
  if (ap.partition.isConstant() && ap.partition.constant >= 0) {
    row_lo = uint64_t(ap.partition.constant);
    row_hi = row_lo + ap.partitions;
  }
  if (ap.offset.isConstant() && ap.offset.constant >= 0 && ap.count > 0) {
    e_lo = uint64_t(ap.offset.constant);
    e_hi = e_lo + uint64_t(ap.count2 - 1) * ap.step2 + ap.count;
  }
  Area a;
  a.row_lo = row_lo;
  a.row_hi = row_hi;
  a.lo = e_lo * size;
  a.hi = e_hi * size;
  if (!t.placement) {
    a.region = Area::Region::Own;
    a.own = ap.tensor;
    return a;
  }
  switch (t.space) {
    case Space::Sbuf:
      a.region = Area::Region::Sbuf;
      a.row_lo += t.placement->partition;
      a.row_hi += t.placement->partition;
      a.lo += t.placement->offset;
      a.hi += t.placement->offset;
      break;
    case Space::Psum:
      a.region = Area::Region::Psum;
      a.lo += uint64_t(t.placement->bank) * p.arch.psum_bank_bytes;
      a.hi += uint64_t(t.placement->bank) * p.arch.psum_bank_bytes;
      break;
    case Space::Dram:
      a.region = Area::Region::Dram;
      a.row_lo = 0;
      a.row_hi = 1;
      a.lo = t.placement->offset;
      a.hi = t.placement->offset + t.totalBytes();
      break;
  }
  return a;
}

namespace {

// Calls visit(view, is_write) for each view `inst` may read or write (a loop: everything in its body), reads of one
// instruction before its writes, until visit returns true; returns whether it did. One walk serves both the lists
// (areasOf) and the yes/no questions, which stop at the first overlap and allocate nothing: untouchedBetween asked
// areasOf of every instruction between two DMAs, a quarter of reg_colorer's heap allocations.
template <typename Visit>
bool visitViews(const Program& p, const Instruction& inst, Visit&& visit) {
  if (hasBody(inst.op)) {  // an if's condition reads registers only
    for (const Instruction& b : inst.body)
      if (visitViews(p, b, visit)) return true;
    return false;
  }
  const OperandUses uses = operandUses(inst);
  auto each = [&](bool is_write, auto&& pick) {
    for (const OperandUse* u : uses) {
      const AccessPattern* ap = pick(*u) ? operandView(inst, u->operand) : nullptr;
      if (ap && ap->tensor < p.tensors.size() && visit(*ap, is_write)) return true;
    }
    return false;
  };
  return each(false, [](const OperandUse& u) { return u.role == Role::Read; }) ||
         each(false, [](const OperandUse& u) { return u.role == Role::Accumulate; }) ||  // it may accumulate
         each(true, [](const OperandUse& u) { return u.role != Role::Read; });
}

}  // namespace

InstAreas areasOf(const Program& p, const Instruction& inst) {
  InstAreas out;
  visitViews(p, inst, [&](const AccessPattern& ap, bool is_write) {
    (is_write ? out.writes : out.reads).push_back(areaOf(p, ap));
    return false;
  });
  return out;
}

bool writesAny(const Program& p, const Instruction& inst, const Area& x) {
  return visitViews(p, inst,
                    [&](const AccessPattern& ap, bool is_write) { return is_write && overlaps(areaOf(p, ap), x); });
}

bool readsAny(const Program& p, const Instruction& inst, const Area& x) {
  return visitViews(p, inst,
                    [&](const AccessPattern& ap, bool is_write) { return !is_write && overlaps(areaOf(p, ap), x); });
}

bool readsAny(const InstAreas& a, const Area& x) {
  return std::any_of(a.reads.begin(), a.reads.end(), [&](const Area& r) { return overlaps(r, x); });
}

bool untouchedBetween(const Program& p, const std::vector<Instruction>& body, size_t i, size_t j, const Area& x) {
  for (size_t k = i + 1; k < j; ++k)
    if (writesAny(p, body[k], x)) return false;
  return true;
}

}  // namespace allocsim
