// Memory and pressure: sizing new SBUF tensors from the pressure target, keeping the live set (pool) near
// that target by retiring tensors, filling tensors from inputs or memsets, storing them to outputs, and
// evacuating PSUM.
#include <algorithm>
#include <cmath>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
bool contains(const std::vector<TensorId>& v, TensorId t) { return std::find(v.begin(), v.end(), t) != v.end(); }
}  // namespace

void Generator::chooseShape(DType dt, uint32_t& parts, uint32_t& elems) {
  const uint32_t P = prog_.arch.sbuf_partitions;
  const uint64_t maxElems = std::max<uint64_t>(1, prog_.arch.sbuf_bytes / dtypeSize(dt));
  parts = yes(70) ? P : uint32_t(between(1, P));
  const uint64_t cap = elementCap();
  parts = uint32_t(std::min<uint64_t>(parts, cap));
  uint64_t k = upTo(7);
  uint64_t e;
  if (k == 0) {
    e = 1 + upTo(7);
  } else {
    // k in 1..7 scales the per-tensor share of the target by 0.4 .. 1.6.
    uint64_t want = liveTarget() / poolSlots_ * (k + 1) / 5;
    e = want / parts / dtypeSize(dt);
  }
  e = std::clamp<uint64_t>(e, 1, std::min(maxElems, std::max<uint64_t>(1, cap / parts)));
  if (e >= 16 && yes(85)) {
    // Round to a multiple of a power of two, so tiles divide the tensor evenly.
    uint64_t g = 1;
    while (g * 2 <= 64 && g * 2 * 4 <= e) g *= 2;
    e = e / g * g;
  }
  elems = uint32_t(e);
}

TensorId Generator::newPoolTensor(uint32_t parts, uint32_t elems, DType dt, const std::vector<TensorId>& keep) {
  makeRoom(uint64_t(parts) * elems * dtypeSize(dt), keep);
  return addTensor(Space::Sbuf, parts, elems, dt, "t");
}

void Generator::addToPool(TensorId t) {
  ts_[t].full = true;
  if (prog_.tensors[t].space == Space::Psum) {
    psumPool_.push_back(t);
    return;
  }
  pool_.push_back(t);
  poolBytes_ += prog_.tensors[t].totalBytes();
}

void Generator::makeRoom(uint64_t bytes, const std::vector<TensorId>& keep) {
  while (poolBytes_ + bytes > liveTarget()) {
    std::vector<size_t> candidates;
    for (size_t i = 0; i < pool_.size(); ++i)
      if (!contains(keep, pool_[i])) candidates.push_back(i);
    if (candidates.empty()) return;
    retire(candidates[yes(30) ? c_.below(candidates.size()) : 0]);
  }
}

uint32_t Generator::psumBanks(TensorId t) const { return uint32_t(psumBankCount(prog_.arch, prog_.tensors[t])); }

void Generator::makePsumRoom(uint32_t banks) {
  for (;;) {
    uint32_t live = openPsumBanks_;
    for (TensorId t : psumPool_) live += psumBanks(t);
    if (live + banks <= psumTarget_ || psumPool_.empty()) return;
    evacuatePsum(yes(30) ? c_.below(psumPool_.size()) : 0);
  }
}

std::vector<TensorId> Generator::readable(bool psumToo) const {
  std::vector<TensorId> out = pool_;
  if (psumToo) out.insert(out.end(), psumPool_.begin(), psumPool_.end());
  return out;
}

