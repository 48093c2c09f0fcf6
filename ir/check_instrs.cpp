// Static instruction rules (docs/format.md "Well-formedness", Instructions): operand spaces, shapes and
// dtypes, matmul geometry, register views, loop bounds. Everything that depends on register values is
// left to the abstract execution (check_trace.cpp), except that constant views are bounds-checked here so
// that instructions in loops that never run are still checked.
#include <climits>
#include <cmath>
#include <cstddef>

#include "ir/check_internal.h"
#include "ir/operand_table.h"
#include "ir/print.h"
#include "ir/values.h"

namespace allocsim::check {
namespace {

constexpr uint64_t kPeArraySize = 128;       // the PE array's rows and columns (NKI: nc_transpose takes at most 128 x 128)
constexpr uint64_t kMatmulMaxMoving = 512;   // a matmul's moving free size, one PSUM bank of f32
constexpr uint64_t kBnStatsMaxElements = 512;  // NKI's nl.tile_size.bn_stats_fmax

class InstrRules {
 public:
  InstrRules(const Program& p, const std::vector<Node>& nodes, uint32_t node, DiagSink& sink)
      : p_(p), nodes_(nodes), node_(node), in_(*nodes[node].inst), sink_(sink) {}

  // Checks the instruction; returns false when it refers to something that does not exist.
  bool run() {
    if (!references()) return false;
    if (!rules()) return true;
    constantBounds();
    return true;
  }

 private:
  bool fail(SourceLoc loc, const std::string& message) {
    sink_.report(sink_.nodeKey(node_), loc.known() ? loc : in_.loc, message);
    return false;
  }
  bool fail(const std::string& message) { return fail(in_.loc, message); }

  const Tensor& tensor(const AccessPattern& ap) const { return p_.tensors[ap.tensor]; }
  std::string name(const AccessPattern& ap) const { return quoted(tensor(ap).name); }
  std::string regName(RegId r) const { return quoted(p_.registers[r].name); }
  std::string viewShape(const AccessPattern& ap) const { return shapeText(ap.partitions, ap.elementsPerPartition()); }
  bool sameShape(const AccessPattern& x, const AccessPattern& y) const {
    return x.partitions == y.partitions && x.elementsPerPartition() == y.elementsPerPartition();
  }
  const char* op() const { return opName(in_.op); }

  // --- references: every tensor and register named exists, every view is non-empty -------------------

  bool reg(RegId r) {
    if (r < p_.registers.size()) return true;
    return fail("refers to register #" + std::to_string(r) + ", which is not declared");
  }
  bool view(const AccessPattern& ap) {
    if (ap.tensor >= p_.tensors.size())
      return fail(ap.loc, "refers to tensor #" + std::to_string(ap.tensor) + ", which is not declared");
    for (const Index* ix : {&ap.partition, &ap.offset})
      for (const IndexTerm& t : ix->terms)
        if (!reg(t.reg)) return false;
    if (ap.partitions < 1 || ap.count < 1 || ap.count2 < 1)
      return fail(ap.loc, "view of " + name(ap) + " is empty (partition count, element count and second count "
                          "must be >= 1)");
    return true;
  }

  // At most five views (act and ts: destination, source, two scalar tensors, fused reduction), kept inline: the
  // rules ask for them several times per instruction.
  InlineList<const AccessPattern*, 5> views() const {
    InlineList<const AccessPattern*, 5> out;
    for (const OperandUse* u : operandUses(in_))
      if (const AccessPattern* ap = operandView(in_, u->operand)) out.push_back(ap);
    return out;
  }

  // Every register the instruction names outside its views exists: the registers of an index (a loop's register
  // bound, the offset c of an affine_select or iota, an if's condition, read like address terms) first, then the
  // register operands.
  bool registersExist() {
    const OperandUses uses = operandUses(in_);
    for (const OperandUse* u : uses)
      if (u->operand == Operand::MaskC)
        for (const IndexTerm& t : in_.rare->mask.c.terms)
          if (!reg(t.reg)) return false;
    for (const OperandUse* u : uses)
      if (u->operand != Operand::MaskC && !operandView(in_, u->operand))
        if (!reg(operandRegister(in_, u->operand))) return false;
    return true;
  }

