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

// The choices elementwiseStatement makes, filled step by step in the order they are drawn.
struct ElementwisePlan {
  std::vector<TensorId> srcs;  // the readable tensors
  TensorId a = kNone;          // the first source
  DType adt = DType::F32;
  bool fl = false;  // a is a float tensor
  Op op = Op::Copy;
  DType dstType = DType::F32;
  uint32_t parts = 0;  // the operation's shape
  uint64_t elems = 0;
  std::vector<TensorId> dsts;  // live tensors the result may overwrite
  bool intoExisting = false;
  bool pieces = false;  // piece by piece through a cover plan, on constant rectangles
  // act
  ActFunc func = ActFunc::Identity;
  ScalarOperand scale = ScalarOperand::absent(), bias = ScalarOperand::absent();
  bool biasColumn = false;
  double actIn = 0;  // |x * scale + bias|, bounded
  // affine_select
  SelectMask mask;
  Immediate fill;
  double fillMag = 0;
  // tt and ts
  AluOp alu = AluOp::Add;
  ScalarOperand scalar;
  double smag = 1;
  ScalarOperand scalar2 = ScalarOperand::absent();
  AluOp alu2 = AluOp::Add;
  // Operands: a rectangle for the piece-by-piece case, a view otherwise.
  Rect ra;
  std::optional<AccessPattern> va;
  TensorId b = kNone;  // tt's second source
  Rect rb;
  std::optional<AccessPattern> vb;
  std::optional<AccessPattern> column;  // act's bias or ts's scalar as a [P, 1] tensor
  std::vector<TensorId> keep;           // what making room for the destination must not retire
  TensorId d = kNone;
  Rect rd;
  std::optional<AccessPattern> vd;
  bool fresh = false;  // d is a new tensor
  double mag = 0;      // bound on the result's magnitude
  TensorId reduced = kNone;  // the fused reduction's column
  AluOp reduceAlu = AluOp::Add;

  // A column operand that became the destination, or that cannot follow the pieces, turns into an immediate.
  // (act's bias keeps the immediate it was given; ts's scalar gets 1 when `one` and keeps 0 otherwise.)
  void dropColumn(bool one) {
    if (op == Op::Act) bias.kind = ScalarOperand::Kind::Imm;
    else scalar.kind = ScalarOperand::Kind::Imm;
    if (one && op != Op::Act) scalar.imm = fl ? floatImm(1.0) : intImm(1);
    column.reset();
  }
};

// copy / affine_select / act / tt / ts / on-chip dma of one source view (tt: two) into a new or live tensor, whole or
// piece by piece. Each step below makes one group of choices; the order of the steps is the order of the draws.
void Generator::elementwiseStatement() {
  ElementwisePlan p;
  p.srcs = readable(true);
  if (p.srcs.empty()) return memsetStatement();
  chooseElementwiseOp(p);
  chooseActivation(p);
  chooseSelectMask(p);
  chooseElementwiseAlu(p);
  if (!chooseElementwiseSources(p)) return;
  chooseBiasColumn(p);
  chooseTsScalar(p);
  chooseSecondTsScalar(p);
  if (!chooseElementwiseDestination(p)) return;
  p.mag = elementwiseMagnitude(p);
  chooseFusedReduction(p);
  const bool inPlace = p.d == p.a || p.d == p.b;
  if (inPlace && trips() > 1 && p.func == ActFunc::Exp) {
    p.func = ActFunc::Tanh;  // exp of exp of ... overflows
    p.mag = 1;
  }
  emitElementwise(p);
  const bool bounded = p.op == Op::Act && boundedAct(p.func);
  noteWrite(p.d, bounded ? actMag(p.func, 1.0) : p.mag, inPlace && !bounded);
  if (p.fresh) addToPool(p.d);
  if (p.reduced != kNone) {
    noteWrite(p.reduced, p.reduceAlu == AluOp::Add ? p.mag * double(p.elems) : p.mag, false);
    addToPool(p.reduced);
  }
}