void Generator::retire(size_t poolIndex) {
  TensorId t = pool_[poolIndex];
  pool_.erase(pool_.begin() + std::ptrdiff_t(poolIndex));
  poolBytes_ -= prog_.tensors[t].totalBytes();
  const Tensor& T = prog_.tensors[t];
  // Merge into another live tensor of the same dtype that can hold it (its last read is then the tt).
  std::vector<TensorId> into;
  for (TensorId u : pool_) {
    const Tensor& U = prog_.tensors[u];
    if (U.dtype == T.dtype && U.partitions >= T.partitions && U.elements >= T.elements) into.push_back(u);
  }
  switch (weighted({8, into.empty() ? 0u : 3u, 1})) {
    case 0:
      storeToOutput(t);
      died(t);
      return;
    case 1: {
      TensorId u = into[c_.below(into.size())];
      const Tensor& U = prog_.tensors[u];
      Rect r{u, uint32_t(upTo(U.partitions - T.partitions)), T.partitions, uint32_t(upTo(U.elements - T.elements)),
             T.elements};
      Geo g;
      g.parts = T.partitions;
      g.count = T.elements;
      Instruction i;
      i.op = Op::TT;
      i.dst = view(r, g);
      i.a = i.dst;
      i.b = whole(t);
      static const AluOp kFloatOps[] = {AluOp::Add, AluOp::Max, AluOp::Min, AluOp::Sub};
      static const AluOp kIntOps[] = {AluOp::Add, AluOp::Xor, AluOp::Max, AluOp::Sub, AluOp::Or};
      i.alu = isFloat(T.dtype) ? kFloatOps[c_.below(4)] : kIntOps[c_.below(5)];
      double m = magOf(u) + magOf(t);
      if (depth() > 0) m = HUGE_VAL;  // repeated in a loop, the sum grows each iteration
      ts_[u].mag = std::max(ts_[u].mag, m);
      charge(T.totalBytes());
      emit(std::move(i));
      died(t);
      return;
    }
    default:
      died(t);
      return;  // dropped: its last read was its last use
  }
}

void Generator::storeToOutput(TensorId t) {
  const Tensor& T = prog_.tensors[t];
  const uint32_t parts = T.partitions, elems = T.elements;
  const DType dt = T.dtype;
  const bool psum = T.space == Space::Psum;
  // Through a temporary (an ACT or DVE op on the way out, possibly converting the dtype), or a plain DMA.
  const size_t how = psum ? 1 + c_.below(3) : weighted({6, 2, 2, 2});
  DType outType = dt;
  if (how == 1) outType = anyDType();  // copy converts
  if (uint64_t(elems) * dtypeSize(outType) > prog_.arch.sbuf_bytes) outType = dt;  // the temporary must fit
  // fit_dram with the budget short: overwrite the corner of the largest output of outType that both cover.
  TensorId out = largestOut_[size_t(outType)];
  uint32_t rows = parts, cols = elems;
  if (out == kNone || dramRoomFor(uint64_t(parts) * elems * dtypeSize(outType))) {
    out = addTensor(Space::Dram, parts, elems, outType, "out");
    prog_.tensors[out].output = true;
    ts_[out].full = true;
    TensorId& largest = largestOut_[size_t(outType)];
    if (largest == kNone || prog_.tensors[largest].totalBytes() < prog_.tensors[out].totalBytes()) largest = out;
  } else {
    rows = std::min(rows, prog_.tensors[out].partitions);
    cols = std::min(cols, prog_.tensors[out].elements);
  }
  const ActFunc func = isFloat(dt) ? (yes(50) ? ActFunc::Tanh : ActFunc::Abs) : ActFunc::Neg;
  const AluOp alu = isFloat(dt) ? AluOp::Mul : AluOp::Add;
  const Immediate imm = isFloat(dt) ? floatImm(0.5) : intImm(int64_t(upTo(9)));
  cover(rows, cols, [&](const Geo& g) {
    Instruction dma;
    dma.op = Op::Dma;
    dma.dst = view(Rect{out, 0, rows, 0, cols}, g);
    charge(uint64_t(g.parts) * g.elements() * dtypeSize(dt) * 2);
    if (how == 0) {
      dma.a = view(wholeRect(t), g);
      emit(std::move(dma));
      return;
    }
    TensorId tmp = addTensor(Space::Sbuf, g.parts, uint32_t(g.elements()), outType, "t");
    Instruction op;
    op.op = how == 1 ? Op::Copy : how == 2 ? Op::Act : Op::TS;
    op.dst = whole(tmp);
    op.a = view(wholeRect(t), g);
    op.func = func;
    op.alu = alu;
    op.scalar.imm = imm;
    emit(std::move(op));
    dma.a = whole(tmp);
    emit(std::move(dma));
    died(tmp);
  });
}

