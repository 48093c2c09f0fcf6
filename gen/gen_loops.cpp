// Loops: opening and closing scopes, the generic loop statement, and cover plans that write a rectangle
// piece by piece (whole, halves, an interleaved second dimension, loops over tiles and partition groups).
#include <algorithm>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
constexpr uint32_t kMaxTrips = 8;

// Tile counts are trip counts: at most what the nest has room for (GenOptions::max_nest_trips).
uint32_t maxTiles(const Generator& gen) { return uint32_t(std::min<uint64_t>(kMaxTrips, gen.tripRoom())); }
}  // namespace

Scope& Generator::openLoop(int64_t lo, int64_t hi, int64_t step) {
  RegId var = newRegister(32);
  Scope s;
  s.id = nextScopeId_++;
  s.var = var;
  s.lo = lo;
  s.hi = hi;
  s.step = step;
  s.trips = uint64_t((hi - lo + step - 1) / step);
  RegState& st = rs_[var];
  st.scope = s.id;  // the induction variable dies with its loop
  st.readOnly = true;
  st.known = true;
  st.value.terms = {{var, 1}};
  s.regs.push_back(var);
  syncReg(var);
  scopes_.push_back(s);
  bodies_.emplace_back();
  return scopes_.back();
}

void Generator::closeLoop() {
  Scope s = scopes_.back();
  if (bodies_.back().empty()) {
    // A loop needs a body; a scalar op is the cheapest one.
    Instruction li;
    li.op = Op::Li;
    li.rd = newRegister(32);
    rs_[li.rd].known = true;
    syncReg(li.rd);
    emit(std::move(li));
  }
  Instruction loop;
  loop.op = Op::Loop;
  loop.rd = s.var;
  loop.lo = s.lo;
  loop.hi = s.hi;
  loop.step = s.step;
  loop.rare.mut().mask.c = s.bound;
  loop.body = std::move(bodies_.back());
  bodies_.pop_back();
  const std::vector<RegId> regs = std::move(scopes_.back().regs);  // with the li above
  scopes_.pop_back();
  for (RegId r : regs)
    if (rs_[r].scope == s.id) {
      rs_[r] = RegState{};
      syncReg(r);
    }
  emit(std::move(loop));
}

void Generator::loopStatement() {
  if (depth() >= kMaxLoopDepth) return;
  const uint64_t tripCount = std::min(1 + upTo(yes(70) ? 3 : kMaxTrips - 1), tripRoom());
  int64_t lo = yes(20) ? int64_t(between(1, 3)) : 0;
  int64_t step = yes(20) ? int64_t(between(2, 3)) : 1;
  int64_t hi = lo + int64_t(tripCount - 1) * step + 1 + int64_t(yes(30) ? upTo(uint64_t(step - 1)) : 0);
  openLoop(lo, hi, step);
  uint64_t n = 1 + upTo(3);
  for (uint64_t i = 0; i < n && budgetLeft(); ++i) statement();
  closeLoop();
}

void Generator::conditionalStatement() {
  // The condition: a loop register (plain, %2 or //2) against another loop register or a constant.
  const Scope& a = scopes_[c_.below(scopes_.size())];
  const Scope& b = scopes_[c_.below(scopes_.size())];
  Instruction in;
  in.op = Op::If;
  const uint32_t shape = uint32_t(c_.below(3));
  in.rare.mut().mask.c.addTerm(a.var, 1, shape == 2 ? 2 : 1, shape == 1 ? 2 : 0);
  if (&a != &b && yes(60)) in.rare.mut().mask.c.addTerm(b.var, -1);
  else in.rare.mut().mask.c.constant = -int64_t(upTo(uint64_t(std::max<int64_t>(a.lo, a.last()))));
  in.rare.mut().mask.cmp = CmpOp(c_.below(6));
  in.body.push_back(memsetOfLiveTensor());
  emit(std::move(in));
}