  bool references() {
    for (const AccessPattern* ap : views())
      if (!view(*ap)) return false;
    if (!registersExist()) return false;
    if (nodes_[node_].depth >= kMaxLoopDepth && hasBody(in_.op))
      return fail("loops and ifs are nested more than " + std::to_string(kMaxLoopDepth) + " deep");
    return true;
  }

  // --- the rules ------------------------------------------------------------------------------------

  bool onChip(const AccessPattern& ap) {
    if (tensor(ap).space != Space::Dram) return true;
    return fail(ap.loc, std::string(engineName(engineOf(in_.op))) + " cannot access DRAM tensor " + name(ap) +
                            "; move it with dma");
  }
  bool shapesMatch(const AccessPattern& dst, const AccessPattern& src, const char* srcRole) {
    if (sameShape(dst, src)) return true;
    return fail(src.loc, std::string(op()) + " shapes differ: destination " + name(dst) + " view " + viewShape(dst) +
                             ", " + srcRole + " " + name(src) + " view " + viewShape(src));
  }
  bool destination(const AccessPattern& ap) {
    if (!ap.hasSecondDim() || ap.step2 >= ap.count) return true;
    return fail(ap.loc, "destination view of " + name(ap) + " overlaps itself: second-dimension step " +
                            std::to_string(ap.step2) + " is less than its count " + std::to_string(ap.count));
  }
  bool integerOperand(const AccessPattern& ap) { return integerOperand(ap, in_.alu); }
  bool integerOperand(const AccessPattern& ap, AluOp alu) {
    if (!isFloat(tensor(ap).dtype)) return true;
    return fail(ap.loc, std::string(op()) + " " + aluName(alu) + " needs integer operands; " + name(ap) + " is " +
                            dtypeName(tensor(ap).dtype));
  }
  bool integerImmediate(const Immediate& imm, const AccessPattern& ap) {
    if (!imm.is_float || isFloat(tensor(ap).dtype)) return true;
    return fail(std::string(op()) + ": a float immediate cannot be used with integer tensor " + name(ap) + " (" +
                dtypeName(tensor(ap).dtype) + ")");
  }

  bool dma() {
    const AccessPattern &dst = in_.dst, &src = in_.a;
    if (tensor(dst).space == Space::Dram && tensor(src).space == Space::Dram)
      return fail("dma cannot copy DRAM to DRAM (" + name(src) + " to " + name(dst) + "); stage it through SBUF");
    if (!shapesMatch(dst, src, "source")) return false;
    // A converting DMA (f32 <-> bf16) is the one pair allowed: docs/format.md "Instructions".
    if (tensor(dst).dtype != tensor(src).dtype && !isConvertingDmaPair(tensor(dst).dtype, tensor(src).dtype))
      return fail("dma dtypes differ: destination " + name(dst) + " is " + dtypeName(tensor(dst).dtype) +
                  ", source " + name(src) + " is " + dtypeName(tensor(src).dtype) +
                  "; only f32 <-> bf16 converts");
    return destination(dst);
  }

  bool matmul() {
    const AccessPattern &dst = in_.dst, &st = in_.a, &mv = in_.b;
    if (tensor(dst).space != Space::Psum)
      return fail(dst.loc, "matmul destination " + name(dst) + " must be in PSUM, not " + spaceName(tensor(dst).space));
    if (tensor(st).space != Space::Sbuf)
      return fail(st.loc, "matmul stationary " + name(st) + " must be in SBUF, not " + spaceName(tensor(st).space));
    if (tensor(mv).space != Space::Sbuf)
      return fail(mv.loc, "matmul moving " + name(mv) + " must be in SBUF, not " + spaceName(tensor(mv).space));
    if (st.partitions != mv.partitions)
      return fail(mv.loc, "matmul stationary " + name(st) + " view " + viewShape(st) + " and moving " + name(mv) +
                              " view " + viewShape(mv) + " must have the same partition (contraction) count");
    if (dst.hasSecondDim())
      return fail(dst.loc, "matmul destination " + name(dst) + " must not have a second dimension");
    if (dst.partitions != st.elementsPerPartition() || dst.count != mv.elementsPerPartition())
      return fail(dst.loc, "matmul destination " + name(dst) + " view " + viewShape(dst) + " must be [M, N] = " +
                               shapeText(st.elementsPerPartition(), mv.elementsPerPartition()) +
                               " (stationary columns, moving columns)");
    DType ds = tensor(st).dtype, dm = tensor(mv).dtype, dd = tensor(dst).dtype;
    bool floats = isFloat(ds) && isFloat(dm) && dd == DType::F32;
    bool ints = !isFloat(ds) && !isFloat(dm) && (dd == DType::I32 || dd == DType::U32);
    if (!floats && !ints)
      return fail(std::string("matmul dtypes stationary ") + dtypeName(ds) + ", moving " + dtypeName(dm) +
                  ", destination " + dtypeName(dd) +
                  ": need float operands with f32 PSUM or integer operands with i32/u32 PSUM");
    if (nodes_[node_].loop == kNone && (in_.start == When::First || in_.stop == When::Last))
      return fail(std::string("matmul ") + (in_.start == When::First ? "start@first" : "stop@last") +
                  " needs an enclosing loop");
    return oneBank(dst);
  }

