#include "alloc/psum/psum_costs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "alloc/psum/psum_accesses.h"
#include "alloc/psum/psum_spill_latency.h"

namespace allocsim {

bool isInfiniteCost(double cost) { return std::fabs(cost) > std::numeric_limits<double>::max(); }

std::vector<PsumSpillPoints> psumSpillPoints(const Program& p) {
  std::vector<PsumSpillPoints> points(p.tensors.size());
  forEachInstruction(p.body, [&](const Instruction& inst) {
    if (inst.op == Op::Loop) return;
    // One store / load per instruction, however many of its operands name the tensor.
    std::vector<TensorId> read, written;
    for (const PsumAccess& a : psumAccesses(p, inst)) {
      TensorId t = operandOf(inst, a.operand).tensor;
      if (a.read && std::find(read.begin(), read.end(), t) == read.end()) read.push_back(t);
      if (a.write && std::find(written.begin(), written.end(), t) == written.end()) written.push_back(t);
      if (inst.op == Op::Matmul && a.write && inst.start != When::Never && inst.stop == When::Never)
        points[t].inner_accumulation = true;
    }
    for (TensorId t : read) ++points[t].loads;
    for (TensorId t : written) ++points[t].stores;
  });
  return points;
}

void findPsumCosts(const Program& p, PsumGraph& g) {
  const std::vector<PsumSpillPoints> points = psumSpillPoints(p);
  const double move = double(psumBankMoveCycles(p.arch));
  const double inf = std::numeric_limits<double>::infinity();
  for (PsumNode& node : g.nodes) {
    const Tensor& t = p.tensors[node.tensor];
    const PsumSpillPoints& sp = points[node.tensor];
    if (node.pinned || t.origin != Origin::Source || sp.inner_accumulation) node.cost = inf;
    else node.cost = double(node.banks) * double(sp.stores + sp.loads) * move;
  }
}

}  // namespace allocsim