void Generator::evacuatePsum(size_t psumIndex) {
  TensorId ps = psumPool_[psumIndex];
  psumPool_.erase(psumPool_.begin() + std::ptrdiff_t(psumIndex));
  if (depth() == 0 && yes(25)) {  // straight to an output
    storeToOutput(ps);
    died(ps);
    return;
  }
  const Tensor& P = prog_.tensors[ps];
  const uint32_t parts = P.partitions, elems = P.elements;
  const DType pdt = P.dtype;
  const bool fl = isFloat(pdt);
  double m = magOf(ps);
  if (yes(20)) {
    // The accumulator updated in place by an engine op before it leaves PSUM: a PSUM writer other than a matmul,
    // whose value a spilled tensor must save right after it (alloc/psum/psum_def_regions.h).
    cover(parts, elems, [&](const Geo& g) {
      Instruction i;
      i.op = Op::TS;
      i.dst = view(wholeRect(ps), g);
      i.a = i.dst;
      i.alu = fl ? AluOp::Mul : AluOp::Shr;
      i.scalar.imm = fl ? floatImm(0.5) : intImm(1);
      charge(uint64_t(g.parts) * g.elements() * 4);
      emit(std::move(i));
    });
    if (fl) m *= 0.5;
    ts_[ps].mag = fl ? m : 0;
  }
  const size_t how = weighted({6, 3, 2, 2});  // copy, act, dma, ts
  DType dt = how == 0 ? anyDType() : pdt;
  TensorId s = newPoolTensor(parts, elems, dt, {});
  const ActFunc func = fl ? (m < 20 && yes(30) ? ActFunc::Exp : ActFunc::Tanh) : ActFunc::Relu;
  cover(parts, elems, [&](const Geo& g) {
    Instruction i;
    i.op = how == 0 ? Op::Copy : how == 1 ? Op::Act : how == 2 ? Op::Dma : Op::TS;
    i.dst = view(wholeRect(s), g);
    i.a = view(wholeRect(ps), g);
    i.func = func;
    i.alu = fl ? AluOp::Mul : AluOp::Shr;
    i.scalar.imm = fl ? floatImm(0.25) : intImm(1);
    charge(uint64_t(g.parts) * g.elements() * 4);
    emit(std::move(i));
  });
  if (how == 1) m = func == ActFunc::Exp ? std::exp(m) : fl ? 1 : m;
  ts_[s].mag = m;
  addToPool(s);
  died(ps);
}

void Generator::memsetStatement() {
  DType dt = anyDType();
  uint32_t parts, elems;
  chooseShape(dt, parts, elems);
  TensorId t = newPoolTensor(parts, elems, dt, {});
  static const double kFloats[] = {0.0, 1.0, -0.5, 0.25, 2.0, 1.5, -3.0};
  Immediate imm = isFloat(dt) ? floatImm(kFloats[c_.below(std::size(kFloats))]) : intImm(int64_t(upTo(100)));
  double mag = 0;
  cover(parts, elems, [&](const Geo& g) {
    Instruction i;
    i.op = Op::Memset;
    i.dst = view(wholeRect(t), g);
    // Pieces may get different values, so the tensor is not uniform.
    i.imm = imm;
    if (imm.is_float) imm.f += 0.5;
    else imm.i += 1;
    mag = std::max(mag, imm.is_float ? std::fabs(imm.f) : 0.0);
    charge(uint64_t(g.parts) * g.elements() * dtypeSize(dt));
    emit(std::move(i));
  });
  ts_[t].mag = mag;
  addToPool(t);
}