  // A PE destination with a constant view stays inside one PSUM bank (a register-indexed one is checked when it runs).
  bool oneBank(const AccessPattern& dst) {
    if (dst.hasRegister()) return true;
    std::optional<View> v = viewAt(p_, dst, dst.partition.constant, dst.offset.constant);
    auto [first, last] = v ? bankSpan(p_, dst, v->off) : std::pair<uint64_t, uint64_t>{0, 0};
    if (first != last) return fail(dst.loc, bankMessage(p_, dst, first, last));
    return true;
  }

  bool elementwise() {
    const AccessPattern& dst = in_.dst;
    for (const AccessPattern* ap : views())
      if (!onChip(*ap)) return false;
    if (!destination(dst)) return false;
    switch (in_.op) {
      case Op::Copy: return shapesMatch(dst, in_.a, "source");
      case Op::Act:
        if (!shapesMatch(dst, in_.a, "source")) return false;
        if (actIsFloatOnly(in_.func) && !isFloat(tensor(in_.a).dtype))
          return fail(in_.a.loc, std::string("act ") + actName(in_.func) + " needs a float source; " + name(in_.a) +
                                     " is " + dtypeName(tensor(in_.a).dtype));
        return actScaleBias() && fusedReduce();
      case Op::TT:
        if (!shapesMatch(dst, in_.a, "first source") || !shapesMatch(dst, in_.b, "second source")) return false;
        if (isFloat(tensor(in_.a).dtype) != isFloat(tensor(in_.b).dtype))
          return fail(in_.b.loc, "tt sources must both be float or both integer: " + name(in_.a) + " is " +
                                     dtypeName(tensor(in_.a).dtype) + ", " + name(in_.b) + " is " +
                                     dtypeName(tensor(in_.b).dtype));
        if (aluIsIntegerOnly(in_.alu)) return integerOperand(in_.a) && integerOperand(in_.b);
        return true;
      case Op::TS: return scalarOp() && fusedReduce();
      case Op::Reduce:
        if (in_.alu == AluOp::Sub || in_.alu == AluOp::Shl || in_.alu == AluOp::Shr || in_.alu == AluOp::Div ||
            aluIsComparison(in_.alu) || in_.alu == AluOp::Keep)
          return fail(std::string("reduce cannot use ") + aluName(in_.alu) + "; it reduces with add mul max min and or xor");
        if (dst.partitions != in_.a.partitions || dst.elementsPerPartition() != 1)
          return fail(dst.loc, "reduce destination " + name(dst) + " view " + viewShape(dst) + " must be " +
                                   shapeText(in_.a.partitions, 1) + " (one value per source partition)");
        return !aluIsIntegerOnly(in_.alu) || integerOperand(in_.a);
      case Op::Memset: return integerImmediate(in_.imm, dst);
      case Op::Select: return shapesMatch(dst, in_.a, "source") && selectFill();
      case Op::Iota: return true;  // any dtype: the i32 value converts as copy converts it
      case Op::TTScan: return scan();
      case Op::BnStats:
      case Op::BnAggr: return batchNorm();
      default: return true;
    }
  }

  bool floatOperand(const AccessPattern& ap, const char* role, const char* why) {
    if (isFloat(tensor(ap).dtype)) return true;
    return fail(ap.loc, std::string(op()) + " " + why + "; " + role + " " + name(ap) + " is " +
                            dtypeName(tensor(ap).dtype));
  }

