#include "alloc/psum/psum_costs.h"

#include <limits>
#include <vector>

#include "alloc/psum/psum_def_regions.h"
#include "alloc/psum/psum_spill_latency.h"

namespace allocsim {

void findPsumCosts(const Program& p, PsumGraph& g) {
  std::vector<bool> has_slot(p.tensors.size(), false);
  for (const Tensor& t : p.tensors)
    if (t.origin == Origin::Spill && t.copy_of < p.tensors.size()) has_slot[t.copy_of] = true;
  const double move = double(psumBankMoveCycles(p.arch));
  const double inf = std::numeric_limits<double>::infinity();
  for (PsumNode& node : g.nodes) {
    const Tensor& t = p.tensors[node.tensor];
    if (node.pinned || t.origin != Origin::Source || has_slot[node.tensor]) {
      node.cost = inf;
      continue;
    }
    const PsumSpillPlan plan = planPsumSpill(p, node.tensor);
    node.cost = plan.spillable ? double(node.banks) * double(plan.saves() + plan.reloads) * move : inf;
  }
}

}  // namespace allocsim
