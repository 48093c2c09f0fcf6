// Shapes made on purpose because the allocators' narrowest rules meet them and the other statements make them
// rarely or never (gen --stats counts each, gen/stats.cpp):
// - a register carried around a loop's back edge: an accumulating address (`li x, 0; loop { read t[:, x]; addi y,
//   x, E; mov x, y }`) or a counter (`addi n, n, 1` at the end of the body), live after the loop with its exit value;
// - a tensor read at the top of a loop body and rewritten below it (what the first iteration reads comes from
//   before the loop);
// - a tensor first written in a loop and read after it (the last iteration's value leaves the loop);
// - a partial write, a read of that part, then a whole write of one tensor in a loop body;
// - a new tensor whose first write is the last read of a same-shaped tensor (an in-place candidate exactly at the
//   boundary of the two live ranges), or the same with the source read once more right after (one instruction
//   short: the two must not share).
#include <algorithm>
#include <cmath>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
constexpr uint64_t kReachTrips = 6;  // trip count bound of the loops made here (before GenOptions::max_nest_trips)

Instruction tt(const AccessPattern& dst, const AccessPattern& a, const AccessPattern& b, AluOp alu) {
  return binary(Op::TT, dst, a, b, alu);
}

Instruction copy(const AccessPattern& dst, const AccessPattern& a) { return unary(Op::Copy, dst, a); }
}  // namespace

// One of the shapes listed above, on a live SBUF tensor: picks the shape among those that fit here (the loop shapes
// need room for a loop nest, most need a tensor of two or more elements per partition) and makes it.
void Generator::reachStatement() {
  const bool loopOk = depth() < kMaxLoopDepth && tripRoom() >= 2;
  // Live SBUF tensors a shape can read (as indexes into pool_): two or more elements per partition for the tile loops.
  std::vector<size_t> wide, any;
  for (size_t k = 0; k < pool_.size(); ++k) {
    if (prog_.tensors[pool_[k]].tiles != 1) continue;  // whole-tensor and offset views only
    any.push_back(k);
    if (prog_.tensors[pool_[k]].elements >= 2) wide.push_back(k);
  }
  if (any.empty()) return;
  switch (weighted({loopOk && !wide.empty() ? 4u : 0u, loopOk && !any.empty() ? 2u : 0u,
                    loopOk && !wide.empty() ? 2u : 0u, loopOk && !wide.empty() ? 2u : 0u, 3})) {
    case 0: return carriedRegisterShape(wide);
    case 1: return carriedTensorShape(any);
    case 2: return writtenInLoopShape(wide);
    case 3: return partialThenWholeShape(wide);
    default: return boundaryInPlaceShape(any);
  }
}

// A wide live tensor (drawn from `wide`) cut into `trips` tiles of `e` elements, trips a divisor of its elements that
// the nest has room for; nullopt when there is none.
std::optional<Generator::TiledTensor> Generator::tiledLiveTensor(const std::vector<size_t>& wide) {
  const TensorId t = pool_[wide[c_.below(wide.size())]];
  const Tensor T = prog_.tensors[t];
  const Divisors tiles = divisorsIn(T.elements, 2, uint32_t(std::min(kReachTrips, tripRoom())));
  if (tiles.empty()) return std::nullopt;
  const uint32_t trips = tiles[c_.below(tiles.size())];
  return TiledTensor{t, T, trips, T.elements / trips};
}

// A register carried around the back edge, an accumulating address or a counter: a loop sums the tiles of a wide
// tensor into an accumulator, the register selecting the tile; after the loop the last tile is read again through the
// register's exit value.
void Generator::carriedRegisterShape(const std::vector<size_t>& wide) {
  const std::optional<TiledTensor> cut = tiledLiveTensor(wide);
  if (!cut) return;
  const auto& [t, T, trips, e] = *cut;
  const bool counter = yes(50);
  // The accumulator: a [parts, e] tensor zeroed before the loop and summed into in each iteration.
  const TensorId acc = newPoolTensor(T.partitions, e, T.dtype, {t});
  Instruction ms;
  ms.op = Op::Memset;
  ms.dst = whole(acc);
  ms.imm = isFloat(T.dtype) ? floatImm(0) : intImm(0);
  emit(std::move(ms));
  const RegId x = newRegister(32);
  Instruction li;
  li.op = Op::Li;
  li.rd = x;
  li.imm = intImm(0);
  emit(std::move(li));
  RegState& xs = rs_[x];
  xs.known = false;  // not indexable by other statements while the loop changes it
  syncReg(x);
  openLoop(0, trips, 1);
  AccessPattern tile = whole(t);
  tile.count = e;
  tile.offset = regIndex(x, counter ? int64_t(e) : 1, 0);
  emit(tt(whole(acc), whole(acc), tile, isFloat(T.dtype) ? AluOp::Add : AluOp::Xor));
  charge(uint64_t(T.partitions) * e * 12);
  advanceCarriedRegister(x, counter, e);
  closeLoop();
  // After the loop x holds its exit value: trips (counter) or trips * e (address), both known.
  rs_[x].known = true;
  rs_[x].value = Affine{};
  rs_[x].value.constant = counter ? int64_t(trips) : int64_t(trips) * e;
  syncReg(x);
  ts_[acc].full = true;
  ts_[acc].mag = magOf(t) * trips;
  addToPool(acc);
  // Read after the loop through its exit value: the last tile again (address: x - e; counter: (x - 1) * e).
  const TensorId last = newPoolTensor(T.partitions, e, T.dtype, {t, acc});
  AccessPattern lastTile = whole(t);
  lastTile.count = e;
  lastTile.offset = counter ? regIndex(x, int64_t(e), -int64_t(e)) : regIndex(x, 1, -int64_t(e));
  emit(copy(whole(last), lastTile));
  ts_[last].full = true;
  ts_[last].mag = magOf(t);
  addToPool(last);
}