  // tt_scan (docs/format.md "Tensor-tensor scan"): float sources and destination shape, arithmetic ops, INIT a
  // scalar operand as ts's (a [pc, 1] float view when a tensor).
  bool scan() {
    const AccessPattern& dst = in_.dst;
    if (!shapesMatch(dst, in_.a, "first source") || !shapesMatch(dst, in_.b, "second source")) return false;
    const char* why = "computes in f32 and needs float sources";
    if (!floatOperand(in_.a, "first source", why) || !floatOperand(in_.b, "second source", why)) return false;
    if (tensor(in_.a).space == Space::Psum && tensor(in_.b).space == Space::Psum)
      return fail(in_.b.loc, "tt_scan sources " + name(in_.a) + " and " + name(in_.b) +
                                 " cannot both be in PSUM (DVE reads at most one of them from PSUM)");
    for (AluOp alu : {in_.alu, in_.alu2})
      if (aluIsIntegerOnly(alu) || aluIsComparison(alu) || alu == AluOp::Keep)
        return fail(std::string("tt_scan cannot use ") + aluName(alu) + "; its operations are add sub mul max min div");
    const ScalarOperand& init = in_.scalar;
    if (init.kind == ScalarOperand::Kind::Tensor) {
      if (init.ap->partitions != dst.partitions || init.ap->elementsPerPartition() != 1)
        return fail(init.ap->loc, "tt_scan initial value " + name(init.ap) + " view " + viewShape(init.ap) +
                                      " must be " + shapeText(dst.partitions, 1) + " (one value per partition)");
      if (!floatOperand(init.ap, "initial value", "computes in f32 and needs a float initial value")) return false;
    }
    return true;
  }

  // bn_stats and bn_aggr (docs/format.md "Batch-norm statistics"): float source and destination; bn_stats reads at
  // most 512 elements per partition and writes [P, 6]; bn_aggr reads (count, mean, m2) tuples and writes [P, 2].
  bool batchNorm() {
    const AccessPattern &dst = in_.dst, &src = in_.a;
    const char* why = "computes in f32 and needs a float source";
    if (!floatOperand(src, "source", why)) return false;
    if (!floatOperand(dst, "destination", "writes f32 or bf16 statistics")) return false;
    const uint64_t per = src.elementsPerPartition();
    const bool stats = in_.op == Op::BnStats;
    if (stats && per > kBnStatsMaxElements)
      return fail(src.loc, "bn_stats source " + name(src) + " view " + viewShape(src) + " has " + std::to_string(per) +
                               " elements per partition; at most " + std::to_string(kBnStatsMaxElements) +
                               " (split it and merge the statistics with bn_aggr)");
    if (!stats && per % 3 != 0)
      return fail(src.loc, "bn_aggr source " + name(src) + " view " + viewShape(src) +
                               " must hold (count, mean, m2) tuples: its elements per partition must be a multiple of 3");
    const uint32_t want = stats ? 6 : 2;
    if (dst.partitions != src.partitions || dst.elementsPerPartition() != want)
      return fail(dst.loc, std::string(op()) + " destination " + name(dst) + " view " + viewShape(dst) + " must be " +
                               shapeText(src.partitions, want) +
                               (stats ? " (count, mean, m2 of the even and of the odd elements)" : " (mean, variance)"));
    return true;
  }