// The first source a, the operation, the destination's dtype and the operation's shape (a sub-view of a); whether
// the result goes into a live tensor (collected here, before later steps change the pool) and piece by piece.
void Generator::chooseElementwiseOp(ElementwisePlan& p) {
  p.a = p.srcs[c_.below(p.srcs.size())];
  p.adt = prog_.tensors[p.a].dtype;
  p.fl = isFloat(p.adt);
  // dma here moves SBUF (or PSUM) data to SBUF, converting between f32 and bf16 now and then.
  p.op = std::array<Op, 5>{Op::Copy, Op::Act, Op::TT, Op::TS, Op::Dma}[weighted({6, 6, 8, 8, 3})];
  // affine_select is a copy with a mask (docs/format.md "Affine select"): it takes some of copy's draws, so programs
  // without copies keep their choice streams.
  if (p.op == Op::Copy && yes(35)) p.op = Op::Select;
  p.dstType = p.op == Op::Copy || p.op == Op::Select   ? anyDType()
              : p.op == Op::Dma && p.fl && yes(40) ? otherFloat(p.adt)
                                                   : p.adt;
  chooseSubShape(p.a, p.parts, p.elems);
  if (p.elems * dtypeSize(p.dstType) > prog_.arch.sbuf_bytes) p.dstType = p.adt;  // a widening copy must still fit

  // Destination candidates: views of live tensors of the right dtype (never overlapping a source except exactly, in
  // place).
  for (TensorId t : pool_)
    if (prog_.tensors[t].dtype == p.dstType && prog_.tensors[t].partitions >= p.parts &&
        prog_.tensors[t].elements >= p.elems)
      p.dsts.push_back(t);
  p.intoExisting = !p.dsts.empty() && yes(35);
  p.pieces = yes(40);
}

// act's function, and its scale and bias (func(x * scale + bias), float sources only): an immediate scale, a bias
// that is a [P, 1] column (made by chooseBiasColumn, like ts's scalar column) or an immediate. exp of a large input
// becomes tanh.
void Generator::chooseActivation(ElementwisePlan& p) {
  if (p.op == Op::Act) {
    static const ActFunc kInt[] = {ActFunc::Identity, ActFunc::Relu, ActFunc::Neg, ActFunc::Abs, ActFunc::Square};
    static const ActFunc kFloat[] = {ActFunc::Identity, ActFunc::Relu,    ActFunc::Neg,  ActFunc::Abs,
                                     ActFunc::Square,   ActFunc::Exp,     ActFunc::Tanh, ActFunc::Sigmoid,
                                     ActFunc::Silu,     ActFunc::Gelu,    ActFunc::Sqrt, ActFunc::Rsqrt,
                                     ActFunc::Reciprocal, ActFunc::Log,    ActFunc::Sin,  ActFunc::Cos,
                                     ActFunc::Erf,      ActFunc::Softplus, ActFunc::GeluTanh, ActFunc::Sign,
                                     ActFunc::Arctan,   ActFunc::Mish};
    p.func = p.fl ? kFloat[c_.below(std::size(kFloat))] : kInt[c_.below(5)];
  }
  p.actIn = p.op == Op::Act ? magOf(p.a) : 0;
  if (p.op == Op::Act && p.fl && yes(35)) {
    if (yes(70)) {
      static const double kScales[] = {0.5, -1.0, 2.0, 0.125, 1.5, -0.25};
      p.scale.kind = ScalarOperand::Kind::Imm;
      p.scale.imm = floatImm(kScales[c_.below(std::size(kScales))]);
      p.actIn *= std::fabs(p.scale.imm.f);
    }
    if (p.scale.kind == ScalarOperand::Kind::None || yes(60)) {
      p.biasColumn = yes(60);
      p.bias.kind = ScalarOperand::Kind::Imm;
      p.bias.imm = floatImm(0.75);
      p.actIn += 0.75;  // a bias column is filled with values of at most this size
    }
  }
  if (p.func == ActFunc::Exp && p.actIn > 20) p.func = ActFunc::Tanh;
}

