// The program model: one type for the input kernel, the allocated program and
// every pass between. Allocation adds placements and inserted instructions; nothing else changes shape,
// so an allocated program is printed, parsed and checked like any other (docs/format.md).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/arch.h"
#include "ir/compact_vector.h"
#include "ir/diag.h"
#include "ir/dtype.h"
#include "ir/heap_box.h"
#include "ir/inline_list.h"

namespace allocsim {

using TensorId = uint32_t;
using RegId = uint32_t;
constexpr uint32_t kNone = UINT32_MAX;

enum class Space : uint8_t { Dram, Sbuf, Psum };
const char* spaceName(Space s);

// Who made a tensor, register or instruction. Source items come from the input kernel; the rest were
// inserted by a pass and print with a "!origin" suffix so that an allocated program says what it added.
enum class Origin : uint8_t { Source, Spill, Reload, Coalesced, Partial, Copy };
const char* originName(Origin o);
std::optional<Origin> parseOrigin(const std::string& s);

// Where an allocator put a tensor. Which fields count depends on the tensor's space:
// SBUF: base partition + byte offset in each partition; PSUM: base bank; DRAM: byte offset.
struct Placement {
  uint32_t partition = 0;
  uint64_t offset = 0;
  uint32_t bank = 0;
  bool operator==(const Placement&) const = default;
};

struct Tensor {
  std::string name;
  Space space = Space::Sbuf;
  uint32_t partitions = 0;  // shape [partitions, elements]
  uint32_t elements = 0;     // per partition, all tiles together
  // A tile array (docs/format.md "Tile arrays"): `tiles` tiles of [partitions, elements / tiles], side by side
  // along the free axis; tile k is elements [k * tileElements(), (k + 1) * tileElements()). 1 for a plain tensor.
  uint32_t tiles = 1;
  DType dtype = DType::U32;
  bool input = false;   // DRAM only: filled before the program runs
  bool output = false;  // DRAM only: compared after the program runs
  bool pinned = false;  // its placement is fixed and must be kept by every allocator
  Origin origin = Origin::Source;
  // An inserted tensor (origin != Source) names the tensor whose value it holds: "!reload(a)". The verifier
  // recovers the unallocated program by reading such tensors as that one (docs/verification.md).
  TensorId copy_of = kNone;
  std::optional<Placement> placement;
  SourceLoc loc;

  uint32_t tileElements() const { return tiles > 1 ? elements / tiles : elements; }
  uint64_t bytesPerPartition() const { return uint64_t(elements) * dtypeSize(dtype); }
  uint64_t totalBytes() const { return bytesPerPartition() * partitions; }
  bool operator==(const Tensor&) const = default;
};

struct Register {
  std::string name;
  uint32_t width = 32;  // 32 or 64 bits: 1 or 2 physical lanes
  Origin origin = Origin::Source;
  // An inserted register (a REG spill's stand-in at one def or use, alloc/reg/) names the register whose value it
  // holds: "!reload(n)". The verifier reads it as that register (docs/verification.md).
  RegId copy_of = kNone;
  std::optional<uint32_t> phys;  // first physical register once allocated
  SourceLoc loc;

  uint32_t lanes() const { return width == 64 ? 2 : 1; }
  bool operator==(const Register&) const = default;
};

// One term of an index: scale * f(r), r the value of register reg read as unsigned and f(r) = (r // div) % mod:
// floor division by div (1: none), then the remainder modulo mod (0: none). A plain affine term has div 1, mod 0
// (docs/format.md "Access patterns").
struct IndexTerm {
  RegId reg = kNone;
  int64_t scale = 0;
  uint32_t div = 1;  // >= 1
  uint32_t mod = 0;  // 0: no remainder; otherwise >= 1
  bool operator==(const IndexTerm&) const = default;
  bool isAffine() const { return div == 1 && mod == 0; }
  // f(r): what the term multiplies its scale by.
  uint64_t apply(uint64_t r) const {
    r /= div;
    return mod ? r % mod : r;
  }
  // Terms are ordered by register, then div, then mod: the key under which addTerm merges.
  bool sameKey(const IndexTerm& o) const { return reg == o.reg && div == o.div && mod == o.mod; }
  bool keyBefore(const IndexTerm& o) const {
    return reg != o.reg ? reg < o.reg : div != o.div ? div < o.div : mod < o.mod;
  }
};

// An index in registers: constant + sum of scale * f(reg) (docs/format.md "Access patterns"), f the identity or a
// floor division and/or remainder (IndexTerm). Terms are kept sorted by (register, div, mod), each key once (addTerm
// merges), so that equal indexes compare equal and print the same way. A term whose scale is 0 is kept: the register
// is still read (it must be written before).
// At most this many register terms per index (a parse error beyond). Evaluation clamps every partial sum (ir/view.cpp),
// so the bound is not needed for exactness; it keeps an index's register reads few (the sequencer reads them at
// dispatch). Eight covers NKI views over a kernel's loops and the loops a tracer adds for views the format cannot
// write (five nested pooling and interpolation indices, for instance).
constexpr size_t kMaxIndexTerms = 8;
struct Index {
  CompactVector<IndexTerm> terms;  // one pointer: most indexes have no terms (ir/compact_vector.h)
  int64_t constant = 0;