  // transpose and broadcast (docs/format.md "Transpose and broadcast"): PE instructions, SBUF to PSUM, within the
  // PE array's 128 x 128 (broadcast: one partition of at most 512 elements, a matmul's moving row), the destination
  // inside one PSUM bank.
  bool peMove() {
    const AccessPattern &dst = in_.dst, &src = in_.a;
    const bool tr = in_.op == Op::Transpose;
    if (tensor(src).space != Space::Sbuf)
      return fail(src.loc, std::string(op()) + " source " + name(src) + " must be in SBUF, not " +
                               spaceName(tensor(src).space));
    if (tensor(dst).space != Space::Psum)
      return fail(dst.loc, std::string(op()) + " destination " + name(dst) + " must be in PSUM, not " +
                               spaceName(tensor(dst).space));
    if (!destination(dst)) return false;
    const uint64_t per = src.elementsPerPartition();
    if (tr && per > kPeArraySize)
      return fail(src.loc, "transpose source " + name(src) + " view " + viewShape(src) + " has " + std::to_string(per) +
                               " elements per partition; the PE transposes at most " + std::to_string(kPeArraySize));
    if (!tr && src.partitions != 1)
      return fail(src.loc, "broadcast source " + name(src) + " view " + viewShape(src) +
                               " must be one partition (it is copied to every destination partition)");
    if (!tr && per > kMatmulMaxMoving)
      return fail(src.loc, "broadcast source " + name(src) + " view " + viewShape(src) + " has " + std::to_string(per) +
                               " elements; the PE broadcasts at most " + std::to_string(kMatmulMaxMoving));
    const uint64_t wantParts = tr ? per : dst.partitions, wantPer = tr ? src.partitions : per;
    if (dst.partitions != wantParts || dst.elementsPerPartition() != wantPer || (!tr && dst.partitions > kPeArraySize))
      return fail(dst.loc, std::string(op()) + " destination " + name(dst) + " view " + viewShape(dst) + " must be " +
                               (tr ? shapeText(per, src.partitions) + " (the source's shape transposed)"
                                   : "[M, " + std::to_string(per) + "] with M at most " + std::to_string(kPeArraySize)));
    return oneBank(dst);
  }

  bool scalarOp() {
    const AccessPattern& dst = in_.dst;
    if (!shapesMatch(dst, in_.a, "source")) return false;
    if (!scalarOperation(in_.scalar, in_.alu, "scalar")) return false;
    return !hasSecondOp(in_) || scalarOperation(in_.rare->scalar2, in_.alu2, "second scalar");
  }

  // One `op scalar` of ts (its first, or its second: docs/format.md "Two-op ts"): the rules of a one-op ts.
  bool scalarOperation(const ScalarOperand& s, AluOp alu, const char* role) {
    const AccessPattern& dst = in_.dst;
    if (s.kind == ScalarOperand::Kind::Tensor && (s.ap->partitions != dst.partitions || s.ap->elementsPerPartition() != 1))
      return fail(s.ap->loc, std::string("ts ") + role + " " + name(s.ap) + " view " + viewShape(s.ap) + " must be " +
                                shapeText(dst.partitions, 1) + " (one value per partition)");
    if (aluIsIntegerOnly(alu)) {
      if (!integerOperand(in_.a, alu)) return false;
      if (s.kind == ScalarOperand::Kind::Tensor && !integerOperand(s.ap, alu)) return false;
      if (s.kind == ScalarOperand::Kind::Imm && s.imm.is_float)
        return fail(std::string("ts ") + aluName(alu) + " needs integer operands; the immediate is a float");
    }
    if (s.kind == ScalarOperand::Kind::Imm) return integerImmediate(s.imm, in_.a) && integerImmediate(s.imm, dst);
    return true;
  }

  // act's and ts's fused reduction (docs/format.md "Fused reduction"): add, max or min, folded in f32, so a float
  // source; the destination R is a [pc, 1] float view (that it overlaps neither DST nor a source is checked on
  // every execution, check_trace.cpp).
  bool fusedReduce() {
    if (!hasFusedReduce(in_)) return true;
    const AccessPattern& r = in_.rare->reduce_dst;
    if (in_.reduce_alu != AluOp::Add && in_.reduce_alu != AluOp::Max && in_.reduce_alu != AluOp::Min)
      return fail(r.loc, std::string("a fused reduction takes add, max or min, not ") + aluName(in_.reduce_alu));
    if (!isFloat(tensor(in_.a).dtype))
      return fail(in_.a.loc, std::string(op()) + " with a fused reduction computes in f32 and needs a float source; " +
                                 name(in_.a) + " is " + dtypeName(tensor(in_.a).dtype));
    if (r.partitions != in_.dst.partitions || r.elementsPerPartition() != 1)
      return fail(r.loc, "reduction destination " + name(r) + " view " + viewShape(r) + " must be " +
                             shapeText(in_.dst.partitions, 1) + " (one value per partition)");
    if (!isFloat(tensor(r).dtype))
      return fail(r.loc, "reduction destination " + name(r) + " must be f32 or bf16, not " + dtypeName(tensor(r).dtype));
    return true;
  }