// The end of carriedRegisterShape's loop body: a counter counts up by one (`addi x, x, 1`); an address moves on by a
// tile through a second register (`addi y, x, e; mov x, y`).
void Generator::advanceCarriedRegister(RegId x, bool counter, uint32_t e) {
  if (counter) {
    Instruction inc;
    inc.op = Op::Addi;
    inc.rs = x;
    inc.rd = x;
    inc.imm = intImm(1);
    emit(std::move(inc));
    return;
  }
  Instruction add;
  add.op = Op::Addi;
  add.rs = x;
  add.rd = newRegister(32);
  add.imm = intImm(e);
  const RegId y = add.rd;
  emit(std::move(add));
  Instruction mov;
  mov.op = Op::Mov;
  mov.rs = y;
  mov.rd = x;
  emit(std::move(mov));
}

// A carried tensor: read at the top of the body, rewritten below (negated: each iteration flips it).
void Generator::carriedTensorShape(const std::vector<size_t>& any) {
  const TensorId t = pool_[any[c_.below(any.size())]];
  const Tensor T = prog_.tensors[t];  // a copy: new tensors move the table
  const TensorId w = newPoolTensor(T.partitions, T.elements, T.dtype, {t});
  openLoop(0, int64_t(between(2, std::min(kReachTrips, tripRoom()))), 1);
  emit(copy(whole(w), whole(t)));
  ts_[w].full = true;
  Instruction neg;
  neg.op = Op::Act;
  neg.dst = whole(t);
  neg.a = whole(w);
  neg.func = ActFunc::Neg;
  emit(std::move(neg));
  charge(T.totalBytes() * 2);
  closeLoop();
  ts_[w].mag = magOf(t);
  addToPool(w);
}

// First written in the loop, a tile per iteration's value, read after the loop (the last one).
void Generator::writtenInLoopShape(const std::vector<size_t>& wide) {
  const std::optional<TiledTensor> cut = tiledLiveTensor(wide);
  if (!cut) return;
  const auto& [t, T, trips, e] = *cut;
  const TensorId w = newPoolTensor(T.partitions, e, T.dtype, {t});
  Scope& s = openLoop(0, trips, 1);
  AccessPattern tile = whole(t);
  tile.count = e;
  tile.offset = regIndex(s.var, int64_t(e), 0);
  emit(copy(whole(w), tile));
  charge(uint64_t(T.partitions) * e * 8);
  closeLoop();
  ts_[w].mag = magOf(t);
  addToPool(w);
}

// A partial write, a read of that part, then a whole write, in one body; read after the loop.
void Generator::partialThenWholeShape(const std::vector<size_t>& wide) {
  const TensorId t = pool_[wide[c_.below(wide.size())]];
  const Tensor T = prog_.tensors[t];  // a copy: new tensors move the table
  const uint32_t h = uint32_t(between(1, T.elements - 1));
  const TensorId w = newPoolTensor(T.partitions, T.elements, T.dtype, {t});
  const TensorId part = newPoolTensor(T.partitions, h, T.dtype, {t, w});
  openLoop(0, int64_t(between(2, std::min(kReachTrips, tripRoom()))), 1);
  AccessPattern head = whole(w);
  head.count = h;
  Instruction ms;
  ms.op = Op::Memset;
  ms.dst = head;
  ms.imm = isFloat(T.dtype) ? floatImm(1) : intImm(1);
  emit(std::move(ms));
  emit(copy(whole(part), head));
  emit(copy(whole(w), whole(t)));
  charge(T.totalBytes() * 3);
  closeLoop();
  ts_[w].full = ts_[part].full = true;
  ts_[w].mag = magOf(t);
  ts_[part].mag = 1;
  addToPool(part);
  addToPool(w);
}

// In place at the boundary: a new tensor written from a live one at its last read (or one before).
void Generator::boundaryInPlaceShape(const std::vector<size_t>& any) {
  const size_t k = any[c_.below(any.size())];
  const TensorId s = pool_[k];
  const Tensor S = prog_.tensors[s];  // a copy: new tensors move the table
  pool_.erase(pool_.begin() + std::ptrdiff_t(k));
  poolBytes_ -= S.totalBytes();
  const TensorId d = newPoolTensor(S.partitions, S.elements, S.dtype, {});
  emit(copy(whole(d), whole(s)));
  if (yes(50)) emit(tt(whole(d), whole(d), whole(s), AluOp::Max));
  charge(S.totalBytes() * 3);
  ts_[d].full = true;
  ts_[d].mag = magOf(s);
  addToPool(d);
}

}  // namespace allocsim::gen
