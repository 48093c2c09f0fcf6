#include "verify/placement.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ir/diag.h"
#include "ir/print.h"
#include "verify/byte_liveness.h"
#include "verify/dynamic_liveness.h"
#include "verify/footprint.h"
#include "verify/live_intervals.h"
#include "verify/live_overlaps.h"
#include "verify/loop_nest.h"
#include "verify/placement_rules.h"
#include "verify/step_sites.h"

namespace allocsim {
namespace {

// Two items (tensors of one space, or registers) whose footprints intersect and whose live sets meet.
struct Conflict {
  bool registers = false;
  Space space = Space::Sbuf;
  uint32_t later = 0;    // the item whose live interval starts at the common step (the one that moved in)
  uint32_t earlier = 0;
  CommonStep when;       // .a is `later`'s interval, .b is `earlier`'s
  Footprint region;      // the physical intersection
  // Tensors: the first byte both hold live data in (verify/byte_liveness.h), `when` then being its elements'
  // intervals; nullopt when the byte-level bookkeeping was too large (the tensors' live sets then decide).
  std::optional<ByteConflict> byte;
};

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max() : a + b;
}

Footprint tensorFootprint(const Arch& arch, TensorId id, const Tensor& t) {
  const Placement& pl = *t.placement;
  Footprint f;
  f.item = id;
  switch (t.space) {
    case Space::Sbuf:
      f.lo = pl.offset;
      f.hi = saturatingAdd(pl.offset, t.bytesPerPartition());
      f.part_lo = pl.partition;
      f.part_hi = uint64_t(pl.partition) + t.partitions;
      break;
    case Space::Psum:  // a bank spans all partitions, and a tensor starts at the start of its bank
      f.lo = pl.bank;
      f.hi = uint64_t(pl.bank) + psumBankCount(arch, t);
      break;
    case Space::Dram:
      f.lo = pl.offset;
      f.hi = saturatingAdd(pl.offset, t.totalBytes());
      break;
  }
  return f;
}

// Orders the pair so that `later` is the one whose live interval begins at the common step (on a tie, the one
// declared later).
Conflict orient(uint32_t a, uint32_t b, const CommonStep& cs) {
  bool a_later = cs.a.lo == cs.step && (cs.b.lo != cs.step || a > b);
  Conflict c;
  c.later = a_later ? a : b;
  c.earlier = a_later ? b : a;
  c.when = a_later ? cs : CommonStep{cs.step, cs.b, cs.a};
  return c;
}

// The coalesced copies between two registers (DynamicLiveness::copies), by unordered pair: (step, destination),
// in step order.
using CopySteps = std::map<std::pair<RegId, RegId>, std::vector<std::pair<uint64_t, RegId>>>;

CopySteps copyStepsByPair(const DynamicLiveness& live) {
  CopySteps out;
  for (const RegisterCopy& c : live.copies)
    out[{std::min(c.dst, c.src), std::max(c.dst, c.src)}].push_back({c.step, c.dst});
  return out;
}

// The interval of `live` that contains step t (which it must).
const StepInterval& intervalAt(const LiveIntervals& live, uint64_t t) {
  const std::vector<StepInterval>& list = live.intervals();
  return *std::partition_point(list.begin(), list.end(), [&](const StepInterval& iv) { return iv.hi < t; });
}

// Registers on the same lanes whose live sets meet only at the steps of `mov`s from one to the other, where the
// source's value ends and the destination's begins: the copy writes the value its source already holds there,
// and nothing reads the source afterwards, so nothing is clobbered (copy coalescing, alloc/reg/). Any other
// common step (the source read after the copy, either written while the other is live) is an overlap.
bool onlyCoalescedCopies(const CopySteps& copies, RegId a, RegId b, const std::vector<LiveIntervals>& live) {
  auto it = copies.find({std::min(a, b), std::max(a, b)});
  if (it == copies.end()) return false;
  const auto& steps = it->second;
  for (const StepInterval& iv : commonSteps(live[a], live[b])) {
    if (iv.lo != iv.hi) return false;
    auto c = std::lower_bound(steps.begin(), steps.end(), std::make_pair(iv.lo, RegId(0)));
    if (c == steps.end() || c->first != iv.lo) return false;
    const RegId dst = c->second, src = dst == a ? b : a;
    if (intervalAt(live[src], iv.lo).hi != iv.lo || intervalAt(live[dst], iv.lo).lo != iv.lo) return false;
  }
  return true;
}

void addConflicts(const std::vector<Footprint>& fps, const std::vector<LiveIntervals>& live, bool registers,
                  Space space, std::vector<Conflict>& out, const CopySteps* copies = nullptr) {
  for (const LiveOverlap& o : liveOverlaps(fps, live)) {
    const uint32_t i = o.first, j = o.second;
    if (copies && onlyCoalescedCopies(*copies, fps[i].item, fps[j].item, live)) continue;
    Conflict c = orient(fps[i].item, fps[j].item, o.when);
    c.registers = registers;
    c.space = space;
    c.region = intersection(fps[i], fps[j]);
    out.push_back(c);
  }
}

std::vector<Conflict> findConflicts(const Program& p, const DynamicLiveness& live) {
  std::vector<Conflict> out;
  for (Space space : {Space::Sbuf, Space::Psum, Space::Dram}) {
    std::vector<Footprint> fps;
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (p.tensors[t].space == space && p.tensors[t].placement)
        fps.push_back(tensorFootprint(p.arch, t, p.tensors[t]));
    addConflicts(fps, live.tensors, false, space, out);
  }
  std::vector<Footprint> lanes;
  for (RegId r = 0; r < p.registers.size(); ++r)
    if (p.registers[r].phys) {
      Footprint f;
      f.item = r;
      f.lo = *p.registers[r].phys;
      f.hi = f.lo + p.registers[r].lanes();
      lanes.push_back(f);
    }
  const CopySteps copies = copyStepsByPair(live);
  addConflicts(lanes, live.registers, true, Space::Sbuf, out, &copies);
  return out;
}

// Keeps the tensor conflicts in which some byte of the intersection is live in both tensors at one step, at the
// first such step; a pair whose shared bytes are never live together (the bytes of a dead tile, elements read for
// the last time before the other tensor moved in) is no overlap. Register conflicts are kept as they are (a register
// is one value).
std::vector<Conflict> refineToBytes(const Program& p, std::vector<Conflict> conflicts, const LivenessOptions& lo) {
  std::vector<SuspectPair> pairs;
  for (const Conflict& c : conflicts)
    if (!c.registers) pairs.push_back({c.later, c.earlier, c.region});
  if (pairs.empty()) return conflicts;
  std::vector<std::optional<ByteConflict>> bytes;
  try {
    bytes = byteConflicts(p, pairs, lo);
  } catch (const InputError&) {
    return conflicts;  // too large to follow byte by byte: the tensors' live sets decide
  }
  std::vector<Conflict> out;
  size_t k = 0;
  for (Conflict& c : conflicts) {
    if (c.registers) {
      out.push_back(c);
      continue;
    }
    const std::optional<ByteConflict>& b = bytes[k++];
    if (!b) continue;
    Conflict r = orient(c.later, c.earlier, b->when);
    r.registers = false;
    r.space = c.space;
    r.region = c.region;
    ByteConflict bc = *b;
    if (r.later != c.later) {  // keep the elements in the order of r's items
      std::swap(bc.a_partition, bc.b_partition);
      std::swap(bc.a_element, bc.b_element);
    }
    r.byte = bc;
    out.push_back(r);
  }
  return out;
}

std::string range(const char* what, uint64_t lo, uint64_t hi) {  // [lo, hi), non-empty
  if (hi - lo == 1) return std::string(what) + " " + std::to_string(lo);
  return std::string(what) + "s " + std::to_string(lo) + ".." + std::to_string(hi - 1);
}

std::string regionText(const Conflict& c) {
  const Footprint& r = c.region;
  if (c.registers)
    return r.hi - r.lo == 1 ? "lane r" + std::to_string(r.lo)
                            : "lanes r" + std::to_string(r.lo) + "..r" + std::to_string(r.hi - 1);
  switch (c.space) {
    case Space::Sbuf: return range("partition", r.part_lo, r.part_hi) + ", " + range("byte", r.lo, r.hi);
    case Space::Psum: return range("bank", r.lo, r.hi) + " (all partitions)";
    case Space::Dram: return range("byte", r.lo, r.hi);
  }
  return "";
}

std::string registerText(const Register& r) {
  std::string s = "'" + r.name + "' @r" + std::to_string(*r.phys);
  if (r.lanes() == 2) s += " (64-bit: r" + std::to_string(*r.phys) + "..r" + std::to_string(*r.phys + 1) + ")";
  return s;
}

std::string intervalText(const StepInterval& iv) {
  return iv.lo == iv.hi ? "step " + std::to_string(iv.lo)
                        : "steps " + std::to_string(iv.lo) + ".." + std::to_string(iv.hi);
}

Finding describe(const Program& p, const Conflict& c, const StepSite& site) {
  Finding f;
  f.oracle = Oracle::Placement;
  f.step = c.when.step;
  std::string later, earlier, later_name, earlier_name;
  SourceLoc later_decl;
  if (c.registers) {
    f.kind = FindingKind::RegisterOverlap;
    later = registerText(p.registers[c.later]);
    earlier = registerText(p.registers[c.earlier]);
    later_name = p.registers[c.later].name;
    earlier_name = p.registers[c.earlier].name;
    later_decl = p.registers[c.later].loc;
    f.message = "registers " + later + " and " + earlier + " share " + regionText(c) + " while both are live";
  } else {
    f.kind = FindingKind::Overlap;
    const Tensor& a = p.tensors[c.later];
    const Tensor& b = p.tensors[c.earlier];
    later_name = a.name;
    earlier_name = b.name;
    later_decl = a.loc;
    f.message = std::string(spaceName(c.space)) + " tensors '" + a.name + "' " + placementText(a) + " and '" +
                b.name + "' " + placementText(b) + " overlap in " + regionText(c) + " while both are live";
  }
  f.region.items = {c.later, c.earlier};
  f.region.lo = c.region.lo;
  f.region.hi = c.region.hi;
  f.region.part_lo = c.region.part_lo;
  f.region.part_hi = c.region.part_hi;
  f.region.kind = c.registers              ? FindingRegion::Kind::Registers
                  : c.space == Space::Sbuf ? FindingRegion::Kind::Sbuf
                  : c.space == Space::Psum ? FindingRegion::Kind::Psum
                                           : FindingRegion::Kind::Dram;
  if (site.inst_id != kNone) {
    f.loc = site.loc;
    f.inst_id = site.inst_id;
    std::string at = "both live from step " + std::to_string(c.when.step) + ": " + site.text;
    if (!site.loop_values.empty()) at += " (" + site.loop_values + ")";
    f.notes.push_back(at);
  } else {
    f.loc = later_decl;  // step 0: both are inputs, live before the first instruction
    f.notes.push_back("both live from step 0 (inputs, before the first instruction)");
  }
  if (c.byte) {
    const ByteConflict& b = *c.byte;
    std::string where = c.space == Space::Dram ? "DRAM byte " + std::to_string(b.byte)
                        : c.space == Space::Sbuf
                            ? "SBUF partition " + std::to_string(b.partition) + " byte " + std::to_string(b.byte)
                            : "PSUM partition " + std::to_string(b.partition) + " byte " + std::to_string(b.byte) +
                                  " (bank " + std::to_string(b.byte / p.arch.psum_bank_bytes) + ")";
    f.notes.push_back("first shared live byte: " + where + ", element [" + std::to_string(b.a_partition) + ", " +
                      std::to_string(b.a_element) + "] of '" + later_name + "' (live over " +
                      intervalText(c.when.a) + ") and element [" + std::to_string(b.b_partition) + ", " +
                      std::to_string(b.b_element) + "] of '" + earlier_name + "' (live over " +
                      intervalText(c.when.b) + ")");
  } else {
    f.notes.push_back("'" + later_name + "' is live over " + intervalText(c.when.a) + ", '" + earlier_name +
                      "' over " + intervalText(c.when.b));
  }
  return f;
}

}  // namespace