  // act's scale and bias (docs/format.md "Activation with scale and bias"): f32 arithmetic, so a float source; a
  // tensor scale or bias is a [pc, 1] float view; an immediate may be an integer (it converts to f32).
  bool actScaleBias() {
    if (!hasScaleOrBias(in_)) return true;
    if (!isFloat(tensor(in_.a).dtype))
      return fail(in_.a.loc, "act scale and bias compute in f32 and need a float source; " + name(in_.a) + " is " +
                                 dtypeName(tensor(in_.a).dtype));
    for (const ScalarOperand* s : scalarOperands(in_)) {
      const char* what = s == &in_.rare->scale ? "scale" : "bias";
      if (s->kind != ScalarOperand::Kind::Tensor) continue;
      if (s->ap->partitions != in_.dst.partitions || s->ap->elementsPerPartition() != 1)
        return fail(s->ap->loc, std::string("act ") + what + " " + name(s->ap) + " view " + viewShape(s->ap) +
                                   " must be " + shapeText(in_.dst.partitions, 1) + " (one value per partition)");
      if (!isFloat(tensor(s->ap).dtype))
        return fail(s->ap->loc, std::string("act ") + what + " " + name(s->ap) + " must be f32 or bf16, not " +
                                   dtypeName(tensor(s->ap).dtype));
    }
    return true;
  }

  // affine_select's fill value (docs/format.md "Affine select") must be representable in the destination's dtype: an
  // integer in its range for an integer destination; for a float one, an integer or float that rounds to a finite
  // value of that dtype, or inf, -inf, nan.
  bool selectFill() {
    const Immediate& f = in_.imm;
    const DType dt = tensor(in_.dst).dtype;
    const std::string fill = "affine_select fill " + printImmediate(f);
    if (!isFloat(dt)) {
      if (f.is_float)
        return fail(fill + " is a float; destination " + name(in_.dst) + " is " + dtypeName(dt) +
                    " (an integer fill is needed)");
      const int64_t lo = intTypeMin(dt), hi = intTypeMax(dt);
      if (f.i < lo || f.i > hi)
        return fail(fill + " is out of range of " + dtypeName(dt) + " (" + std::to_string(lo) + " to " +
                    std::to_string(hi) + "), the dtype of destination " + name(in_.dst));
      return true;
    }
    // Converted as the interpreter converts it (ir/values.h: to f32, then to bf16 for a bf16 destination).
    if (f.is_float && (std::isnan(f.f) || std::isinf(f.f))) return true;
    uint8_t bytes[4];
    storeF32(dt, bytes, immToF32(f));
    if (std::isinf(loadF32(dt, bytes)))
      return fail(fill + " is beyond the largest finite " + dtypeName(dt) + " of destination " + name(in_.dst) +
                  "; write inf or -inf for an infinite fill");
    return true;
  }

  bool registerView(const AccessPattern& ap, RegId r) {
    const Tensor& t = tensor(ap);
    if (t.space == Space::Psum)
      return fail(ap.loc, std::string(op()) + " cannot access PSUM tensor " + name(ap) +
                              "; registers move through SBUF or DRAM");
    if (ap.partitions != 1)
      return fail(ap.loc, std::string(op()) + " view of " + name(ap) + " must be one partition, not " +
                              std::to_string(ap.partitions));
    if (!isContiguous(ap)) return fail(ap.loc, std::string(op()) + " view of " + name(ap) + " must be contiguous");
    uint64_t bytes = ap.elementsPerPartition() * dtypeSize(t.dtype);
    uint64_t want = 4 * uint64_t(p_.registers[r].lanes());
    if (bytes != want)
      return fail(ap.loc, std::string(op()) + " view of " + name(ap) + " covers " + std::to_string(bytes) +
                              " bytes; register " + regName(r) + " (" + std::to_string(p_.registers[r].width) +
                              "-bit) needs exactly " + std::to_string(want));
    return true;
  }

  bool loop() {
    if (in_.step <= 0) return fail("loop step must be > 0, got " + std::to_string(in_.step));
    if (in_.lo < 0) return fail("loop start must be >= 0, got " + std::to_string(in_.lo));
    if (in_.hi > (int64_t(1) << 31))
      return fail(std::string(hasRegisterBound(in_) ? "loop end's largest value" : "loop end") +
                  " must be <= 2147483648, got " + std::to_string(in_.hi));
    return !hasRegisterBound(in_) || registerBound();
  }

