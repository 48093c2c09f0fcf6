#include "alloc/reg/reg_live_pieces.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "alloc/operand_effects.h"

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

// Where each instruction sits: the body that holds it, its index there, and the loop or if whose body that is.
struct Place {
  const std::vector<Instruction>* body = nullptr;
  size_t index = 0;
  const Instruction* parent = nullptr;
};
using Places = std::unordered_map<const Instruction*, Place>;

void placesOf(const std::vector<Instruction>& body, const Instruction* parent, Places& where) {
  for (size_t i = 0; i < body.size(); ++i) {
    where[&body[i]] = {&body, i, parent};
    if (hasBody(body[i].op)) placesOf(body[i].body, &body[i], where);
  }
}

// Whether `inst` is, or lies inside, an instruction of `anchor`'s body that comes after `anchor`; then `reach`
// becomes the end of the outermost loop between them (0 when none): a read inside such a loop repeats until that
// loop ends.
bool afterInItsBody(const Instruction* inst, const Place& anchor, const Places& where,
                    const std::unordered_map<const Instruction*, uint32_t>& loop_end, uint32_t& reach) {
  reach = 0;
  for (uint32_t depth = 0; inst != nullptr && depth <= where.size(); ++depth) {
    const auto it = where.find(inst);
    if (it == where.end()) return false;
    if (it->second.body == anchor.body) return it->second.index > anchor.index;
    inst = it->second.parent;  // a loop or an if whose body holds the read
    if (inst != nullptr && inst->op == Op::Loop)
      if (auto e = loop_end.find(inst); e != loop_end.end()) reach = e->second;
  }
  return false;
}

// A register whose every write happens in one run of one instruction, the anchor (a single write, or a loop that
// steps the register: its header, its end and reloads inside its body), and whose every read follows that write
// in the same run of the body that holds the anchor (inside the loop, or in a later instruction of that body,
// nested or not): each read sees a value written in the same run, so the register is live from the anchor's first
// write to its last read (to the end of any loop around a read) and nowhere else, whatever loops or conditions
// hold that body. This is the reload stand-in before its use, the spill stand-in before its store, a loop register
// inside a loop that may not run. Returns that piece, or nothing when the writes or reads do not have that shape.
std::optional<LiveRange> oneRunPiece(RegId r, const std::vector<uint32_t>& writes, const std::vector<uint32_t>& reads,
                                     const LinearOrder& order, const Places& where,
                                     const std::unordered_map<const Instruction*, uint32_t>& loop_end) {
  if (writes.empty() || reads.empty()) return std::nullopt;
  const uint32_t first = *std::min_element(writes.begin(), writes.end());
  const LinearPosition& w = order.positions[first];
  uint32_t span_end = first;  // the anchor's own positions: [first, span_end]
  if (w.kind == LinearPosition::Kind::LoopHeader && w.inst->rd == r) {
    const auto e = loop_end.find(w.inst);
    if (e == loop_end.end()) return std::nullopt;
    span_end = e->second;
    for (uint32_t pos : writes)
      if (pos > span_end) return std::nullopt;
  } else if (w.kind != LinearPosition::Kind::Instruction || writes.size() != 1) {
    return std::nullopt;
  }
  const auto anchor = where.find(w.inst);
  if (anchor == where.end()) return std::nullopt;
  uint32_t last = first;
  for (uint32_t pos : reads) {
    if (pos <= first) return std::nullopt;
    uint32_t reach = 0;
    if (pos > span_end && !afterInItsBody(order.positions[pos].inst, anchor->second, where, loop_end, reach))
      return std::nullopt;
    last = std::max({last, pos, reach});
  }
  return LiveRange{first, last};
}

bool readsInBound(const Instruction& loop, RegId r) {
  for (const IndexTerm& t : loop.rare->mask.c.terms)
    if (t.reg == r) return true;
  return false;
}

}  // namespace