  bool isConstant() const { return terms.empty(); }
  // True when every term is a plain scale * reg (no floor division, no remainder).
  bool isAffine() const;
  bool uses(RegId r) const;
  int64_t scaleOf(RegId r) const;  // the scale of r's plain term (no division or remainder); 0 when there is none
  // Adds scale * f(r), merging with an existing term of the same key. False (and no change) if the merged scale
  // overflows.
  bool addTerm(RegId r, int64_t scale, uint32_t div = 1, uint32_t mod = 0);
  // Re-sorts and merges the terms after their registers were renamed (e.g. by the verifier's reference map).
  void normalize();
  static Index constantIndex(int64_t c);
  static Index affine(RegId r, int64_t scale, int64_t constant = 0);
  bool operator==(const Index&) const = default;
};

// A view of a tensor: partitions [p, p + partitions) and, in each partition, the elements
//   offset + j * step2 + i   for j in [0, count2), i in [0, count)
// (count2 == 1 and step2 == 0 when there is no second dimension). The view's shape is
// [partitions, count * count2].
// (The 32-bit fields come first so that they pack: an instruction has eight views.)
struct AccessPattern {
  TensorId tensor = kNone;
  uint32_t partitions = 0;
  uint32_t count = 0;
  uint32_t step2 = 0;
  uint32_t count2 = 1;
  SourceLoc loc;
  Index partition;
  Index offset;
  // Set for a view of one tile, `q{i}[...]`: the tile it stays inside. `offset` is still the offset in the whole
  // row (tile * tileElements() + the offset written inside the tile), so every pass that reads offsets needs
  // nothing else; the tile is for the printer and for the checker's "stays inside its tile" rule.
  // On the heap: few views name a tile, and every instruction has eight views (ir/heap_box.h).
  HeapOptional<Index> tile;