void Generator::boundedLoopStatement() {
  const Scope& a = scopes_[c_.below(scopes_.size())];
  Index bound;
  const uint32_t shape = uint32_t(c_.below(3));
  bound.addTerm(a.var, 1, shape == 2 ? 2 : 1, shape == 1 ? 3 : 0);
  bound.constant = int64_t(c_.below(2));
  auto controller = [&](RegId r) -> const InstructionHead* {
    static thread_local InstructionHead h;
    for (const Scope& s : scopes_)
      if (s.var == r) {
        h.op = Op::Loop, h.rd = s.var, h.lo = s.lo, h.hi = s.hi, h.step = s.step;
        return &h;
      }
    return nullptr;
  };
  const std::optional<int64_t> max = loopBoundMaximum(bound, controller);
  if (!max || *max < 1 || uint64_t(*max) > tripRoom()) return conditionalStatement();
  Scope& s = openLoop(0, *max, 1);
  s.bound = std::move(bound);
  emit(memsetOfLiveTensor());
  closeLoop();
}

Instruction Generator::memsetOfLiveTensor() {
  // A memset of a live tensor, whole or a register-indexed part of it.
  const TensorId t = pool_[c_.below(pool_.size())];
  const Tensor& T = tensor(t);
  uint32_t parts, elems64;
  uint64_t elems;
  chooseSubShape(t, parts, elems);
  elems64 = uint32_t(elems);
  std::optional<AccessPattern> v = chooseView(t, parts, elems64, false);
  Instruction m;
  m.op = Op::Memset;
  m.dst = v ? *v : whole(t);
  m.imm = isFloat(T.dtype) ? floatImm(1.0) : intImm(1);
  charge(uint64_t(m.dst.partitions) * m.dst.elementsPerPartition() * dtypeSize(T.dtype));
  noteWrite(t, 1.0, false);
  ++statements_;
  return m;
}

void Generator::cover(uint32_t parts, uint32_t elems, const std::function<void(const Geo&)>& piece) {
  Geo g;
  g.parts = parts;
  g.count = elems;
  const Divisors elemTiles = divisorsIn(elems, 2, maxTiles(*this));
  const Divisors partTiles = divisorsIn(parts, 2, maxTiles(*this));
  // Interleaved halves: elements j*2c + [0, c) and j*2c + c + [0, c) for j < count2, count2 >= 2.
  std::vector<uint32_t> interleave;
  if (elems % 2 == 0)
    for (uint32_t c : divisorsIn(elems / 2, 1, 64))
      if (elems / (2 * c) >= 2) interleave.push_back(c);
  const uint32_t room = kMaxLoopDepth - depth();
  const size_t kind = weighted({6, parts >= 2 ? 2u : 0u, elems >= 2 ? 2u : 0u, interleave.empty() ? 0u : 2u,
                                room >= 1 && !elemTiles.empty() ? 4u : 0u, room >= 1 && !partTiles.empty() ? 3u : 0u,
                                room >= 2 && !elemTiles.empty() && !partTiles.empty() ? 3u : 0u});
  switch (kind) {
    case 1: {  // two partition ranges
      uint32_t a = uint32_t(between(1, parts - 1));
      Geo h = g;
      h.parts = a;
      piece(h);
      h.part.constant = a;
      h.parts = parts - a;
      piece(h);
      return;
    }
    case 2: {  // two element ranges
      uint32_t a = uint32_t(between(1, elems - 1));
      Geo h = g;
      h.count = a;
      piece(h);
      h.off.constant = a;
      h.count = elems - a;
      piece(h);
      return;
    }
    case 3: {  // interleaved halves
      uint32_t c = interleave[c_.below(interleave.size())];
      Geo h = g;
      h.count = c;
      h.step2 = 2 * c;
      h.count2 = elems / (2 * c);
      piece(h);
      h.off.constant = c;
      piece(h);
      return;
    }
    case 4: return coverInLoops(g, false, true, elemTiles, partTiles, piece);
    case 5: return coverInLoops(g, true, false, elemTiles, partTiles, piece);
    case 6: return coverInLoops(g, true, true, elemTiles, partTiles, piece);
    default: piece(g);
  }
}

