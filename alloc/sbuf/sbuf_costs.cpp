#include "alloc/sbuf/sbuf_costs.h"

#include <algorithm>
#include <limits>

#include "alloc/cost_table.h"
#include "alloc/sbuf/sbuf_accesses.h"
#include "alloc/spill_dma.h"
#include "alloc/sbuf/sbuf_live_ranges.h"

namespace allocsim {

namespace {

struct Tally {
  double spill_cycles = 0;   // stand-in spilling: reloads and stores
  double rehome_cycles = 0;  // rehoming: what its DMAs pay extra
  bool rehomable = true;     // only DMAs touch it, none with DRAM (or itself) on the other side
  uint32_t mention_positions = 0;
};

}  // namespace

void findSbufCosts(const Program& p, const Liveness& live, const std::vector<bool>& local, SbufGraph& g) {
  std::vector<Tally> tally(p.tensors.size());
  const LinearOrder& order = live.order;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.executes || at.kind != LinearPosition::Kind::Instruction) continue;
    const Instruction& inst = *at.inst;
    const double runs = executionsOf(order, pos);
    const TensorAccessList accesses = sbufAccesses(p, inst);
    InlineList<TensorId, 5> touched;  // at most one per access
    InlineList<const AccessPattern*, 5> reloaded;
    for (const SbufAccess& a : accesses) {
      const AccessPattern& ap = operandOf(inst, a.operand);
      Tally& t = tally[ap.tensor];
      if (std::find(touched.begin(), touched.end(), ap.tensor) == touched.end()) {
        touched.push_back(ap.tensor);
        ++t.mention_positions;
      }
      if (a.read && std::none_of(reloaded.begin(), reloaded.end(), [&](const AccessPattern* r) { return *r == ap; })) {
        reloaded.push_back(&ap);
        t.spill_cycles += runs * double(dmaCycles(Space::Dram, Space::Sbuf, viewBytes(p, reloadView(ap))));
      }
      if (a.write) t.spill_cycles += runs * double(dmaCycles(Space::Sbuf, Space::Dram, viewBytes(p, ap)));
      if (inst.op != Op::Dma) {
        t.rehomable = false;
        continue;
      }
      const AccessPattern& other = a.operand == Operand::Dst ? inst.a : inst.dst;
      if (other.tensor >= p.tensors.size() || other.tensor == ap.tensor ||
          p.tensors[other.tensor].space == Space::Dram) {
        t.rehomable = false;
        continue;
      }
      const Space os = p.tensors[other.tensor].space;
      const uint64_t bytes = viewBytes(p, ap);
      const bool src = a.read;
      const double to_dram = double(src ? dmaCycles(Space::Dram, os, bytes) : dmaCycles(os, Space::Dram, bytes));
      const double to_sbuf = double(src ? dmaCycles(Space::Sbuf, os, bytes) : dmaCycles(os, Space::Sbuf, bytes));
      t.rehome_cycles += runs * std::max(0.0, to_dram - to_sbuf);
    }
  }

  const double inf = std::numeric_limits<double>::infinity();
  for (SbufNode& node : g.nodes) {
    const Tensor& x = p.tensors[node.tensor];
    const Tally& t = tally[node.tensor];
    node.rehome = false;
    const bool stand_in = node.tensor < local.size() && local[node.tensor];
    if (node.fixed || stand_in) {
      node.cost = inf;
    } else if (x.origin == Origin::Spill && t.rehomable) {
      node.rehome = true;
      node.cost = t.rehome_cycles;
    } else {
      const bool tiny = !node.range.empty() && t.mention_positions == node.range.last - node.range.first + 1;
      node.cost = tiny ? inf : t.spill_cycles;
    }
  }
}

}  // namespace allocsim
