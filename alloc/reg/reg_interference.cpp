#include "alloc/reg/reg_interference.h"

#include <algorithm>
#include <numeric>

#include "ir/plant.h"

namespace allocsim {

RegGraph buildRegisterInterference(const std::vector<std::vector<LiveRange>>& pieces) {
  RegGraph g;
  g.adj.resize(pieces.size());
  // Sweep the pieces in order of their start: each meets the earlier-starting ones still live at its start.
  struct Piece {
    RegId reg;
    LiveRange range;
    uint32_t seq;  // filing order: ties keep it (stable_sort's order without its buffer)
  };
  std::vector<Piece> order;
  for (RegId r = 0; r < pieces.size(); ++r)
    for (const LiveRange& x : pieces[r])
      if (!x.empty()) order.push_back({r, x, uint32_t(order.size())});
  std::sort(order.begin(), order.end(), [](const Piece& a, const Piece& b) {
    return a.range.first != b.range.first ? a.range.first < b.range.first : a.seq < b.seq;
  });
  std::vector<Piece> active;
  for (const Piece& x : order) {
    std::erase_if(active, [&](const Piece& u) {
      return u.range.last < x.range.first ||
             (ALLOCSIM_PLANT("reg_interference_ends_early") && u.range.last == x.range.first + 1);
    });
    for (const Piece& u : active)
      if (u.reg != x.reg) {
        g.adj[x.reg].push_back(u.reg);
        g.adj[u.reg].push_back(x.reg);
      }
    active.push_back(x);
  }
  for (auto& a : g.adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    g.edges += a.size();
  }
  g.edges /= 2;
  return g;
}

}  // namespace allocsim
