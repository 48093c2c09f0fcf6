#include "alloc/reg/reg_allocator.h"

#include <algorithm>
#include <optional>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/colorer.h"
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
    if (inst.op == Op::If) {  // as if its condition always held: an upper bound
      cycles += spillCycles(p, inst.body, times);
      continue;
    }
    if (inst.origin == Origin::Spill && inst.op == Op::RegStore && inst.rs < p.registers.size())
      cycles += times * dmaCycles(Space::Sbuf, Space::Dram, 4ull * p.registers[inst.rs].lanes());
    if (inst.origin == Origin::Reload && inst.op == Op::RegLoad && inst.rd < p.registers.size())
      cycles += times * dmaCycles(Space::Dram, Space::Sbuf, 4ull * p.registers[inst.rd].lanes());
  }
  return cycles;
}

// The registers to spill after a select that left `uncolored`; empty when an uncolored register that cannot spill
// has no spillable neighbour either (no spill can make room for it: the FATAL, fatalRegisterPressure).
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
    if (!cheapest) return {};
    if (!helped) chosen[*cheapest] = true;
  }
  std::vector<RegId> out;
  for (RegId r = 0; r < chosen.size(); ++r)
    if (chosen[r]) out.push_back(r);
  return out;
}

// The production allocator's FATAL, for the first uncolored register that cannot spill and has no spillable
// neighbour.
AllocError fatalRegisterPressure(const Program& p, const RegGraph& g, const RegCosts& costs, const RegColoring& c) {
  RegId r = c.uncolored.front();
  for (RegId u : c.uncolored) {
    if (costs.spillable[u]) continue;
    bool any = false;
    for (RegId m : g.adj[u]) any = any || costs.spillable[m];
    if (!any) {
      r = u;
      break;
    }
  }
  // The true obstacle: why this register cannot spill, and why none live with it can.
  std::string why = describeRegister(p, r) + " cannot spill (" + unspillableReason(costs, r) + ")";
  std::string live_with;
  uint32_t named = 0;
  for (RegId m : g.adj[r]) {
    if (named == 4) {
      live_with += ", ...";
      break;
    }
    live_with += std::string(named++ ? ", " : "") + "'" + p.registers[m].name + "' (" + unspillableReason(costs, m, true) + ")";
  }
  why += named ? " and neither can the registers live with it: " + live_with : "";
  return AllocError(p.registers[r].loc, "cannot allocate registers since spilling candidates are not enough: " + why +
                                            "; the machine has " + std::to_string(p.arch.sp_registers) +
                                            " SP registers");
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
  if (!nc.uncolored.empty()) {  // each uncolored node's registers, in register order (most rounds color all)
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

namespace {

// The REG colorer's selection: one coloring by register, and the registers it left uncolored.
struct RegSelection {
  RegColoring coloring;
  std::vector<RegId> failed;  // coloring.uncolored
  double score = 0;
};

// One order (the production REG allocator scores one coloring per round, no best-of-n).
struct RegOrder {};

struct RegRun : ColorerRun<RegOrder, RegSelection> {
  std::optional<Liveness> live;  // points into the colorer's program
  RegGraph g;
  RegCosts costs;
  RegGroups groups;
  uint64_t stores = 0, reloads = 0, loops_spilled = 0;
};

class RegColorer final : public Colorer<RegOrder, RegSelection, RegRun> {
 public:
  RegColorer(Program& p, const RegOptions& o, AllocReport& rep, std::vector<bool>& kept, uint32_t next_id)
      : p_(p), o_(o), rep_(rep), kept_(kept), next_id_(next_id), limit_(2 * uint32_t(p.registers.size()) + 1) {}

 protected:
  RegRun startRun(uint32_t, const RegRun*) override { return {}; }
  // Every round spills a register that can spill for the only time (a source register, or a loop register).
  uint32_t roundLimit() const override { return limit_; }
  const char* memoryName() const override { return "REG"; }

  void buildRound(RegRun& run) override {
    kept_.resize(p_.registers.size(), false);
    loop_spilled_.resize(p_.registers.size(), false);
    run.live.reset();
    run.live.emplace(computeLiveness(p_));
    run.g = buildRegisterInterference(registerLivePieces(p_, *run.live));
    run.costs = findRegisterCosts(p_, kept_, loop_spilled_);
    run.groups = coalesceCopies(p_, *run.live, run.g, kept_, p_.arch.sp_registers);
  }

  std::vector<RegOrder> colorOrders(const RegRun&) const override { return {RegOrder{}}; }

  RegSelection selectWith(RegRun& run, const RegOrder&) override {
    RegSelection s;
    s.coloring = colorCoalesced(p_, *run.live, run.groups, run.costs, kept_, p_.arch.sp_registers);
    s.failed = s.coloring.uncolored;
    s.score = s.coloring.score;
    return s;
  }

  void endRound(RegRun& run) override {
    if (reportsOn()) {
      rep_.line("REG GCA interation nums = " + std::to_string(run.rounds));
      rep_.line("REG score = " + formatReportNumber(run.selection.score, 3) + " (lower is better)");
    }
    if (!run.selection.failed.empty()) return;
    for (RegId r = 0; r < p_.registers.size(); ++r) p_.registers[r].phys = run.selection.coloring.color[r];
  }

  std::vector<uint32_t> chooseSpills(RegRun& run) override {
    return allocsim::chooseSpills(p_, run.g, run.costs, run.selection.coloring);
  }

  AllocError cannotColor(RegRun& run) override {
    return fatalRegisterPressure(p_, run.g, run.costs, run.selection.coloring);
  }

  bool rewrite(RegRun& run, const std::vector<uint32_t>& spill) override {
    if (o_.verbosity >= 1) {
      std::string names;
      for (RegId r : spill) names += (names.empty() ? "" : ", ") + p_.registers[r].name;
      rep_.line("REG round " + std::to_string(run.rounds) + ": " + std::to_string(run.selection.failed.size()) +
                " uncolored, spilling " + names);
    }
    run.spilled += uint32_t(spill.size());
    for (RegId r : spill)
      if (run.costs.loop_register[r]) {
        loop_spilled_[r] = true;
        ++run.loops_spilled;
      }
    const RegSpillStats s = insertRegisterSpills(p_, spill, next_id_);
    run.stores += s.stores;
    run.reloads += s.reloads;
    return true;
  }

 private:
  Program& p_;
  const RegOptions& o_;
  AllocReport& rep_;
  std::vector<bool>& kept_;
  std::vector<bool> loop_spilled_;
  uint32_t next_id_;
  uint32_t limit_;
};

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
  RegColorer colorer(p, o, rep, kept, next_id);
  const RegRun run = colorer.allocate(1);
  if (run.error) throw *run.error;
  rep.set("reg.rounds", int64_t(run.rounds));
  rep.set("reg.score", run.selection.score);
  rep.set("reg.edges", int64_t(run.g.edges));
  rep.set("reg.coalesced_copies", int64_t(run.groups.coalesced));
  if (!reportsOn()) return rep;
  const RegColoring& final_coloring = run.selection.coloring;
  const uint64_t cycles = spillCycles(p, p.body, 1);
  const double utilization = R == 0 ? 0 : 100.0 * final_coloring.lanes_used / R;
  rep.line("Number of registers spilled = " + std::to_string(run.spilled));
  rep.line("Spilling from REG cost about " + std::to_string(cycles) + " cycles");
  rep.line(formatReportNumber(utilization) + "% REG utilization after allocation");
  rep.set("reg.method", std::string("coloring"));
  rep.set("reg.registers", int64_t(p.registers.size()));
  rep.set("reg.spilled", int64_t(run.spilled));
  rep.set("reg.spilled_loop_registers", int64_t(run.loops_spilled));
  rep.set("reg.spill_stores", int64_t(run.stores));
  rep.set("reg.spill_reloads", int64_t(run.reloads));
  rep.set("reg.spill_cycles", int64_t(cycles));
  rep.set("reg.lanes_used", int64_t(final_coloring.lanes_used));
  rep.set("reg.lanes", int64_t(R));
  rep.set("reg.utilization_pct", utilization);
  return rep;
}

}  // namespace allocsim