std::vector<std::vector<LiveRange>> registerLivePieces(const Program& p, const Liveness& live) {
  const size_t n = p.registers.size();
  // Each register's range: the liveness' segments, or the one piece of a register written and read in one run.
  std::vector<LiveRange> base(live.registers.begin(), live.registers.begin() + std::min(n, live.registers.size()));
  base.resize(n);
  {
    Places where;
    placesOf(p.body, nullptr, where);
    std::unordered_map<const Instruction*, uint32_t> loop_end;
    for (const LinearLoop& L : live.order.loops) loop_end[L.inst] = L.end;
    std::vector<std::vector<uint32_t>> writes(n), reads(n);
    OperandEffects e;
    for (uint32_t pos = 0; pos < live.order.positions.size(); ++pos) {
      const LinearPosition& at = live.order.positions[pos];
      if (!at.executes || at.inst == nullptr) continue;
      if (at.kind == LinearPosition::Kind::LoopHeader || at.kind == LinearPosition::Kind::LoopEnd) {
        if (at.kind == LinearPosition::Kind::LoopHeader)  // a register bound is read on entry
          for (const IndexTerm& t : at.inst->rare->mask.c.terms)
            if (t.reg < n) reads[t.reg].push_back(pos);
        if (at.inst->rd < n) {
          if (at.kind == LinearPosition::Kind::LoopEnd) reads[at.inst->rd].push_back(pos);
          writes[at.inst->rd].push_back(pos);
        }
        continue;
      }
      operandEffects(p, *at.inst, e);
      for (RegId r : e.reg_reads) reads[r].push_back(pos);
      for (RegId r : e.reg_writes) writes[r].push_back(pos);
    }
    for (RegId r = 0; r < n; ++r) {
      if (base[r].empty()) continue;
      const std::optional<LiveRange> piece = oneRunPiece(r, writes[r], reads[r], live.order, where, loop_end);
      if (piece && base[r].first <= piece->first && piece->last <= base[r].last) base[r] = *piece;
    }
  }
  std::vector<std::vector<LiveRange>> pieces(n);
  for (RegId r = 0; r < n; ++r)
    for (size_t i = 0; i < base[r].segmentCount(); ++i) {
      const Segment x = base[r].segment(i);
      pieces[r].push_back(LiveRange{x.first, x.last});
    }
  for (const LinearLoop& L : live.order.loops) {
    const RegId r = L.inst->rd;
    const std::vector<Instruction>& body = L.inst->body;
    if (r >= n || body.size() < 2) continue;
    const Instruction& store = body.front();
    const Instruction& reload = body.back();
    if (store.op != Op::RegStore || store.origin != Origin::Spill || store.rs != r) continue;
    if (reload.op != Op::RegLoad || reload.origin != Origin::Reload || reload.rd != r) continue;
    if (reload.a.tensor != store.dst.tensor) continue;
    // The body's first position follows the header; its last precedes the loop end.
    const uint32_t s = L.header + 1, e = L.end - 1;
    if (live.order.positions[s].inst != &store || live.order.positions[e].inst != &reload) continue;
    const LiveRange& hull = base[r];
    if (hull.empty() || hull.first > s || e > hull.last || s >= e) continue;
    pieces[r] = segmentsOutside(hull, s, e);
    // Inside the body, r is live only from a reload that gives it back its value to the entry of the inner loop
    // right after it, whose register bound reads it (alloc/reg/reg_spill.h).
    for (uint32_t q = s + 1; q + 1 < e; ++q) {
      const LinearPosition& at = live.order.positions[q];
      const LinearPosition& next = live.order.positions[q + 1];
      if (at.kind != LinearPosition::Kind::Instruction || at.inst->op != Op::RegLoad ||
          at.inst->origin != Origin::Reload || at.inst->rd != r || at.inst->a.tensor != store.dst.tensor)
        continue;
      if (next.kind != LinearPosition::Kind::LoopHeader || !readsInBound(*next.inst, r)) continue;
      pieces[r].push_back(LiveRange{q, q + 1});
    }
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