// One piece inside a loop over partition groups, a loop nest over element tiles, or both (g the whole rectangle).
void Generator::coverInLoops(Geo g, bool partLoop, bool elemLoop, const Divisors& elemTiles, const Divisors& partTiles,
                             const std::function<void(const Geo&)>& piece) {
  const uint32_t base = depth();
  const uint32_t parts = g.parts, elems = g.count;
  if (partLoop) {
    uint32_t k = partTiles[c_.below(partTiles.size())];
    uint32_t pp = parts / k;
    if (yes(50)) {
      openLoop(0, parts, pp);
      g.part = regIndex(scopes_.back().var, 1, 0);
    } else {
      openLoop(0, k, 1);
      g.part = regIndex(scopes_.back().var, pp, 0);
    }
    g.parts = pp;
  }
  // Inside the partition loop the nest has less room: the element tile counts that still fit. None, and the
  // piece keeps its whole rows (as kind 5).
  const Divisors tiles = partLoop ? divisorsIn(elems, 2, maxTiles(*this)) : elemTiles;
  if (elemLoop && !tiles.empty()) {
    uint32_t k = tiles[c_.below(tiles.size())];
    uint32_t e0 = elems / k;
    // A third level splits each tile again and adds the two induction variables in a register.
    const Divisors inner = divisorsIn(k, 2, kMaxTrips);
    if (depth() + 2 <= kMaxLoopDepth && k >= 4 && !inner.empty() && yes(40))
      g.off = openSplitTileLoops(elems, e0, inner[c_.below(inner.size())]);
    else
      g.off = openTileLoop(elems, k, e0);
    g.count = e0;
  }
  piece(g);
  while (depth() > base) closeLoop();
}

// Two loops over the k2 * e0-element blocks and the e0-element tiles inside them; returns the tile's offset, the sum
// of the two induction variables in a new register.
Index Generator::openSplitTileLoops(uint32_t elems, uint32_t e0, uint32_t k2) {
  openLoop(0, elems, int64_t(k2) * e0);
  RegId a = scopes_.back().var;
  openLoop(0, int64_t(k2) * e0, e0);
  RegId b = scopes_.back().var;
  Instruction add;
  add.op = Op::Add;
  add.rs = a;
  add.rt = b;
  add.rd = newRegister(32);
  rs_[add.rd].known = true;
  rs_[add.rd].value.terms = {{a, 1}, {b, 1}};
  syncReg(add.rd);
  emit(add);
  return regIndex(add.rd, 1, 0);
}

// One loop over the k tiles of e0 elements: counting tiles, counting elements, from 1, or through a copy of the
// induction variable. Returns the tile's offset.
Index Generator::openTileLoop(uint32_t elems, uint32_t k, uint32_t e0) {
  switch (weighted({4, 2, 1, 1})) {
    case 0: openLoop(0, k, 1); return regIndex(scopes_.back().var, e0, 0);
    case 1: openLoop(0, elems, e0); return regIndex(scopes_.back().var, 1, 0);
    case 2: openLoop(1, k + 1, 1); return regIndex(scopes_.back().var, e0, -int64_t(e0));
    default: {
      openLoop(0, k, 1);
      Instruction mov;
      mov.op = Op::Mov;
      mov.rs = scopes_.back().var;
      mov.rd = newRegister(32);
      rs_[mov.rd].known = true;
      rs_[mov.rd].value.terms = {{mov.rs, 1}};
      syncReg(mov.rd);
      emit(mov);
      return regIndex(mov.rd, e0, 0);
    }
  }
}
}  // namespace allocsim::gen