std::vector<Finding> checkPlacement(const Program& allocated, const PlacementOptions& opts) {
  std::vector<Finding> out;
  checkPlacementRules(allocated, opts.original, out);

  Program scratch;
  const Program& p = withPreorderIds(allocated, scratch);
  LivenessOptions lo;
  lo.max_steps = opts.max_steps;
  lo.placed_only = true;
  lo.progress = opts.progress;
  lo.progress_phase = "placement oracle";
  DynamicLiveness live = computeDynamicLiveness(p, lo);
  std::vector<Conflict> conflicts = refineToBytes(p, findConflicts(p, live), lo);
  if (conflicts.empty()) return out;

  std::vector<uint64_t> steps;
  for (const Conflict& c : conflicts) steps.push_back(c.when.step);
  std::vector<StepSite> sites = locateSteps(p, steps, lo.input_seed, opts.max_steps);
  std::vector<Finding> dynamic;
  for (size_t i = 0; i < conflicts.size(); ++i) dynamic.push_back(describe(p, conflicts[i], sites[i]));
  std::stable_sort(dynamic.begin(), dynamic.end(), [](const Finding& a, const Finding& b) {
    if (a.step != b.step) return a.step < b.step;
    if (a.kind != b.kind) return std::string_view(findingKindName(a.kind)) < findingKindName(b.kind);
    return a.message < b.message;
  });
  out.insert(out.end(), dynamic.begin(), dynamic.end());
  return out;
}

}  // namespace allocsim
