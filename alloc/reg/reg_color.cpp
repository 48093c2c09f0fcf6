#include "alloc/reg/reg_color.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "ir/plant.h"

namespace allocsim {
namespace {

// Sum over the live (not yet removed) neighbours of n of (w_i + w - 1): the start lanes they can rule out.
uint64_t blocked(const RegColorInput& in, RegId n, const std::vector<bool>& removed) {
  uint64_t sum = 0;
  for (RegId m : in.graph->adj[n])
    if (!removed[m]) sum += in.lanes[m] + in.lanes[n] - 1;
  return sum;
}

std::optional<uint32_t> lowestFreeRun(const RegColorInput& in, RegId n,
                                      const std::vector<std::optional<uint32_t>>& color) {
  thread_local std::vector<bool> taken;  // the thread's: asked for every node of every round
  taken.assign(in.registers, false);
  for (RegId m : in.graph->adj[n])
    if (color[m])
      for (uint32_t l = *color[m]; l < *color[m] + (ALLOCSIM_PLANT("reg_wide_neighbour_one_lane") ? 1 : in.lanes[m]) &&
                                   l < in.registers;
           ++l)
        taken[l] = true;
  for (uint32_t l = 0; l + in.lanes[n] <= in.registers; ++l) {
    bool free = true;
    for (uint32_t k = 0; k < in.lanes[n] && free; ++k) free = !taken[l + k];
    if (free) return l;
  }
  return std::nullopt;
}

}  // namespace

RegColoring colorRegisters(const RegColorInput& in) {
  const size_t n = in.lanes.size();
  RegColoring out;
  out.color.assign(n, std::nullopt);
  std::vector<bool> removed(n, false);
  size_t left = 0;
  for (RegId r = 0; r < n; ++r) {
    if (in.precolored[r]) {
      out.color[r] = in.precolored[r];
      removed[r] = false;  // an obstacle for ever
    } else {
      ++left;
    }
  }
  // Simplify: the stack of removed nodes.
  std::vector<RegId> stack;
  stack.reserve(left);
  std::vector<bool> in_stack(n, false);
  auto isCandidate = [&](RegId r) { return !in_stack[r] && !in.precolored[r]; };
  std::vector<uint64_t> blk(n);  // blocked(), kept up to date as nodes are removed
  for (RegId r = 0; r < n; ++r) blk[r] = blocked(in, r, removed);
  // The candidates that fit whatever their neighbours get, lowest first: blk only falls, so a node that fits stays
  // fitting until it is picked, and the lowest of this set is the node a scan from 0 would pick (n log n, where the
  // scan made the simplify quadratic in the number of values).
  auto fits = [&](RegId r) { return blk[r] + in.lanes[r] <= in.registers; };
  std::priority_queue<RegId, std::vector<RegId>, std::greater<RegId>> fitting;
  for (RegId r = 0; r < n; ++r)
    if (isCandidate(r) && fits(r)) fitting.push(r);
  while (left > 0) {
    std::optional<RegId> pick;
    while (!fitting.empty() && !pick) {
      const RegId r = fitting.top();
      fitting.pop();
      if (isCandidate(r)) pick = r;  // else picked optimistically meanwhile
    }
    if (!pick) {
      // Optimistic push: the spillable node of least cost per unit of degree; unspillable ones last.
      double best = std::numeric_limits<double>::infinity();
      bool best_spillable = false;
      for (RegId r = 0; r < n; ++r) {
        if (!isCandidate(r)) continue;
        const bool spillable = in.costs->spillable[r];
        // Unspillable nodes compete on start (latest first); spillable ones on cost per degree.
        const double ratio = spillable ? in.costs->cost[r] / double(1 + blk[r]) : -double(in.start[r]);
        if (!pick || (spillable && !best_spillable) || (spillable == best_spillable && ratio < best)) {
          pick = r;
          best = ratio;
          best_spillable = spillable;
        }
      }
      ++out.optimistic;
    }
    stack.push_back(*pick);
    in_stack[*pick] = true;
    removed[*pick] = true;
    for (RegId m : in.graph->adj[*pick]) {
      const bool fitted = fits(m);
      blk[m] -= in.lanes[*pick] + in.lanes[m] - 1;
      if (!fitted && fits(m) && isCandidate(m)) fitting.push(m);
    }
    --left;
  }
  // Select.
  while (!stack.empty()) {
    const RegId r = stack.back();
    stack.pop_back();
    out.color[r] = lowestFreeRun(in, r, out.color);
    if (!out.color[r]) out.uncolored.push_back(r);
  }
  std::vector<bool> used(in.registers, false);
  for (RegId r = 0; r < n; ++r)
    if (out.color[r])
      for (uint32_t l = *out.color[r]; l < *out.color[r] + in.lanes[r] && l < in.registers; ++l) used[l] = true;
  out.lanes_used = uint32_t(std::count(used.begin(), used.end(), true));
  for (RegId r : out.uncolored) out.score += in.costs->spillable[r] ? in.costs->cost[r] : kUnspillablePenalty;
  if (in.registers > 0) out.score += double(out.lanes_used) / in.registers;
  return out;
}

}  // namespace allocsim