// affine_select's mask: small coefficients (causal, anti-causal, diagonal and band masks on the view's p and e), an
// offset c that is a constant or uses a register; a fill representable in the destination's dtype.
void Generator::chooseSelectMask(ElementwisePlan& p) {
  if (p.op != Op::Select) return;
  static const int64_t kP[] = {1, -1, 0, 2}, kE[] = {-1, 1, 0};
  p.mask.p_scale = kP[c_.below(std::size(kP))];
  p.mask.e_scale = kE[c_.below(std::size(kE))];
  p.mask.cmp = CmpOp(c_.below(uint64_t(CmpOp::Lt) + 1));
  p.mask.c = Index::constantIndex(int64_t(upTo(8)) - 4);
  if (std::optional<RegId> r = yes(40) ? readableReg(32, false) : std::nullopt) p.mask.c.addTerm(*r, yes(50) ? 1 : -2);
  if (isFloat(p.dstType)) {
    // The most negative finite value of the dtype (NKI's nki.fp32.min) is one of them.
    const double lowest = p.dstType == DType::BF16 ? -3.3895313892515355e38 : -3.4028234663852886e38;
    const double kFills[] = {-9984.0, -HUGE_VAL, 0.0, lowest, HUGE_VAL, NAN, 1.5};
    p.fill = floatImm(kFills[c_.below(std::size(kFills))]);
    p.fillMag = std::isfinite(p.fill.f) ? std::fabs(p.fill.f) : HUGE_VAL;
  } else {
    p.fill = intImm(p.dstType == DType::I32 && yes(30) ? -1 : int64_t(upTo(100)));
  }
}

// tt's and ts's ALU op: add sub mul max min (any type), the integer-only and or xor shl shr, div (any type).
void Generator::chooseElementwiseAlu(ElementwisePlan& p) {
  if (p.op != Op::TT && p.op != Op::TS) return;
  p.alu = AluOp(c_.below(p.fl ? 6 : 11));
  if (p.fl && p.alu == AluOp::And) p.alu = AluOp::Div;
  if (p.fl && p.alu == AluOp::Mul && magOf(p.a) > 1e6) p.alu = AluOp::Max;
}

// Where the sources are read: a rectangle of a (piece by piece) or a view of it, and for tt a second source of the
// same dtype and shape. False if a view does not fit.
bool Generator::chooseElementwiseSources(ElementwisePlan& p) {
  p.ra = Rect{p.a, 0, p.parts, 0, uint32_t(p.elems)};
  if (p.pieces) {
    p.ra.p0 = uint32_t(upTo(prog_.tensors[p.a].partitions - p.parts));
    p.ra.e0 = uint32_t(upTo(prog_.tensors[p.a].elements - p.elems));
  } else {
    p.va = chooseView(p.a, p.parts, p.elems, true);
    if (!p.va) return false;
  }
  if (p.op != Op::TT) return true;
  std::vector<TensorId> bs;
  for (TensorId t : p.srcs)
    if (prog_.tensors[t].dtype == p.adt && prog_.tensors[t].partitions >= p.parts &&
        prog_.tensors[t].elements >= p.elems)
      bs.push_back(t);
  p.b = bs[c_.below(bs.size())];  // a itself always qualifies
  p.rb = Rect{p.b, uint32_t(upTo(prog_.tensors[p.b].partitions - p.parts)), p.parts,
              uint32_t(upTo(prog_.tensors[p.b].elements - p.elems)), uint32_t(p.elems)};
  if (!p.pieces) p.vb = chooseView(p.b, p.parts, p.elems, true);
  return p.pieces || p.vb;
}

// act's bias as a [P, 1] column, when chooseActivation asked for one.
void Generator::chooseBiasColumn(ElementwisePlan& p) {
  if (!p.biasColumn) return;
  p.column = scalarColumn(p.adt, p.parts, {p.a});
  // Only a column whose values are known small (a memset, or a reduction of a small tensor) keeps the bound.
  if (p.column && magOf(p.column->tensor) <= 0.75) p.bias.kind = ScalarOperand::Kind::Tensor;
  else p.column.reset();
}