TensorId Generator::loadInput(uint32_t parts, uint32_t elems, DType dt, const std::vector<TensorId>& keep) {
  TensorId t = newPoolTensor(parts, elems, dt, keep);
  // The input may be bigger than the tensor (a sub-rectangle is loaded); DRAM rows are not limited to P.
  uint32_t extraParts = yes(20) ? uint32_t(upTo(parts)) : 0;
  uint32_t extraElems = yes(20) ? uint32_t(upTo(elems)) : 0;
  // A float tile may load from an input of the other float type: a converting DMA (f32 <-> bf16).
  const DType inType = isFloat(dt) && yes(25) ? otherFloat(dt) : dt;
  TensorId in = kNone;
  if (!dramRoomFor(uint64_t(parts + extraParts) * (elems + extraElems) * dtypeSize(inType))) {
    in = sharedInput(inType);
    const Tensor& I = prog_.tensors[in];
    if (I.partitions >= parts && I.elements >= elems) {
      extraParts = I.partitions - parts;
      extraElems = I.elements - elems;
    } else {
      in = kNone;  // a tile no machine's SBUF holds: a tensor of its own (the budget then ends the program)
    }
  }
  if (in == kNone) {
    in = addTensor(Space::Dram, parts + extraParts, elems + extraElems, inType, "in");
    prog_.tensors[in].input = true;
    ts_[in].full = true;
  }
  Rect src{in, uint32_t(upTo(extraParts)), parts, uint32_t(upTo(extraElems)), elems};
  const bool touchUp = yes(20);
  const bool fl = isFloat(dt);
  double mag = 2;  // inputs hold floats in [-2, 2)
  cover(parts, elems, [&](const Geo& g) {
    Instruction dma;
    dma.op = Op::Dma;
    dma.dst = view(wholeRect(t), g);
    dma.a = view(src, g);
    charge(uint64_t(g.parts) * g.elements() * dtypeSize(dt));
    emit(dma);
    if (!touchUp) return;
    // Work on the freshly loaded piece in place.
    Instruction op;
    op.op = fl || yes(50) ? Op::Act : Op::TS;
    op.dst = dma.dst;
    op.a = dma.dst;
    op.func = fl ? ActFunc::Exp : ActFunc::Square;
    op.alu = AluOp::Shl;
    op.scalar.imm = intImm(1);
    if (fl) mag = std::exp(2.0);
    emit(std::move(op));
  });
  ts_[t].mag = mag;
  addToPool(t);
  return t;
}

void Generator::loadStatement() {
  DType dt = anyDType();
  uint32_t parts, elems;
  chooseShape(dt, parts, elems);
  loadInput(parts, elems, dt, {});
}

uint64_t Generator::elementCap() const {
  if (!opts_.fit_dram) return UINT64_MAX;
  const uint64_t left = kFitElements - std::min(elements_, kFitElements);
  return std::max<uint64_t>(kFitMinElements, left / (8 * std::max<uint64_t>(1, topLevelLeft_)));
}

uint64_t Generator::liveTarget() const {
  if (!opts_.fit_dram) return sbufTarget_;
  return std::clamp<uint64_t>(elementCap() * 4 * poolSlots_, 1, sbufTarget_);
}

bool Generator::dramRoomFor(uint64_t bytes) const {
  if (!opts_.fit_dram) return true;
  uint64_t reserve = 0;
  const uint64_t outputBytes = uint64_t(prog_.arch.sbuf_partitions) * prog_.arch.sbuf_bytes;  // the largest output
  for (size_t d = 0; d < std::size(sharedIn_); ++d) {
    if (sharedIn_[d] == kNone) reserve += sharedInputBytes(DType(d));
    if (largestOut_[d] == kNone) reserve += outputBytes;
  }
  return dramBytes_ + bytes + reserve < prog_.arch.dram_limit / 4;
}

uint64_t Generator::sharedInputBytes(DType dt) const {
  return uint64_t(prog_.arch.sbuf_partitions) * std::max<uint32_t>(1, prog_.arch.sbuf_bytes / 2) * dtypeSize(dt);
}

TensorId Generator::sharedInput(DType dt) {
  TensorId& in = sharedIn_[size_t(dt)];
  if (in == kNone) {
    in = addTensor(Space::Dram, prog_.arch.sbuf_partitions, std::max<uint32_t>(1, prog_.arch.sbuf_bytes / 2), dt, "in");
    prog_.tensors[in].input = true;
    ts_[in].full = true;
  }
  return in;
}

void Generator::flush() {
  while (!psumPool_.empty()) evacuatePsum(0);
  while (!overBroad_.empty()) readOverBroad(0);
  while (!pool_.empty()) {
    TensorId t = pool_.front();
    pool_.erase(pool_.begin());
    poolBytes_ -= prog_.tensors[t].totalBytes();
    storeToOutput(t);
  }
}
}  // namespace allocsim::gen
