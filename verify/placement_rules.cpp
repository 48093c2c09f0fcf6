#include "verify/placement_rules.h"

#include "ir/print.h"

namespace allocsim {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

Finding declFinding(FindingKind kind, SourceLoc loc, std::string message) {
  Finding f;
  f.oracle = Oracle::Placement;
  f.kind = kind;
  f.loc = loc;
  f.message = std::move(message);
  return f;
}

// a + b > limit without overflow.
bool exceeds(uint64_t a, uint64_t b, uint64_t limit) { return a > limit || b > limit - a; }

std::string shapeText(const Tensor& t) {
  return "[" + std::to_string(t.partitions) + ", " + std::to_string(t.elements) + "]";
}

void checkSbuf(const Arch& arch, const Tensor& t, std::vector<Finding>& out) {
  const Placement& pl = *t.placement;
  const std::string where = "placement " + placementText(t) + " of " + quoted(t.name);
  const uint64_t bpp = t.bytesPerPartition();
  if (exceeds(pl.partition, t.partitions, arch.sbuf_partitions) || exceeds(pl.offset, bpp, arch.sbuf_bytes))
    out.push_back(declFinding(FindingKind::Bounds, t.loc,
                              where + " " + shapeText(t) + " (" + std::to_string(bpp) +
                                  " bytes per partition) exceeds SBUF (" + std::to_string(arch.sbuf_partitions) +
                                  " partitions, " + std::to_string(arch.sbuf_bytes) + " bytes)"));
  if (arch.sbuf_align != 0 && pl.offset % arch.sbuf_align != 0)
    out.push_back(declFinding(FindingKind::Alignment, t.loc,
                              where + ": byte offset " + std::to_string(pl.offset) + " is not a multiple of sbuf-align " +
                                  std::to_string(arch.sbuf_align)));
  if (arch.sbuf_partition_quantum != 0 && pl.partition % arch.sbuf_partition_quantum != 0)
    out.push_back(declFinding(FindingKind::PartitionStart, t.loc,
                              where + ": base partition " + std::to_string(pl.partition) +
                                  " is not a multiple of sbuf-partition-quantum " +
                                  std::to_string(arch.sbuf_partition_quantum)));
}

void checkPsum(const Arch& arch, const Tensor& t, std::vector<Finding>& out) {
  const Placement& pl = *t.placement;
  const uint64_t banks = psumBankCount(arch, t);
  if (exceeds(pl.bank, banks, arch.psum_banks))
    out.push_back(declFinding(FindingKind::Bank, t.loc,
                              "placement " + placementText(t) + " of " + quoted(t.name) + " (" +
                                  std::to_string(banks) + (banks == 1 ? " bank" : " banks") + ") exceeds PSUM (" +
                                  std::to_string(arch.psum_banks) + " banks)"));
  if (t.partitions > arch.psumPartitions())
    out.push_back(declFinding(FindingKind::Bounds, t.loc,
                              "psum tensor " + quoted(t.name) + " has " + std::to_string(t.partitions) +
                                  " partitions; PSUM has " + std::to_string(arch.psumPartitions())));
}

void checkDram(const Arch& arch, const Tensor& t, std::vector<Finding>& out) {
  if (exceeds(t.placement->offset, t.totalBytes(), arch.dram_limit))
    out.push_back(declFinding(FindingKind::Bounds, t.loc,
                              "placement " + placementText(t) + " of " + quoted(t.name) + " (" +
                                  std::to_string(t.totalBytes()) + " bytes) exceeds dram-limit " +
                                  std::to_string(arch.dram_limit)));
}

void checkTensor(const Arch& arch, const Tensor& t, std::vector<Finding>& out) {
  if (!t.placement) {
    if (t.space != Space::Dram)
      out.push_back(declFinding(FindingKind::Unplaced, t.loc, std::string(spaceName(t.space)) + " tensor " + quoted(t.name) +
                                                       " has no placement"));
    else if (t.pinned)
      out.push_back(declFinding(FindingKind::Unplaced, t.loc, "pinned tensor " + quoted(t.name) + " has no placement"));
    return;
  }
  switch (t.space) {
    case Space::Sbuf: checkSbuf(arch, t, out); break;
    case Space::Psum: checkPsum(arch, t, out); break;
    case Space::Dram: checkDram(arch, t, out); break;
  }
}

void checkRegister(const Arch& arch, const Register& r, std::vector<Finding>& out) {
  if (!r.phys) {
    out.push_back(declFinding(FindingKind::Unplaced, r.loc, "register " + quoted(r.name) + " has no placement"));
    return;
  }
  if (exceeds(*r.phys, r.lanes(), arch.sp_registers))
    out.push_back(declFinding(FindingKind::RegisterLanes, r.loc,
                              "placement @r" + std::to_string(*r.phys) + " of register " + quoted(r.name) + " (" +
                                  std::to_string(r.lanes()) + (r.lanes() == 1 ? " lane" : " lanes") +
                                  ") exceeds the " + std::to_string(arch.sp_registers) + " SP registers"));
}

bool samePlace(const Tensor& a, const Tensor& b) {
  if (a.space != b.space || a.placement.has_value() != b.placement.has_value()) return false;
  if (!a.placement) return true;
  switch (a.space) {
    case Space::Sbuf: return a.placement->partition == b.placement->partition && a.placement->offset == b.placement->offset;
    case Space::Psum: return a.placement->bank == b.placement->bank;
    case Space::Dram: return a.placement->offset == b.placement->offset;
  }
  return false;
}

// Pinned tensors of the original: each must exist in the allocated program with the same space and placement.
void checkPinned(const Program& allocated, const Program& original, std::vector<Finding>& out) {
  for (const Tensor& o : original.tensors) {
    if (!o.pinned) continue;
    TensorId id = allocated.findTensor(o.name);
    if (id == kNone) {
      out.push_back(declFinding(FindingKind::PinnedMoved, SourceLoc{},
                                "pinned tensor " + quoted(o.name) + " of the original program is missing"));
      continue;
    }
    const Tensor& a = allocated.tensors[id];
    if (!a.placement) {  // an SBUF/PSUM or pinned tensor without placement is already reported as unplaced
      if (a.space == Space::Dram && !a.pinned)
        out.push_back(declFinding(FindingKind::PinnedMoved, a.loc,
                                  "tensor " + quoted(o.name) + " lost its pinned placement " + placementText(o)));
      continue;
    }
    if (samePlace(a, o)) continue;
    out.push_back(declFinding(FindingKind::PinnedMoved, a.loc,
                              "pinned tensor " + quoted(o.name) + " moved from " + spaceName(o.space) + " " +
                                  placementText(o) + " to " + spaceName(a.space) + " " + placementText(a)));
  }
}

}  // namespace


void checkPlacementRules(const Program& allocated, const Program* original, std::vector<Finding>& out) {
  for (const Tensor& t : allocated.tensors) checkTensor(allocated.arch, t, out);
  for (const Register& r : allocated.registers) checkRegister(allocated.arch, r, out);
  if (original) checkPinned(allocated, *original, out);
}

}  // namespace allocsim