  uint64_t elementsPerPartition() const { return uint64_t(count) * count2; }
  bool hasSecondDim() const { return count2 != 1; }
  bool hasRegister() const { return !partition.isConstant() || !offset.isConstant(); }
  bool operator==(const AccessPattern&) const = default;
};

// An immediate as written: integer or floating point. Converted to the operation's type when used.
struct Immediate {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  bool operator==(const Immediate& o) const;  // floats compare by bits, so NaN == NaN
};

// The scalar operand of `ts`, and act's scale and bias: an immediate, a register, or a [P, 1] per-partition tensor.
// None: an optional operand that was not given (act without scale or bias); it reads nothing.
struct ScalarOperand {
  enum class Kind : uint8_t { Imm, Reg, Tensor, None } kind = Kind::Imm;
  RegId reg = kNone;
  Immediate imm;
  // On the heap (ir/heap_box.h): an instruction has four scalar operands and most are not tensors.
  HeapValue<AccessPattern> ap;
  static ScalarOperand absent() {
    ScalarOperand s;
    s.kind = Kind::None;
    return s;
  }
  bool operator==(const ScalarOperand&) const = default;
};

enum class Op : uint8_t {
  Dma,       // dma dst, src
  Matmul,    // matmul psum, stationary, moving [start] [stop]
  Copy,      // copy dst, src
  Act,       // act dst, src, func
  TT,        // tt dst, a, b, alu
  TS,        // ts dst, a, scalar, alu
  Reduce,    // reduce dst, src, alu       (free axis -> [P, 1])
  Memset,    // memset dst, imm
  Li,        // li rd, imm
  Addi,      // addi rd, rs, imm
  Add,       // add rd, rs, rt
  Mov,       // mov rd, rs
  RegLoad,   // reg_load rd, ap
  RegStore,  // reg_store ap, rs
  Loop,      // loop r = lo, hi, step { body }   (hi may name enclosing loops' registers: hasRegisterBound)
  Select,    // affine_select dst, src, p=A, e=B, c=C, cmp, fill   (after Loop: older numberings keep their meaning)
  Iota,       // iota dst, p=A, e=B, c=C
  Transpose,  // transpose dst, src      (PE: [P, F] in SBUF to [F, P] in PSUM)
  Broadcast,  // broadcast dst, src      (PE: [1, N] in SBUF to [M, N] in PSUM)
  TTScan,     // tt_scan dst, a, b, init, op0, op1
  BnStats,    // bn_stats dst, src
  BnAggr,     // bn_aggr dst, src
  If,         // if LHS CMP RHS { body }: the body runs once when mask.c CMP 0 holds (mask.c = LHS - RHS)
};
constexpr Op kLastOp = Op::If;  // every Op is in [0, kLastOp]
// Instructions that hold a body: a loop runs it per iteration, an `if` once or not at all.
inline bool hasBody(Op op) { return op == Op::Loop || op == Op::If; }
const char* opName(Op op);

enum class Engine : uint8_t { PE, ACT, DVE, POOL, SP, DMA };
const char* engineName(Engine e);
inline Engine engineOf(Op op) {  // inline: the simulator asks several times per instruction
  switch (op) {
    case Op::Dma: return Engine::DMA;
    case Op::Matmul:
    case Op::Transpose:  // NKI's nc_transpose on the Tensor Engine
    case Op::Broadcast: return Engine::PE;  // NKI performs a partition broadcast as a matmul with ones
    case Op::Copy:
    case Op::Act: return Engine::ACT;
    case Op::TT:
    case Op::TS:
    case Op::Reduce:
    case Op::TTScan:
    case Op::BnStats:
    case Op::BnAggr: return Engine::DVE;
    case Op::Memset:
    case Op::Select:                     // NKI's affine_select runs on GpSimd
    case Op::Iota: return Engine::POOL;  // and so does its iota
    // Loop and If: the sequencer's own control flow (docs/format.md "Conditional blocks").
    default: return Engine::SP;
  }
}

// Div was added after the integer-only group, and the comparisons after Div, so that older numberings (fuzz inputs)
// keep their meaning. A comparison gives 1 where `a CMP b` holds and 0 elsewhere (NKI's nl.equal, nl.greater, ...);
// Keep gives a where b is nonzero and the additive identity (-0.0, integers 0) elsewhere, so that two kept values
// added select exactly (NKI's nl.where on a tile of values).
enum class AluOp : uint8_t { Add, Sub, Mul, Max, Min, And, Or, Xor, Shl, Shr, Div, Eq, Ne, Lt, Le, Gt, Ge, Keep };
constexpr AluOp kLastAlu = AluOp::Keep;  // every AluOp is in [0, kLastAlu]
const char* aluName(AluOp a);
std::optional<AluOp> parseAlu(const std::string& s);
bool aluIsIntegerOnly(AluOp a);  // and, or, xor, shl, shr
inline bool aluIsComparison(AluOp a) { return a >= AluOp::Eq && a <= AluOp::Ge; }  // eq ne lt le gt ge

// Log and the functions after it were added after Reciprocal so that older numberings (fuzz inputs) keep their meaning.
enum class ActFunc : uint8_t {
  Identity, Relu, Neg, Abs, Square, Exp, Tanh, Sigmoid, Silu, Gelu, Sqrt, Rsqrt, Reciprocal,
  Log, Sin, Cos, Erf, Softplus, GeluTanh, Sign, Arctan, Mish
};
constexpr ActFunc kLastActFunc = ActFunc::Mish;  // every ActFunc is in [0, kLastActFunc]
const char* actName(ActFunc f);
std::optional<ActFunc> parseAct(const std::string& s);
bool actIsFloatOnly(ActFunc f);  // all but identity relu neg abs square

// affine_select's comparison with 0 (docs/format.md "Affine select"): NKI's cmp_op greater_equal, greater, equal,
// not_equal, less_equal, less.
enum class CmpOp : uint8_t { Ge, Gt, Eq, Ne, Le, Lt };
const char* cmpName(CmpOp c);
std::optional<CmpOp> parseCmp(const std::string& s);

// affine_select's predicate: `p_scale * p + e_scale * e + c  CMP  0`, p the partition and e the element index within
// the destination view (NKI's channel_multiplier, pattern step and offset). `c` is an index like a view's offset, so
// it may use loop registers (a tile's row or column offset); its registers are read like address terms.
struct SelectMask {
  int64_t p_scale = 0;
  int64_t e_scale = 0;
  Index c;
  CmpOp cmp = CmpOp::Ge;
  bool operator==(const SelectMask&) const = default;
};
// Whether element (p, e) is kept (takes the source's value) for the evaluated offset c, in exact 128-bit arithmetic.
bool selectKeeps(const SelectMask& m, uint64_t p, uint64_t e, __int128 c);

// When a matmul's start (zero the accumulator) or stop (close the group) flag holds: always, never,
// or only on the first / last iteration of the innermost enclosing loop ("start@first", "stop@last"),
// which is how a K-loop accumulation is written without unrolling it.
enum class When : uint8_t { Never, Always, First, Last };

// The operands few instructions have: act's scale and bias, ts's second scalar, the fused reduction's destination,
// and the mask of affine_select, iota, if and register-bound loops. Kept behind one pointer in InstructionHead
// (`rare`, ir/heap_box.h): an instruction without them (most of them) holds no block, and a large program is held
// whole by every pass (and twice by the verifier, docs/verification.md "Scale").
struct RareOperands {
  // act only: func(x * scale + bias), docs/format.md "Activation with scale and bias"; None when not written.
  ScalarOperand scale = ScalarOperand::absent();
  ScalarOperand bias = ScalarOperand::absent();
  // ts only: the optional second operation, (A alu scalar) alu2 scalar2 (docs/format.md "Two-op ts"); scalar2 is
  // None when not written.
  ScalarOperand scalar2 = ScalarOperand::absent();
  // act and ts: the optional fused free-axis reduction of the result into a [P, 1] view (docs/format.md "Fused
  // reduction"), a second destination; reduce_dst.tensor is kNone when not written.
  AccessPattern reduce_dst;
  // affine_select (its fill value is `imm`) and iota (p, e and c only); if: its condition `mask.c CMP 0` (p_scale
  // and e_scale 0), its registers read like address terms; a loop's register bound (mask.c).
  SelectMask mask;
  bool operator==(const RareOperands&) const = default;
};

// Everything an instruction says but a loop's body. A pass that needs one instruction's operands without what is
// nested in it copies this part alone (withoutBody): a copy of a whole loop copies every instruction inside it.
// The one-byte fields come first so that they pack.
struct InstructionHead {
  Op op = Op::Copy;
  Origin origin = Origin::Source;
  AluOp alu = AluOp::Add;         // tt_scan: op0, with alu2 its op1
  AluOp alu2 = AluOp::Add;        // ts's second operation (rare->scalar2); tt_scan's op1
  AluOp reduce_alu = AluOp::Add;  // the fused reduction's operation (rare->reduce_dst)
  ActFunc func = ActFunc::Identity;
  When start = When::Never;
  When stop = When::Never;
  SourceLoc loc;
  uint32_t id = 0;  // position in a preorder walk of the program (Program::renumber); not printed

