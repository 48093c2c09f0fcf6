#include "alloc/lsa/lsa_spill.h"

#include <algorithm>
#include <stdexcept>

#include "alloc/psum/psum_def_regions.h"
#include "alloc/psum/psum_spill.h"
#include "alloc/sbuf/sbuf_spill.h"

namespace allocsim {
namespace {

bool hasSlot(const Program& p, TensorId t) {
  for (const Tensor& x : p.tensors)
    if (x.origin == Origin::Spill && x.copy_of == t && x.space != p.tensors[t].space) return true;
  return false;
}

uint64_t storedBytes(const Program& p, size_t first_new_tensor) {
  uint64_t bytes = 0;
  std::vector<bool> fresh(p.tensors.size(), false);
  for (size_t i = first_new_tensor; i < p.tensors.size(); ++i) fresh[i] = p.tensors[i].origin == Origin::Spill;
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (i.op != Op::Dma || i.origin != Origin::Spill || i.dst.tensor >= fresh.size() || !fresh[i.dst.tensor]) return;
    bytes += uint64_t(i.dst.partitions) * i.dst.elementsPerPartition() * dtypeSize(p.tensors[i.dst.tensor].dtype);
  });
  return bytes;
}

}  // namespace

std::string lsaSpillObstacle(const Program& p, TensorId t, const LsaSpillState& s) {
  const Tensor& x = p.tensors[t];
  if (x.pinned || x.placement) return "pinned";
  if ((t < s.local.size() && s.local[t]) || x.origin == Origin::Reload || hasSlot(p, t)) return "already spilled";
  if (x.space == Space::Psum) {
    if (x.origin != Origin::Source) return "a PSUM copy";
    const PsumSpillPlan plan = planPsumSpill(p, t);
    if (!plan.spillable) return plan.why_not;
  }
  return "";
}

void lsaSpill(Program& p, TensorId t, LsaSpillState& s) {
  const size_t before = p.tensors.size();
  if (p.tensors[t].space == Space::Psum) {
    p.renumber();  // planPsumSpill reads Instruction::id
    const PsumSpillStats st = insertPsumSpillCode(p, {t}, s.next_id);
    s.stores += st.saves;
    s.reloads += st.reloads;
  } else if (p.tensors[t].space == Space::Sbuf) {
    const SbufSpillStats st = insertSbufSpillCode(p, {t}, {}, s.next_id, s.local);
    s.stores += st.stores;
    s.reloads += st.reloads;
  } else {
    throw std::logic_error("linear scan: spill of a DRAM tensor");
  }
  s.local.resize(p.tensors.size(), false);
  s.stored_bytes += storedBytes(p, before);
  p.renumber();
}

}  // namespace allocsim