// ts's scalar: an immediate, a 32-bit register (integer, not a shift) or a [P, 1] column.
void Generator::chooseTsScalar(ElementwisePlan& p) {
  if (p.op != Op::TS) return;
  const bool shift = p.alu == AluOp::Shl || p.alu == AluOp::Shr;
  std::optional<RegId> reg = readableReg(32, false);
  switch (weighted({6, reg && !shift && !p.fl ? 3u : 0u, shift ? 0u : 3u})) {
    case 1:
      p.scalar.kind = ScalarOperand::Kind::Reg;
      p.scalar.reg = *reg;
      break;
    case 2:
      p.column = scalarColumn(p.adt, p.parts, {p.a, p.b});
      if (p.column) {
        p.scalar.kind = ScalarOperand::Kind::Tensor;
        p.smag = magOf(p.column->tensor);
        break;
      }
      [[fallthrough]];
    default:
      if (p.fl) {
        static const double kFloats[] = {1.0, 0.5, -1.0, 2.0, 0.125, 3.0};
        p.scalar.imm = floatImm(kFloats[c_.below(std::size(kFloats))]);
        p.smag = std::fabs(p.scalar.imm.f);
      } else {
        p.scalar.imm = intImm(shift ? int64_t(upTo(7)) : int64_t(upTo(1000)));
      }
  }
}

// A two-op ts, (A op s) op2 s2 (docs/format.md "Two-op ts"): the second scalar an immediate of the same kind.
void Generator::chooseSecondTsScalar(ElementwisePlan& p) {
  if (p.op != Op::TS || !yes(30)) return;
  p.alu2 = AluOp(c_.below(p.fl ? 6 : 11));
  if (p.fl && p.alu2 == AluOp::And) p.alu2 = AluOp::Div;
  p.scalar2.kind = ScalarOperand::Kind::Imm;
  if (p.fl) {
    static const double kFloats[] = {0.25, -2.0, 1.5, 0.75};
    p.scalar2.imm = floatImm(kFloats[c_.below(std::size(kFloats))]);
  } else {
    p.scalar2.imm = intImm(p.alu2 == AluOp::Shl || p.alu2 == AluOp::Shr ? int64_t(upTo(7)) : int64_t(upTo(1000)));
  }
}

// The destination, chosen after the sources so that making room never retires them: a view of a live tensor or a
// new tensor. A destination that is also a source takes the source's exact view (in place: reads and the write of
// one tensor must not partly overlap). False if a view does not fit.
bool Generator::chooseElementwiseDestination(ElementwisePlan& p) {
  p.keep = {p.a, p.b, p.column ? p.column->tensor : kNone};
  // Making room for a fresh scalar column may have retired some candidates.
  std::erase_if(p.dsts, [&](TensorId t) { return std::find(pool_.begin(), pool_.end(), t) == pool_.end(); });
  if (p.intoExisting && !p.dsts.empty()) {
    p.d = p.dsts[c_.below(p.dsts.size())];
    p.rd = Rect{p.d, uint32_t(upTo(prog_.tensors[p.d].partitions - p.parts)), p.parts,
                uint32_t(upTo(prog_.tensors[p.d].elements - p.elems)), uint32_t(p.elems)};
    if (!p.pieces) p.vd = chooseView(p.d, p.parts, p.elems, true);
    if (!p.pieces && !p.vd) return false;
  } else {
    p.fresh = true;
    p.d = newPoolTensor(p.parts, uint32_t(p.elems), p.dstType, p.keep);
    p.rd = wholeRect(p.d);
    if (!p.pieces) p.vd = whole(p.d);
  }
  if (p.d == p.a) {
    p.rd = p.ra;
    p.vd = p.va;
  }
  if (p.b == p.d) {
    p.rb = p.rd;
    p.vb = p.vd;
  }
  if (p.column && p.column->tensor == p.d) p.dropColumn(true);
  return true;
}

