#include "alloc/reg/reg_allocator.h"

#include <algorithm>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/cost_table.h"
#include "alloc/first_fit_placer.h"
#include "alloc/liveness.h"
#include "alloc/reg/reg_coalesce.h"
#include "alloc/reg/reg_color.h"
#include "alloc/reg/reg_costs.h"
#include "alloc/reg/reg_interference.h"
#include "alloc/reg/reg_live_pieces.h"
#include "alloc/reg/reg_spill.h"
#include "alloc/reg/reg_ssa.h"

namespace allocsim {
namespace {

// Cycles of the executed spill code: a reg_store / reg_load moves 4 bytes a lane between the SP engine and the
// DRAM slot, priced as a DMA of those bytes (the register file counts as on-chip memory).
uint64_t spillCycles(const Program& p, const std::vector<Instruction>& body, uint64_t times) {
  uint64_t cycles = 0;
  for (const Instruction& inst : body) {
    if (inst.op == Op::Loop) {
      cycles += spillCycles(p, inst.body, times * loopTrips(inst));
      continue;
    }
    if (inst.origin == Origin::Spill && inst.op == Op::RegStore && inst.rs < p.registers.size())
      cycles += times * dmaCycles(Space::Sbuf, Space::Dram, 4ull * p.registers[inst.rs].lanes());
    if (inst.origin == Origin::Reload && inst.op == Op::RegLoad && inst.rd < p.registers.size())
      cycles += times * dmaCycles(Space::Dram, Space::Sbuf, 4ull * p.registers[inst.rd].lanes());
  }
  return cycles;
}

// The registers to spill after a select that left `uncolored`, or the FATAL.
std::vector<RegId> chooseSpills(const Program& p, const RegGraph& g, const RegCosts& costs,
                                const RegColoring& c) {
  std::vector<bool> chosen(p.registers.size(), false);
  for (RegId r : c.uncolored)
    if (costs.spillable[r]) chosen[r] = true;
  for (RegId r : c.uncolored) {
    if (costs.spillable[r]) continue;
    std::optional<RegId> cheapest;
    bool helped = false;
    for (RegId m : g.adj[r]) {
      if (!costs.spillable[m]) continue;
      helped = helped || chosen[m];
      if (!cheapest || costs.cost[m] < costs.cost[*cheapest]) cheapest = m;
    }
    if (!cheapest)
      throw AllocError(p.registers[r].loc,
                       "cannot allocate registers since spilling candidates are not enough: " +
                           describeRegister(p, r) +
                           " cannot spill and no register live with it can spill either (loop "
                           "registers spilled already, kept placements, spill stand-ins); the machine has " +
                           std::to_string(p.arch.sp_registers) + " SP registers");
    if (!helped) chosen[*cheapest] = true;
  }
  std::vector<RegId> out;
  for (RegId r = 0; r < chosen.size(); ++r)
    if (chosen[r]) out.push_back(r);
  return out;
}

// Colors the groups of coalesced copies (alloc/reg/reg_coalesce.h) as one node each, then pushes each node's
// color to its registers (the production allocator's propagate_coalesced_ssa_allocation). The coloring is returned by
// register.
RegColoring colorCoalesced(const Program& p, const Liveness& live, const RegGroups& groups, const RegCosts& costs,
                           const std::vector<bool>& kept, uint32_t R) {
  const size_t n = p.registers.size();
  // Every register its own node (no copy was coalesced, the usual case): the nodes' costs are the registers' and
  // the coloring is by register already.
  bool identity = groups.nodes == n;
  for (RegId r = 0; r < n && identity; ++r) identity = groups.node[r] == r;
  RegCosts node_costs;
  if (!identity) {
    node_costs.cost.assign(groups.nodes, 0);
    node_costs.spillable.assign(groups.nodes, true);
    node_costs.loop_register.assign(groups.nodes, false);
  }
  RegColorInput in;
  in.graph = &groups.graph;
  in.costs = identity ? &costs : &node_costs;
  in.registers = R;
  in.lanes.assign(groups.nodes, 1);
  in.start.assign(groups.nodes, UINT32_MAX);
  in.precolored.assign(groups.nodes, std::nullopt);
  for (RegId r = 0; r < n; ++r) {
    const uint32_t v = groups.node[r];
    if (!identity) {
      node_costs.cost[v] += costs.cost[r];
      node_costs.spillable[v] = node_costs.spillable[v] && costs.spillable[r];
      node_costs.loop_register[v] = node_costs.loop_register[v] || costs.loop_register[r];
    }
    in.lanes[v] = p.registers[r].lanes();
    in.start[v] = std::min(in.start[v], live.registers[r].empty() ? 0 : live.registers[r].first);
    if (kept[r]) in.precolored[v] = p.registers[r].phys;  // a kept register is never coalesced: its own node
  }
  if (identity) return colorRegisters(in);
  const RegColoring nc = colorRegisters(in);
  RegColoring c;
  c.color.assign(n, std::nullopt);
  for (RegId r = 0; r < n; ++r) c.color[r] = nc.color[groups.node[r]];
  if (!nc.uncolored.empty()) {  // each uncoloured node's registers, in register order (most rounds colour all)
    std::vector<std::vector<RegId>> members(groups.nodes);
    for (RegId r = 0; r < n; ++r) members[groups.node[r]].push_back(r);
    for (uint32_t v : nc.uncolored) c.uncolored.insert(c.uncolored.end(), members[v].begin(), members[v].end());
  }
  c.score = nc.score;
  c.lanes_used = nc.lanes_used;
  c.optimistic = nc.optimistic;
  return c;
}

}  // namespace

AllocReport allocateRegisters(Program& p, const RegOptions& o) {
  AllocReport rep;
  const uint32_t R = p.arch.sp_registers;
  std::vector<bool> kept(p.registers.size(), false);
  for (RegId r = 0; r < p.registers.size(); ++r) kept[r] = r < o.keep.size() && o.keep[r] && p.registers[r].phys;
  for (RegId r = 0; r < p.registers.size(); ++r)
    if (!kept[r]) p.registers[r].phys.reset();

  uint32_t next_id = 0;
  const uint32_t values = splitRegisterValues(p, kept, next_id);
  rep.set("reg.ssa_split", int64_t(values));
  uint64_t spilled_total = 0, stores = 0, reloads = 0, loops_spilled = 0;
  std::vector<bool> loop_spilled;
  RegColoring final_coloring;
  for (uint32_t round = 1;; ++round) {
    kept.resize(p.registers.size(), false);
    loop_spilled.resize(p.registers.size(), false);
    const Liveness live = computeLiveness(p);
    const RegGraph g = buildRegisterInterference(registerLivePieces(p, live));
    const RegCosts costs = findRegisterCosts(p, kept, loop_spilled);
    const RegGroups groups = coalesceCopies(p, live, g, kept, R);
    RegColoring c = colorCoalesced(p, live, groups, costs, kept, R);
    if (reportsOn()) {
      rep.line("REG GCA interation nums = " + std::to_string(round));
      rep.line("REG score = " + formatReportNumber(c.score, 3) + " (lower is better)");
    }
    if (c.uncolored.empty()) {
      for (RegId r = 0; r < p.registers.size(); ++r) p.registers[r].phys = c.color[r];
      rep.set("reg.rounds", int64_t(round));
      rep.set("reg.score", c.score);
      rep.set("reg.edges", int64_t(g.edges));
      rep.set("reg.coalesced_copies", int64_t(groups.coalesced));
      final_coloring = std::move(c);
      break;
    }
    const std::vector<RegId> spill = chooseSpills(p, g, costs, c);
    if (o.verbosity >= 1) {
      std::string names;
      for (RegId r : spill) names += (names.empty() ? "" : ", ") + p.registers[r].name;
      rep.line("REG round " + std::to_string(round) + ": " + std::to_string(c.uncolored.size()) +
               " uncolored, spilling " + names);
    }
    spilled_total += spill.size();
    for (RegId r : spill)
      if (costs.loop_register[r]) {
        loop_spilled[r] = true;
        ++loops_spilled;
      }
    const RegSpillStats s = insertRegisterSpills(p, spill, next_id);
    stores += s.stores;
    reloads += s.reloads;
  }
  if (!reportsOn()) return rep;
  const uint64_t cycles = spillCycles(p, p.body, 1);
  const double utilization = R == 0 ? 0 : 100.0 * final_coloring.lanes_used / R;
  rep.line("Number of registers spilled = " + std::to_string(spilled_total));
  rep.line("Spilling from REG cost about " + std::to_string(cycles) + " cycles");
  rep.line(formatReportNumber(utilization) + "% REG utilization after allocation");
  rep.set("reg.method", std::string("coloring"));
  rep.set("reg.registers", int64_t(p.registers.size()));
  rep.set("reg.spilled", int64_t(spilled_total));
  rep.set("reg.spilled_loop_registers", int64_t(loops_spilled));
  rep.set("reg.spill_stores", int64_t(stores));
  rep.set("reg.spill_reloads", int64_t(reloads));
  rep.set("reg.spill_cycles", int64_t(cycles));
  rep.set("reg.lanes_used", int64_t(final_coloring.lanes_used));
  rep.set("reg.lanes", int64_t(R));
  rep.set("reg.utilization_pct", utilization);
  return rep;
}

}  // namespace allocsim
