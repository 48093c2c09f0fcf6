#include "alloc/reg/reg_coalesce.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "alloc/reg/reg_live_pieces.h"

namespace allocsim {
namespace {

struct Copy {
  uint32_t pos = 0;
  RegId dst = kNone, src = kNone;
  double weight = 1;
};

class Coalescer {
 public:
  Coalescer(const Program& p, const Liveness& live, const RegGraph& g, const std::vector<bool>& kept, uint32_t R)
      : p_(p), live_(live), g_(g), R_(R), contacts_(p, live) {
    const size_t n = p.registers.size();
    for (uint32_t pos = 0; pos < live.order.positions.size(); ++pos) {
      const LinearPosition& at = live.order.positions[pos];
      if (at.kind != LinearPosition::Kind::Instruction || !at.executes || at.inst->op != Op::Mov) continue;
      const RegId d = at.inst->rd, s = at.inst->rs;
      if (d >= n || s >= n || d == s || p.registers[d].lanes() != p.registers[s].lanes()) continue;
      if ((d < kept.size() && kept[d]) || (s < kept.size() && kept[s])) continue;
      size_t nest = 0;  // the loops around pos
      for (int32_t l = at.loop; l >= 0; l = live.order.loops[size_t(l)].parent) ++nest;
      const double depth = double(std::min<size_t>(nest, kMaxWeightedDepth));
      copies_.push_back({pos, d, s, std::pow(kLoopWeight, depth)});
    }
    std::stable_sort(copies_.begin(), copies_.end(), [](const Copy& a, const Copy& b) { return a.weight > b.weight; });
    // The groups and their interference sets only when there is a copy to merge: without one every register is its
    // own group (run() then hands on the graph as it is; REG runs on every allocation, most programs copy nothing).
    if (copies_.empty()) return;
    root_.resize(n);
    members_.resize(n);
    adj_.resize(n);
    for (RegId r = 0; r < n; ++r) {
      root_[r] = r;
      members_[r] = {r};
      adj_[r] = std::set<RegId>(g.adj[r].begin(), g.adj[r].end());
    }
  }

  RegGroups run() {
    RegGroups out;
    if (copies_.empty()) return ungrouped();
    for (const Copy& c : copies_) {
      const RegId a = find(c.dst), b = find(c.src);
      if (a == b) {
        ++out.coalesced;  // an earlier merge already joined them
        continue;
      }
      if (!disjointButForCopies(a, b) || !(briggs(a, b) || george(a, b) || george(b, a))) continue;
      merge(a, b);
      ++out.coalesced;
    }
    const size_t n = p_.registers.size();
    std::map<RegId, uint32_t> node_of_root;
    out.node.resize(n);
    for (RegId r = 0; r < n; ++r) {
      auto [it, added] = node_of_root.emplace(find(r), uint32_t(node_of_root.size()));
      out.node[r] = it->second;
    }
    out.nodes = uint32_t(node_of_root.size());
    out.graph.adj.resize(out.nodes);
    for (const auto& [root, node] : node_of_root) {
      for (RegId m : adj_[root]) out.graph.adj[node].push_back(node_of_root.at(m));
      std::sort(out.graph.adj[node].begin(), out.graph.adj[node].end());
      out.graph.edges += out.graph.adj[node].size();
    }
    out.graph.edges /= 2;
    return out;
  }

 private:
  // Every register its own node, with its neighbours in g (sorted, without repeats, as the merging path leaves them).
  RegGroups ungrouped() const {
    RegGroups out;
    const size_t n = p_.registers.size();
    out.node.resize(n);
    out.nodes = uint32_t(n);
    out.graph.adj.resize(n);
    for (RegId r = 0; r < n; ++r) {
      out.node[r] = r;
      std::vector<RegId>& adj = out.graph.adj[r];
      adj.assign(g_.adj[r].begin(), g_.adj[r].end());
      std::sort(adj.begin(), adj.end());
      adj.erase(std::unique(adj.begin(), adj.end()), adj.end());
      out.graph.edges += adj.size();
    }
    out.graph.edges /= 2;
    return out;
  }

  RegId find(RegId r) const {
    while (root_[r] != r) r = root_[r];
    return r;
  }

  uint32_t lanes(RegId root) const { return p_.registers[root].lanes(); }  // every member has the same

  // Every member of one group against every member of the other: their ranges are disjoint, or they meet at
  // one position only, a copy between those two registers where the source's range ends and the destination's
  // begins (alloc/reg/reg_live_pieces.h; a dead copy inside the source's range does not qualify: the oracles count
  // its write as a new value over a live one).
  bool disjointButForCopies(RegId a, RegId b) const {
    for (RegId x : members_[a])
      for (RegId y : members_[b])
        if (interferes(live_.registers[x], live_.registers[y]) && !contacts_.onlyAtCopy(x, y)) return false;
    return true;
  }

  uint64_t blocked(RegId t) const {
    uint64_t sum = 0;
    for (RegId u : adj_[t]) sum += lanes(u) + lanes(t) - 1;
    return sum;
  }

  // t's degree test in the graph where a and b are one node (t adjacent to both loses one of the two).
  bool significantAfterMerge(RegId t, RegId a, RegId b) const {
    uint64_t blk = blocked(t);
    if (adj_[t].count(a) && adj_[t].count(b)) blk -= lanes(b) + lanes(t) - 1;
    return blk + lanes(t) > R_;
  }

  bool briggs(RegId a, RegId b) const {
    const uint32_t w = lanes(a);
    std::set<RegId> neighbours(adj_[a].begin(), adj_[a].end());
    neighbours.insert(adj_[b].begin(), adj_[b].end());
    neighbours.erase(a);
    neighbours.erase(b);
    uint64_t sum = 0;
    for (RegId t : neighbours)
      if (significantAfterMerge(t, a, b)) sum += lanes(t) + w - 1;
    return sum + w <= R_;
  }

  // Every neighbour of a already interferes with b, or is insignificant.
  bool george(RegId a, RegId b) const {
    for (RegId t : adj_[a]) {
      if (t == b || adj_[b].count(t)) continue;
      if (blocked(t) + lanes(t) > R_) return false;
    }
    return true;
  }

  void merge(RegId a, RegId b) {
    if (b < a) std::swap(a, b);  // the smaller id represents
    root_[b] = a;
    members_[a].insert(members_[a].end(), members_[b].begin(), members_[b].end());
    members_[b].clear();
    adj_[a].erase(b);
    for (RegId t : adj_[b]) {
      if (t == a) continue;
      adj_[t].erase(b);
      adj_[t].insert(a);
      adj_[a].insert(t);
    }
    adj_[b].clear();
  }

  const Program& p_;
  const Liveness& live_;
  const RegGraph& g_;
  const uint32_t R_;
  std::vector<RegId> root_;
  std::vector<std::vector<RegId>> members_;  // by root
  std::vector<std::set<RegId>> adj_;         // by root: the groups it interferes with
  std::vector<Copy> copies_;
  CopyContacts contacts_;
};

}  // namespace

RegGroups coalesceCopies(const Program& p, const Liveness& live, const RegGraph& g, const std::vector<bool>& kept,
                         uint32_t registers) {
  return Coalescer(p, live, g, kept, registers).run();
}

}  // namespace allocsim