  RegId rd = kNone;  // li/addi/add/mov/reg_load destination; loop induction register
  RegId rs = kNone;  // addi/add/mov source, reg_store source
  RegId rt = kNone;  // add second source

  AccessPattern dst;  // every instruction that writes a tensor
  AccessPattern a;    // dma src, matmul stationary, the (first) source of the others, reg_load source
  AccessPattern b;    // matmul moving, tt and tt_scan second source
  ScalarOperand scalar;  // ts; tt_scan's initial value
  Immediate imm;  // memset value, affine_select fill value, li / addi immediate
  // Read through `rare->`, written through `rare.mut()` (which gives the instruction its block).
  RareValue<RareOperands> rare;

  // Loop bounds: rd = lo, lo+step, ... while < the upper bound. The upper bound is `hi`, unless it names registers
  // (hasRegisterBound): then it is rare->mask.c, evaluated on each entry of the loop, and `hi` is its largest value
  // over the enclosing loops' registers (loopBoundMaximum), which passes that do not run the program take.
  int64_t lo = 0, hi = 0, step = 1;

  bool operator==(const InstructionHead&) const = default;
};

struct Instruction : InstructionHead {
  std::vector<Instruction> body;  // a loop's or an if's

  bool operator==(const Instruction&) const = default;
};

// `i` with an empty body, copied without copying the body.
inline Instruction withoutBody(const Instruction& i) {
  Instruction copy;
  static_cast<InstructionHead&>(copy) = i;
  return copy;
}

struct Program {
  Arch arch;
  std::vector<Tensor> tensors;
  std::vector<Register> registers;
  std::vector<Instruction> body;

