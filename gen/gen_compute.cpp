// Compute statements: copy / affine_select / act / tt / ts / on-chip dma (immediate, register or [P,1] tensor scalar) and reduce, on whole
// tensors, sub-views (partial, register-indexed, second dimension) or piece by piece through a cover plan.
#include <algorithm>
#include <array>
#include <cmath>

#include "gen/generator.h"

namespace allocsim::gen {

double aluMag(AluOp op, double a, double b) {
  switch (op) {
    case AluOp::Add:
    case AluOp::Sub: return a + b;
    case AluOp::Mul: return a * b;
    case AluOp::Div: return HUGE_VAL;  // a divisor may be close to 0
    default: return std::max(a, b);
  }
}

namespace {
constexpr double kIntMag = 4.3e9;  // an integer converted to float can be this large

double actMag(ActFunc f, double a) {
  switch (f) {
    case ActFunc::Square: return a * a;
    case ActFunc::Exp: return std::exp(std::min(a, 1000.0));
    case ActFunc::Tanh:
    case ActFunc::Sigmoid:
    case ActFunc::Sin:
    case ActFunc::Cos:
    case ActFunc::Erf:
    case ActFunc::Sign: return 1;
    case ActFunc::Arctan: return 2;  // pi/2
    case ActFunc::Softplus: return a + 1;
    case ActFunc::Log: return HUGE_VAL;  // of a value close to 0
    case ActFunc::Sqrt: return std::sqrt(a);
    case ActFunc::Rsqrt:
    case ActFunc::Reciprocal: return HUGE_VAL;  // of a value close to 0
    default: return a;
  }
}

bool boundedAct(ActFunc f) {
  switch (f) {
    case ActFunc::Tanh:
    case ActFunc::Sigmoid:
    case ActFunc::Sin:
    case ActFunc::Cos:
    case ActFunc::Erf:
    case ActFunc::Sign:
    case ActFunc::Arctan: return true;
    default: return false;
  }
}
}  // namespace

double Generator::magOf(TensorId t) const { return isFloat(prog_.tensors[t].dtype) ? ts_[t].mag : kIntMag; }

void Generator::noteWrite(TensorId dst, double mag, bool inPlace) {
  // Repeated in a loop, an in-place update compounds: assume the worst.
  if (inPlace && trips() > 1) mag = HUGE_VAL;
  ts_[dst].mag = ts_[dst].full ? std::max(ts_[dst].mag, mag) : mag;
}

std::optional<AccessPattern> Generator::scalarColumn(DType dt, uint32_t parts, const std::vector<TensorId>& keep) {
  std::vector<TensorId> cands;
  for (TensorId t : readable(true))
    if (prog_.tensors[t].dtype == dt && prog_.tensors[t].partitions >= parts) cands.push_back(t);
  if (!cands.empty() && yes(80)) {
    TensorId t = cands[c_.below(cands.size())];
    return chooseView(t, parts, 1, false);
  }
  // A fresh column: a reduction of a readable tensor, or a memset.
  TensorId col = newPoolTensor(parts, 1, dt, keep);
  Instruction i;
  i.dst = whole(col);
  std::vector<TensorId> srcs;
  for (TensorId t : readable(true))
    if (prog_.tensors[t].dtype == dt && prog_.tensors[t].partitions >= parts) srcs.push_back(t);
  if (!srcs.empty()) {
    TensorId s = srcs[c_.below(srcs.size())];
    auto v = chooseView(s, parts, between(1, prog_.tensors[s].elements), true, /*allowSelfOverlap=*/true);
    if (!v) return std::nullopt;
    i.op = Op::Reduce;
    i.a = *v;
    i.alu = yes(50) ? AluOp::Max : AluOp::Min;
    ts_[col].mag = magOf(s);
  } else {
    i.op = Op::Memset;
    i.imm = isFloat(dt) ? floatImm(0.5) : intImm(3);
    ts_[col].mag = 0.5;
  }
  emit(std::move(i));
  addToPool(col);
  return whole(col);
}

void Generator::elementwiseStatement() {
  std::vector<TensorId> srcs = readable(true);
  if (srcs.empty()) return memsetStatement();
  const TensorId a = srcs[c_.below(srcs.size())];
  const DType adt = prog_.tensors[a].dtype;
  const bool fl = isFloat(adt);
  // dma here moves SBUF (or PSUM) data to SBUF, converting between f32 and bf16 now and then.
  Op op = std::array<Op, 5>{Op::Copy, Op::Act, Op::TT, Op::TS, Op::Dma}[weighted({6, 6, 8, 8, 3})];
  // affine_select is a copy with a mask (docs/format.md "Affine select"): it takes some of copy's draws, so programs
  // without copies keep their choice streams.
  if (op == Op::Copy && yes(35)) op = Op::Select;
  DType dstType = op == Op::Copy || op == Op::Select ? anyDType() : op == Op::Dma && fl && yes(40) ? otherFloat(adt) : adt;

  // The operation's shape: a sub-view of a (or all of it).
  uint32_t parts;
  uint64_t elems;
  chooseSubShape(a, parts, elems);
  if (elems * dtypeSize(dstType) > prog_.arch.sbuf_bytes) dstType = adt;  // a widening copy must still fit

  // Destination: a new tensor, or a view of a live tensor of the right dtype (never overlapping a source
  // except exactly, in place).
  std::vector<TensorId> dsts;
  for (TensorId t : pool_)
    if (prog_.tensors[t].dtype == dstType && prog_.tensors[t].partitions >= parts && prog_.tensors[t].elements >= elems)
      dsts.push_back(t);
  const bool intoExisting = !dsts.empty() && yes(35);
  const bool pieces = yes(40);  // piece by piece through a cover plan, on constant rectangles

  // Operator details.
  ActFunc func = ActFunc::Identity;
  if (op == Op::Act) {
    static const ActFunc kInt[] = {ActFunc::Identity, ActFunc::Relu, ActFunc::Neg, ActFunc::Abs, ActFunc::Square};
    static const ActFunc kFloat[] = {ActFunc::Identity, ActFunc::Relu,    ActFunc::Neg,  ActFunc::Abs,
                                     ActFunc::Square,   ActFunc::Exp,     ActFunc::Tanh, ActFunc::Sigmoid,
                                     ActFunc::Silu,     ActFunc::Gelu,    ActFunc::Sqrt, ActFunc::Rsqrt,
                                     ActFunc::Reciprocal, ActFunc::Log,    ActFunc::Sin,  ActFunc::Cos,
                                     ActFunc::Erf,      ActFunc::Softplus, ActFunc::GeluTanh, ActFunc::Sign,
                                     ActFunc::Arctan,   ActFunc::Mish};
    func = fl ? kFloat[c_.below(std::size(kFloat))] : kInt[c_.below(5)];
  }
  // act with scale and bias (func(x * scale + bias), float sources only): an immediate scale, a bias that is a
  // [P, 1] column (made below, like ts's scalar column) or an immediate.
  ScalarOperand scale = ScalarOperand::absent(), bias = ScalarOperand::absent();
  bool biasColumn = false;
  double actIn = op == Op::Act ? magOf(a) : 0;  // |x * scale + bias|, bounded
  if (op == Op::Act && fl && yes(35)) {
    if (yes(70)) {
      static const double kScales[] = {0.5, -1.0, 2.0, 0.125, 1.5, -0.25};
      scale.kind = ScalarOperand::Kind::Imm;
      scale.imm = floatImm(kScales[c_.below(std::size(kScales))]);
      actIn *= std::fabs(scale.imm.f);
    }
    if (scale.kind == ScalarOperand::Kind::None || yes(60)) {
      biasColumn = yes(60);
      bias.kind = ScalarOperand::Kind::Imm;
      bias.imm = floatImm(0.75);
      actIn += 0.75;  // a bias column is filled below with values of at most this size
    }
  }
  if (func == ActFunc::Exp && actIn > 20) func = ActFunc::Tanh;
  // affine_select's mask: small coefficients (causal, anti-causal, diagonal and band masks on the view's p and e), an
  // offset c that is a constant or uses a register; a fill representable in the destination's dtype.
  SelectMask mask;
  Immediate fill;
  double fillMag = 0;
  if (op == Op::Select) {
    static const int64_t kP[] = {1, -1, 0, 2}, kE[] = {-1, 1, 0};
    mask.p_scale = kP[c_.below(std::size(kP))];
    mask.e_scale = kE[c_.below(std::size(kE))];
    mask.cmp = CmpOp(c_.below(uint64_t(CmpOp::Lt) + 1));
    mask.c = Index::constantIndex(int64_t(upTo(8)) - 4);
    if (std::optional<RegId> r = yes(40) ? readableReg(32, false) : std::nullopt) mask.c.addTerm(*r, yes(50) ? 1 : -2);
    if (isFloat(dstType)) {
      // The most negative finite value of the dtype (NKI's nki.fp32.min) is one of them.
      const double lowest = dstType == DType::BF16 ? -3.3895313892515355e38 : -3.4028234663852886e38;
      const double kFills[] = {-9984.0, -HUGE_VAL, 0.0, lowest, HUGE_VAL, NAN, 1.5};
      fill = floatImm(kFills[c_.below(std::size(kFills))]);
      fillMag = std::isfinite(fill.f) ? std::fabs(fill.f) : HUGE_VAL;
    } else {
      fill = intImm(dstType == DType::I32 && yes(30) ? -1 : int64_t(upTo(100)));
    }
  }
  AluOp alu = AluOp::Add;
  if (op == Op::TT || op == Op::TS) {
    // add sub mul max min (any type), the integer-only and or xor shl shr, div (any type).
    alu = AluOp(c_.below(fl ? 6 : 11));
    if (fl && alu == AluOp::And) alu = AluOp::Div;
    if (fl && alu == AluOp::Mul && magOf(a) > 1e6) alu = AluOp::Max;
  }

  Rect ra{a, 0, parts, 0, uint32_t(elems)};
  std::optional<AccessPattern> va;
  if (pieces) {
    ra.p0 = uint32_t(upTo(prog_.tensors[a].partitions - parts));
    ra.e0 = uint32_t(upTo(prog_.tensors[a].elements - elems));
  } else {
    va = chooseView(a, parts, elems, true);
    if (!va) return;
  }

  // Second source for tt: same dtype and shape.
  TensorId b = kNone;
  Rect rb;
  std::optional<AccessPattern> vb;
  if (op == Op::TT) {
    std::vector<TensorId> bs;
    for (TensorId t : srcs)
      if (prog_.tensors[t].dtype == adt && prog_.tensors[t].partitions >= parts && prog_.tensors[t].elements >= elems)
        bs.push_back(t);
    b = bs[c_.below(bs.size())];  // a itself always qualifies
    rb = Rect{b, uint32_t(upTo(prog_.tensors[b].partitions - parts)), parts,
              uint32_t(upTo(prog_.tensors[b].elements - elems)), uint32_t(elems)};
    if (!pieces) vb = chooseView(b, parts, elems, true);
    if (!pieces && !vb) return;
  }

  // Scalar for ts.
  ScalarOperand scalar;
  double smag = 1;
  std::optional<AccessPattern> column;
  if (biasColumn) {
    column = scalarColumn(adt, parts, {a});
    // Only a column whose values are known small (a memset, or a reduction of a small tensor) keeps the bound.
    if (column && magOf(column->tensor) <= 0.75) bias.kind = ScalarOperand::Kind::Tensor;
    else column.reset();
  }
  if (op == Op::TS) {
    const bool shift = alu == AluOp::Shl || alu == AluOp::Shr;
    std::optional<RegId> reg = readableReg(32, false);
    switch (weighted({6, reg && !shift && !fl ? 3u : 0u, shift ? 0u : 3u})) {
      case 1:
        scalar.kind = ScalarOperand::Kind::Reg;
        scalar.reg = *reg;
        break;
      case 2:
        column = scalarColumn(adt, parts, {a, b});
        if (column) {
          scalar.kind = ScalarOperand::Kind::Tensor;
          smag = magOf(column->tensor);
          break;
        }
        [[fallthrough]];
      default:
        if (fl) {
          static const double kFloats[] = {1.0, 0.5, -1.0, 2.0, 0.125, 3.0};
          scalar.imm = floatImm(kFloats[c_.below(std::size(kFloats))]);
          smag = std::fabs(scalar.imm.f);
        } else {
          scalar.imm = intImm(shift ? int64_t(upTo(7)) : int64_t(upTo(1000)));
        }
    }
  }
  // A two-op ts, (A op s) op2 s2 (docs/format.md "Two-op ts"): the second scalar an immediate of the same kind.
  ScalarOperand scalar2 = ScalarOperand::absent();
  AluOp alu2 = AluOp::Add;
  if (op == Op::TS && yes(30)) {
    alu2 = AluOp(c_.below(fl ? 6 : 11));
    if (fl && alu2 == AluOp::And) alu2 = AluOp::Div;
    scalar2.kind = ScalarOperand::Kind::Imm;
    if (fl) {
      static const double kFloats[] = {0.25, -2.0, 1.5, 0.75};
      scalar2.imm = floatImm(kFloats[c_.below(std::size(kFloats))]);
    } else {
      scalar2.imm = intImm(alu2 == AluOp::Shl || alu2 == AluOp::Shr ? int64_t(upTo(7)) : int64_t(upTo(1000)));
    }
  }

  // Destination (chosen after the sources so that making room never retires them).
  const std::vector<TensorId> keep{a, b, column ? column->tensor : kNone};
  TensorId d;
  Rect rd;
  std::optional<AccessPattern> vd;
  bool fresh = false;
  // Making room for a fresh scalar column may have retired some candidates.
  std::erase_if(dsts, [&](TensorId t) { return std::find(pool_.begin(), pool_.end(), t) == pool_.end(); });
  if (intoExisting && !dsts.empty()) {
    d = dsts[c_.below(dsts.size())];
    rd = Rect{d, uint32_t(upTo(prog_.tensors[d].partitions - parts)), parts,
              uint32_t(upTo(prog_.tensors[d].elements - elems)), uint32_t(elems)};
    if (!pieces) vd = chooseView(d, parts, elems, true);
    if (!pieces && !vd) return;
  } else {
    fresh = true;
    d = newPoolTensor(parts, uint32_t(elems), dstType, keep);
    rd = wholeRect(d);
    if (!pieces) vd = whole(d);
  }
  // Reads and the write of one tensor must not partly overlap: make them identical (in place).
  if (d == a) {
    rd = ra;
    vd = va;
  }
  if (b == d) {
    rb = rd;
    vb = vd;
  }
  // A column operand that became the destination, or that cannot follow the pieces, turns into an immediate.
  // (act's bias keeps the immediate it was given; ts's scalar gets 1 here and keeps 0 in the piece-by-piece case.)
  auto dropColumn = [&](bool one) {
    if (op == Op::Act) bias.kind = ScalarOperand::Kind::Imm;
    else scalar.kind = ScalarOperand::Kind::Imm;
    if (one && op != Op::Act) scalar.imm = fl ? floatImm(1.0) : intImm(1);
    column.reset();
  };
  if (column && column->tensor == d) dropColumn(true);

  double mag = 0;
  switch (op) {
    case Op::Copy:
    case Op::Dma: mag = magOf(a); break;
    case Op::Select: mag = std::max(magOf(a), fillMag); break;
    case Op::Act: mag = actMag(func, actIn); break;
    case Op::TT: mag = aluMag(alu, magOf(a), magOf(b)); break;
    default: mag = aluMag(alu, magOf(a), smag);
  }
  if (scalar2.kind != ScalarOperand::Kind::None) mag = aluMag(alu2, mag, std::fabs(scalar2.imm.is_float ? scalar2.imm.f : double(scalar2.imm.i)));
  // A fused free-axis reduction (docs/format.md "Fused reduction") on a float act or ts over one whole view (not
  // piece by piece: each piece would reduce only its part): into a fresh [parts, 1] f32 or bf16 column.
  TensorId reduced = kNone;
  AluOp reduceAlu = AluOp::Add;
  if ((op == Op::Act || op == Op::TS) && fl && !pieces && yes(40)) {
    static const AluOp kReduce[] = {AluOp::Add, AluOp::Max, AluOp::Min};
    reduceAlu = kReduce[c_.below(3)];
    std::vector<TensorId> keepAll = keep;
    keepAll.push_back(d);
    reduced = newPoolTensor(parts, 1, yes(25) ? DType::BF16 : DType::F32, keepAll);
  }
  const bool inPlace = d == a || d == b;
  if (inPlace && trips() > 1 && func == ActFunc::Exp) {
    func = ActFunc::Tanh;  // exp of exp of ... overflows
    mag = 1;
  }

  auto build = [&](const AccessPattern& dst, const AccessPattern& src, const AccessPattern* second,
                   const Geo* g) {
    Instruction i;
    i.op = op;
    i.dst = dst;
    i.a = src;
    if (second) i.b = *second;
    i.func = func;
    i.alu = alu;
    i.scalar = scalar;
    if (scalar2.kind != ScalarOperand::Kind::None) i.rare.mut().scalar2 = scalar2;
    i.alu2 = alu2;
    if (scale.kind != ScalarOperand::Kind::None) i.rare.mut().scale = scale;
    if (bias.kind != ScalarOperand::Kind::None) i.rare.mut().bias = bias;
    if (reduced != kNone) {
      i.rare.mut().reduce_dst = whole(reduced);
      i.reduce_alu = reduceAlu;
    }
    if (op == Op::Select) {
      i.rare.mut().mask = mask;
      i.imm = fill;
    }
    // Act's bias or ts's scalar: made when the column is written.
    auto columnView = [&]() -> AccessPattern& { return op == Op::Act ? i.rare.mut().bias.ap.mut() : i.scalar.ap.mut(); };
    if (column) {
      if (g) {
        // The column follows the piece's partitions.
        Geo cg = *g;
        cg.off = Index{};
        cg.count = 1;
        cg.count2 = 1;
        cg.step2 = 0;
        Rect rc{column->tensor, uint32_t(column->partition.constant), parts, uint32_t(column->offset.constant), 1};
        if (column->partition.isConstant() && column->offset.isConstant()) columnView() = view(rc, cg);
        else columnView() = *column;
      } else {
        columnView() = *column;
      }
    }
    charge(uint64_t(dst.partitions) * dst.elementsPerPartition() * 4 * (second ? 3 : 2));
    emit(std::move(i));
  };

  if (pieces) {
    // A register-indexed column cannot follow the pieces: use it only for a whole-rectangle cover.
    if (column && !(column->partition.isConstant() && column->offset.isConstant())) dropColumn(false);
    cover(parts, uint32_t(elems), [&](const Geo& g) {
      AccessPattern sb = b == kNone ? AccessPattern{} : view(rb, g);
      build(view(rd, g), view(ra, g), b == kNone ? nullptr : &sb, &g);
    });
  } else {
    build(*vd, *va, vb ? &*vb : nullptr, nullptr);
  }
  const bool bounded = op == Op::Act && boundedAct(func);
  noteWrite(d, bounded ? actMag(func, 1.0) : mag, inPlace && !bounded);
  if (fresh) addToPool(d);
  if (reduced != kNone) {
    noteWrite(reduced, reduceAlu == AluOp::Add ? mag * double(elems) : mag, false);
    addToPool(reduced);
  }
}

void Generator::reduceStatement() {
  std::vector<TensorId> srcs = readable(true);
  if (srcs.empty()) return memsetStatement();
  const std::optional<SourceView> src = chooseSourceView(srcs);
  if (!src) return;
  const auto& [a, parts, elems, va] = *src;
  const DType dt = prog_.tensors[a].dtype;
  std::vector<TensorId> cols;
  for (TensorId t : pool_)
    if (t != a && prog_.tensors[t].dtype == dt && prog_.tensors[t].partitions >= parts) cols.push_back(t);
  Instruction i;
  i.op = Op::Reduce;
  i.a = va;
  static const AluOp kOps[] = {AluOp::Add, AluOp::Max, AluOp::Min};
  i.alu = kOps[c_.below(3)];
  double mag = i.alu == AluOp::Add ? magOf(a) * double(elems) : magOf(a);
  TensorId d;
  bool fresh = cols.empty() || !yes(40);
  if (fresh) {
    d = newPoolTensor(parts, 1, dt, {a});
    i.dst = whole(d);
  } else {
    d = cols[c_.below(cols.size())];
    auto v = chooseView(d, parts, 1, false);
    if (!v) return;
    i.dst = *v;
  }
  charge(uint64_t(parts) * elems * dtypeSize(dt));
  emit(std::move(i));
  noteWrite(d, mag, false);
  if (fresh) addToPool(d);
}
}  // namespace allocsim::gen