  // A register bound names registers of enclosing loops only, and hi is its largest value over theirs (the parser
  // and setLoopBoundMaxima set it; a program built in code may not have).
  bool registerBound() {
    auto controller = [&](RegId r) -> const InstructionHead* {
      uint32_t depth = 0;
      for (uint32_t l = nodes_[node_].loop; l != kNone && depth < kMaxLoopDepth; l = nodes_[l].loop, ++depth)
        if (nodes_[l].inst->rd == r) return nodes_[l].inst;
      return nullptr;
    };
    RegId missing = kNone;
    std::optional<int64_t> max = loopBoundMaximum(in_.rare->mask.c, controller, &missing);
    if (!max)
      return fail("loop bound uses register " + regName(missing) +
                  ", which no enclosing loop counts with; a bound is on the registers of enclosing loops");
    if (*max != in_.hi)
      return fail("loop bound's largest value is " + std::to_string(*max) + ", but the loop records " +
                  std::to_string(in_.hi) + " (setLoopBoundMaxima)");
    return true;
  }

  // A register that an enclosing loop counts with must keep the loop's value for the whole body. The one writer
  // allowed is a reload (`reg_load ... !reload`, the REG colorer's spilled loop register, alloc/reg/reg_spill.h)
  // that gives it back the value it holds: the abstract run (check_trace.cpp) checks the value.
  bool notALoopRegister() {
    if (in_.op == Op::RegLoad && in_.origin == Origin::Reload) return true;
    RegId written = in_.rd;
    uint32_t depth = 0;
    for (uint32_t l = nodes_[node_].loop; l != kNone && depth < kMaxLoopDepth; l = nodes_[l].loop, ++depth) {
      const Instruction& loop = *nodes_[l].inst;
      if (loop.rd != written) continue;
      std::string where = loop.loc.known()
                              ? " (loop at " + std::to_string(loop.loc.line) + ":" + std::to_string(loop.loc.col) + ")"
                              : "";
      return fail("register " + regName(written) + " is written inside the loop it controls" + where);
    }
    return true;
  }

  bool rules() {
    switch (in_.op) {
      case Op::Dma: return dma();
      case Op::Matmul: return matmul();
      case Op::Copy:
      case Op::Act:
      case Op::TT:
      case Op::TS:
      case Op::Reduce:
      case Op::Memset:
      case Op::Select:
      case Op::Iota:
      case Op::TTScan:
      case Op::BnStats:
      case Op::BnAggr: return elementwise();
      case Op::Transpose:
      case Op::Broadcast: return peMove();
      case Op::Li:
      case Op::Addi:
        if (in_.imm.is_float) return fail(std::string(op()) + " needs an integer immediate");
        return notALoopRegister();
      case Op::Add:
      case Op::Mov: return notALoopRegister();
      case Op::RegLoad: return registerView(in_.a, in_.rd) && notALoopRegister();
      case Op::RegStore: return registerView(in_.dst, in_.rs) && destination(in_.dst);
      case Op::Loop: return loop() && notALoopRegister();
      case Op::If: return true;  // its condition's registers exist (references); their values are the run's
    }
    return true;
  }

  // Views without register terms can be bounds-checked once, here.
  void constantBounds() {
    for (const AccessPattern* ap : views()) {
      if (ap->hasRegister()) continue;
      if (viewAt(p_, *ap, ap->partition.constant, ap->offset.constant)) {
        if (!ap->tile || !ap->tile->isConstant()) continue;
        std::string problem = tileProblem(p_, *ap, ap->partition.constant, ap->tile->constant, ap->offset.constant);
        if (problem.empty()) continue;
        fail(ap->loc, problem);
        return;
      }
      fail(ap->loc, sliceText(p_, *ap, ap->partition.constant, ap->offset.constant) + " is out of bounds of tensor " +
                        name(*ap) + " " + shapeText(tensor(*ap).partitions, tensor(*ap).elements));
      return;
    }
  }

  const Program& p_;
  const std::vector<Node>& nodes_;
  uint32_t node_;
  const Instruction& in_;
  DiagSink& sink_;
};

}  // namespace

bool checkInstructions(const Program& p, const std::vector<Node>& nodes, DiagSink& sink) {
  bool usable = true;
  for (uint32_t i = 0; i < nodes.size(); ++i) usable = InstrRules(p, nodes, i, sink).run() && usable;
  return usable;
}

}  // namespace allocsim::check
