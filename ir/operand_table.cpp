#include "ir/operand_table.h"

#include <iterator>
#include <stdexcept>
#include <utility>

namespace allocsim {
namespace {

using O = Operand;
using R = Role;

constexpr OperandUse kDst{O::Dst, R::Write, "destination"};
constexpr OperandUse kSource{O::A, R::Read, "source"};
constexpr OperandUse kSourceA{O::A, R::Read, "source a"};
constexpr OperandUse kSourceB{O::B, R::Read, "source b"};
constexpr OperandUse kReduceDst{O::ReduceDst, R::Write, "reduction destination"};
constexpr OperandUse kMaskC{O::MaskC, R::Read, "mask offset c"};
constexpr OperandUse kRd{O::Rd, R::Write, "destination"};

// One row per opcode, every operand it may have in the order it is written; operandUses leaves out the optional
// ones an instruction does not have.
constexpr OperandUse kCopyLike[] = {kDst, kSource};  // dma, copy, reduce, transpose, broadcast, bn_stats, bn_aggr
constexpr OperandUse kMatmul[] = {{O::Dst, R::Accumulate, "destination"}, {O::A, R::Read, "stationary"},
                                  {O::B, R::Read, "moving"}};
constexpr OperandUse kAct[] = {kDst, kSource, {O::Scale, R::Read, "scale"}, {O::Bias, R::Read, "bias"}, kReduceDst};
constexpr OperandUse kTT[] = {kDst, kSourceA, kSourceB};
constexpr OperandUse kTS[] = {kDst, kSource, {O::Scalar, R::Read, "scalar"}, {O::Scalar2, R::Read, "second scalar"},
                              kReduceDst};
constexpr OperandUse kMemset[] = {kDst};
constexpr OperandUse kLi[] = {kRd};
constexpr OperandUse kAddiMov[] = {kRd, {O::Rs, R::Read, "source"}};
constexpr OperandUse kAdd[] = {kRd, {O::Rs, R::Read, "first source"}, {O::Rt, R::Read, "second source"}};
constexpr OperandUse kRegLoad[] = {kRd, kSource};
constexpr OperandUse kRegStore[] = {kDst, {O::Rs, R::Read, "source"}};
constexpr OperandUse kLoop[] = {{O::Rd, R::Write, "loop register"}, {O::MaskC, R::Read, "bound"}};
constexpr OperandUse kSelect[] = {kDst, kSource, kMaskC};
constexpr OperandUse kIota[] = {kDst, kMaskC};
constexpr OperandUse kTTScan[] = {kDst, kSourceA, kSourceB, {O::Scalar, R::Read, "initial value"}};
constexpr OperandUse kIf[] = {{O::MaskC, R::Read, "condition"}};

struct Row {
  const OperandUse* uses;
  size_t n;
};
template <size_t N>
constexpr Row row(const OperandUse (&uses)[N]) {
  return {uses, N};
}

// Indexed by Op, in the enum's order.
constexpr Row kTable[] = {
    row(kCopyLike),  // dma
    row(kMatmul),    // matmul
    row(kCopyLike),  // copy
    row(kAct),       // act
    row(kTT),        // tt
    row(kTS),        // ts
    row(kCopyLike),  // reduce
    row(kMemset),    // memset
    row(kLi),        // li
    row(kAddiMov),   // addi
    row(kAdd),       // add
    row(kAddiMov),   // mov
    row(kRegLoad),   // reg_load
    row(kRegStore),  // reg_store
    row(kLoop),      // loop
    row(kSelect),    // affine_select
    row(kIota),      // iota
    row(kCopyLike),  // transpose
    row(kCopyLike),  // broadcast
    row(kTTScan),    // tt_scan
    row(kCopyLike),  // bn_stats
    row(kCopyLike),  // bn_aggr
    row(kIf),        // if
};
static_assert(std::size(kTable) == size_t(kLastOp) + 1, "one row per opcode");

const ScalarOperand* scalarField(const Instruction& inst, Operand o) {
  switch (o) {
    case O::Scalar: return &inst.scalar;
    case O::Scale: return &inst.rare->scale;
    case O::Bias: return &inst.rare->bias;
    case O::Scalar2: return &inst.rare->scalar2;
    default: return nullptr;
  }
}

// Whether `inst` has the optional operand `o` of its row.
bool present(const Instruction& inst, Operand o) {
  if (const ScalarOperand* s = scalarField(inst, o))
    return s->kind == ScalarOperand::Kind::Reg || s->kind == ScalarOperand::Kind::Tensor;
  if (o == O::ReduceDst) return hasFusedReduce(inst);
  return true;
}

// Rd, Rs, Rt and MaskC name no view.
bool isRegisterOperand(Operand o) { return o == O::Rd || o == O::Rs || o == O::Rt || o == O::MaskC; }

}  // namespace

OperandUses operandUses(const Instruction& inst) {
  OperandUses out;
  const Row& r = kTable[size_t(inst.op)];
  for (size_t k = 0; k < r.n; ++k)
    if (present(inst, r.uses[k].operand)) out.push_back(&r.uses[k]);
  return out;
}

const AccessPattern* operandView(const Instruction& inst, Operand o) {
  if (const ScalarOperand* s = scalarField(inst, o))
    return s->kind == ScalarOperand::Kind::Tensor ? &s->ap.get() : nullptr;
  return isRegisterOperand(o) ? nullptr : &operandOf(inst, o);
}

RegId operandRegister(const Instruction& inst, Operand o) {
  if (const ScalarOperand* s = scalarField(inst, o)) return s->kind == ScalarOperand::Kind::Reg ? s->reg : kNone;
  switch (o) {
    case O::Rd: return inst.rd;
    case O::Rs: return inst.rs;
    case O::Rt: return inst.rt;
    default: return kNone;
  }
}

const AccessPattern& operandOf(const Instruction& inst, Operand o) {
  if (const ScalarOperand* s = scalarField(inst, o)) return s->ap;
  switch (o) {
    case O::Dst: return inst.dst;
    case O::A: return inst.a;
    case O::B: return inst.b;
    case O::ReduceDst: return inst.rare->reduce_dst;
    default: throw std::invalid_argument("operandOf: not a view operand");
  }
}

AccessPattern& operandOf(Instruction& inst, Operand o) {
  return const_cast<AccessPattern&>(operandOf(std::as_const(inst), o));  // the same choice, on a mutable inst
}

}  // namespace allocsim
