#include "alloc/reg/reg_live_pieces.h"

#include <algorithm>

namespace allocsim {

namespace {

// The segments of `r` outside the positions (s, e), each as a one-segment range.
std::vector<LiveRange> segmentsOutside(const LiveRange& r, uint32_t s, uint32_t e) {
  std::vector<LiveRange> out;
  for (size_t i = 0; i < r.segmentCount(); ++i) {
    const Segment x = r.segment(i);
    if (x.first <= s) out.push_back(LiveRange{x.first, std::min(x.last, s)});
    if (x.last >= e) out.push_back(LiveRange{std::max(x.first, e), x.last});
  }
  return out;
}

}  // namespace

std::vector<std::vector<LiveRange>> registerLivePieces(const Program& p, const Liveness& live) {
  std::vector<std::vector<LiveRange>> pieces(p.registers.size());
  for (RegId r = 0; r < p.registers.size(); ++r)
    for (size_t i = 0; i < live.registers[r].segmentCount(); ++i) {
      const Segment x = live.registers[r].segment(i);
      pieces[r].push_back(LiveRange{x.first, x.last});
    }
  for (const LinearLoop& L : live.order.loops) {
    const RegId r = L.inst->rd;
    const std::vector<Instruction>& body = L.inst->body;
    if (r >= p.registers.size() || body.size() < 2) continue;
    const Instruction& store = body.front();
    const Instruction& reload = body.back();
    if (store.op != Op::RegStore || store.origin != Origin::Spill || store.rs != r) continue;
    if (reload.op != Op::RegLoad || reload.origin != Origin::Reload || reload.rd != r) continue;
    if (reload.a.tensor != store.dst.tensor) continue;
    // The body's first position follows the header; its last precedes the loop end.
    const uint32_t s = L.header + 1, e = L.end - 1;
    if (live.order.positions[s].inst != &store || live.order.positions[e].inst != &reload) continue;
    const LiveRange hull = live.registers[r];
    if (hull.empty() || hull.first > s || e > hull.last || s >= e) continue;
    pieces[r] = segmentsOutside(hull, s, e);
  }
  return pieces;
}

CopyContacts::CopyContacts(const Program& p, const Liveness& live) : p_(p), live_(live) {
  for (uint32_t pos = 0; pos < live.order.positions.size(); ++pos) {
    const LinearPosition& at = live.order.positions[pos];
    if (at.kind == LinearPosition::Kind::Instruction && at.executes && at.inst->op == Op::Mov)
      copy_at_[pos] = {at.inst->rd, at.inst->rs};
  }
}

bool CopyContacts::onlyAtCopy(RegId x, RegId y) const {
  const size_t n = p_.registers.size();
  if (x >= n || y >= n || x == y || p_.registers[x].lanes() != p_.registers[y].lanes()) return false;
  const LiveRange& rx = live_.registers[x];
  const LiveRange& ry = live_.registers[y];
  if (!interferes(rx, ry)) return false;
  const uint32_t at = std::max(rx.first, ry.first);
  if (at != std::min(rx.last, ry.last)) return false;
  auto it = copy_at_.find(at);
  if (it == copy_at_.end()) return false;
  const Copy& c = it->second;
  if (!((c.dst == x && c.src == y) || (c.dst == y && c.src == x))) return false;
  return live_.registers[c.src].last == at && live_.registers[c.dst].first == at;
}

}  // namespace allocsim