// A bound on the magnitude of the result's values, from the operands' bounds.
double Generator::elementwiseMagnitude(const ElementwisePlan& p) const {
  double mag = 0;
  switch (p.op) {
    case Op::Copy:
    case Op::Dma: mag = magOf(p.a); break;
    case Op::Select: mag = std::max(magOf(p.a), p.fillMag); break;
    case Op::Act: mag = actMag(p.func, p.actIn); break;
    case Op::TT: mag = aluMag(p.alu, magOf(p.a), magOf(p.b)); break;
    default: mag = aluMag(p.alu, magOf(p.a), p.smag);
  }
  if (p.scalar2.kind != ScalarOperand::Kind::None)
    mag = aluMag(p.alu2, mag, std::fabs(p.scalar2.imm.is_float ? p.scalar2.imm.f : double(p.scalar2.imm.i)));
  return mag;
}

// A fused free-axis reduction (docs/format.md "Fused reduction") on a float act or ts over one whole view (not piece
// by piece: each piece would reduce only its part): into a fresh [parts, 1] f32 or bf16 column.
void Generator::chooseFusedReduction(ElementwisePlan& p) {
  if (!((p.op == Op::Act || p.op == Op::TS) && p.fl && !p.pieces && yes(40))) return;
  static const AluOp kReduce[] = {AluOp::Add, AluOp::Max, AluOp::Min};
  p.reduceAlu = kReduce[c_.below(3)];
  std::vector<TensorId> keepAll = p.keep;
  keepAll.push_back(p.d);
  p.reduced = newPoolTensor(p.parts, 1, yes(25) ? DType::BF16 : DType::F32, keepAll);
}

// Emits the instruction over the whole view, or one per piece of a cover plan.
void Generator::emitElementwise(ElementwisePlan& p) {
  if (!p.pieces) {
    emitElementwiseInstruction(p, *p.vd, *p.va, p.vb ? &*p.vb : nullptr, nullptr);
    return;
  }
  // A register-indexed column cannot follow the pieces: use it only for a whole-rectangle cover.
  if (p.column && !(p.column->partition.isConstant() && p.column->offset.isConstant())) p.dropColumn(false);
  cover(p.parts, uint32_t(p.elems), [&](const Geo& g) {
    AccessPattern sb = p.b == kNone ? AccessPattern{} : view(p.rb, g);
    emitElementwiseInstruction(p, view(p.rd, g), view(p.ra, g), p.b == kNone ? nullptr : &sb, &g);
  });
}

// One instruction of the plan on the given views; g is the piece's geometry (null for a whole view), which a
// scalar column follows.
void Generator::emitElementwiseInstruction(const ElementwisePlan& p, const AccessPattern& dst,
                                           const AccessPattern& src, const AccessPattern* second, const Geo* g) {
  Instruction i;
  i.op = p.op;
  i.dst = dst;
  i.a = src;
  if (second) i.b = *second;
  i.func = p.func;
  i.alu = p.alu;
  i.scalar = p.scalar;
  if (p.scalar2.kind != ScalarOperand::Kind::None) i.rare.mut().scalar2 = p.scalar2;
  i.alu2 = p.alu2;
  if (p.scale.kind != ScalarOperand::Kind::None) i.rare.mut().scale = p.scale;
  if (p.bias.kind != ScalarOperand::Kind::None) i.rare.mut().bias = p.bias;
  if (p.reduced != kNone) {
    i.rare.mut().reduce_dst = whole(p.reduced);
    i.reduce_alu = p.reduceAlu;
  }
  if (p.op == Op::Select) {
    i.rare.mut().mask = p.mask;
    i.imm = p.fill;
  }
  if (p.column) {
    // Act's bias or ts's scalar.
    AccessPattern& columnView = p.op == Op::Act ? i.rare.mut().bias.ap.mut() : i.scalar.ap.mut();
    columnView = *p.column;
    if (g && p.column->partition.isConstant() && p.column->offset.isConstant()) {
      // The column follows the piece's partitions.
      Geo cg = *g;
      cg.off = Index{};
      cg.count = 1;
      cg.count2 = 1;
      cg.step2 = 0;
      Rect rc{p.column->tensor, uint32_t(p.column->partition.constant), p.parts, uint32_t(p.column->offset.constant),
              1};
      columnView = view(rc, cg);
    }
  }
  charge(uint64_t(dst.partitions) * dst.elementsPerPartition() * 4 * (second ? 3 : 2));
  emit(std::move(i));
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