  TensorId findTensor(const std::string& name) const;  // kNone if absent
  RegId findRegister(const std::string& name) const;
  // Assigns Instruction::id in preorder (loops before their bodies). Returns the number of ids.
  uint32_t renumber();
  bool operator==(const Program&) const = default;
};

// The offset of a tile view (ap.tile set) inside its tile: ap.offset - tile * tileElements(), without the terms
// that cancel (docs/format.md "Tile arrays").
Index offsetInTile(const AccessPattern& ap, const Tensor& t);

// The scalar operands an instruction reads, in operand order: ts's scalar, then its second op's scalar when given;
// act's scale, then its bias, when given; tt_scan's initial value.
// Every pass that lists an instruction's operands goes through these, so a scalar is an operand like any other.
// At most two (ts: scalar, scalar2; act: scale, bias), kept inline: the simulator and interpreter ask for every
// instruction they run, and a heap list cost an allocation each time.
template <class T>
using ScalarOperandList = InlineList<T, 2>;
ScalarOperandList<const ScalarOperand*> scalarOperands(const Instruction& inst);
ScalarOperandList<ScalarOperand*> scalarOperands(Instruction& inst);
// The views `inst` holds, for passes that rewrite views in place: dst, a, b, then the views of its scalar
// operands (ts's scalar, its second scalar, act's scale and bias) and the fused reduction's destination where they
// are stored; null where they are not (an operand left at its default, which names no tensor and has no terms).
std::array<AccessPattern*, 8> storedViews(Instruction& inst);
// act with a scale or a bias.
bool hasScaleOrBias(const Instruction& inst);
// ts with a second operation (docs/format.md "Two-op ts").
bool hasSecondOp(const Instruction& inst);
// act or ts with a fused free-axis reduction into reduce_dst (docs/format.md "Fused reduction").
bool hasFusedReduce(const Instruction& inst);

// The whole-tensor view of `t`.
AccessPattern wholeTensor(const Program& p, TensorId t);
// The PSUM banks tensor `t` occupies: ceil(bytes per partition / bank bytes) (a bank spans every partition). 0 for an
// arch without bank bytes, which validateArch rejects.
uint64_t psumBankCount(const Arch& arch, const Tensor& t);
bool isFullAccess(const Program& p, const AccessPattern& ap);
// True when the view covers one byte range per partition with no gaps (no register term needed).
bool isContiguous(const AccessPattern& ap);

// A dma whose two sides have different dtypes (f32 <-> bf16): it converts values, it does not copy bytes, so no
// pass may treat it as a byte move (symbolic value flow, DMA optimization). False for unknown tensors.
bool isConvertingDma(const Program& p, const Instruction& inst);

// Calls f(inst) on every instruction, loop and if bodies included, in program order.
template <typename F>
void forEachInstruction(const std::vector<Instruction>& body, F&& f) {
  for (const Instruction& i : body) {
    f(i);
    if (hasBody(i.op)) forEachInstruction(i.body, f);
  }
}

// Calls f(view) on every view `inst` names a tensor through, as far as the tensor goes: dst, a and b (an operand the
// instruction does not use names no tensor, kNone), the scalar operands that are tensor views, the fused reduction's
// destination. `I` is Instruction (f may rewrite the views) or const Instruction.
template <class I, typename F>
void forEachOperandView(I& inst, F&& f) {
  f(inst.dst);
  f(inst.a);
  f(inst.b);
  for (auto* sc : scalarOperands(inst))
    if (sc->kind == ScalarOperand::Kind::Tensor) f(sc->ap);
  if (!hasFusedReduce(inst)) return;
  if constexpr (std::is_const_v<I>)
    f(inst.rare->reduce_dst);
  else
    f(inst.rare.mut().reduce_dst);
}

// Whether an if's condition holds for the evaluated difference c = LHS - RHS.
bool conditionHolds(CmpOp cmp, __int128 c);

// A loop whose upper bound names registers (`loop j = 0, i+1, 1`, docs/format.md "Loops with register bounds"):
// the bound is rare->mask.c and `hi` its largest value.
inline bool hasRegisterBound(const InstructionHead& i) { return i.op == Op::Loop && !i.rare->mask.c.terms.empty(); }
// The largest value of `bound` when each register it names counts through the loop `controller(r)` returns (the
// values lo, lo+step, ... below that loop's hi), each term taken at its own largest value (an upper bound when two
// terms share a register), clamped to +-2^62. nullopt when a register has no controller (*missing names it).
std::optional<int64_t> loopBoundMaximum(const Index& bound, const std::function<const InstructionHead*(RegId)>& controller,
                                        RegId* missing = nullptr);
// Sets `hi` of every loop with a register bound to loopBoundMaximum over the loops around it (outer bounds first).
// False when some bound names a register that no enclosing loop counts with (that loop's hi is left as it was).
bool setLoopBoundMaxima(Program& p);

}  // namespace allocsim
