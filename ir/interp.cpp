#include "ir/interp.h"

#include <algorithm>
#include <new>
#include <optional>
#include <memory>
#include <span>
#include <string>

#include "ir/hash.h"
#include "ir/memory_available.h"
#include "ir/inputs.h"
#include "ir/kernels.h"
#include "ir/release_schedule.h"
#include "ir/view.h"

namespace allocsim {
namespace {

// `n` copies of the `size`-byte element `elem`: a constant-size copy per element, which the compiler inlines (a
// memcpy of a run-time size is a libc call per element: 18% of the interpreter's profile on bench/sim_speed).
void fillElements(uint8_t* out, size_t n, const uint8_t* elem, size_t size) {
  switch (size) {
    case 4:
      for (size_t e = 0; e < n; ++e) std::memcpy(out + 4 * e, elem, 4);
      return;
    case 2:
      for (size_t e = 0; e < n; ++e) std::memcpy(out + 2 * e, elem, 2);
      return;
    default:
      for (size_t e = 0; e < n; ++e) std::memcpy(out + e * size, elem, size);
  }
}

std::string shapeText(const ResolvedView& v) {
  return "[" + std::to_string(v.partitions) + ", " + std::to_string(v.perPartition()) + "]";
}

// Scratch buffers only grow: a resize to a smaller size and back would zero-fill the difference again on every
// instruction (it was the interpreter's and the simulator's largest single cost). Returns room for n elements.
template <typename T>
T* grow(std::vector<T>& buf, size_t n) {
  if (buf.size() < n) buf.resize(n);
  return buf.data();
}

// Values of one operand in its computation class: floats or integers, never both.
struct ClassBuffer {
  std::vector<float> f;
  std::vector<uint32_t> i;
};

// Whether a register's value may come from a tensor's (InterpOptions::values).
bool hasRegLoad(const std::vector<Instruction>& body) {
  bool found = false;
  forEachInstruction(body, [&](const Instruction& i) { found = found || i.op == Op::RegLoad; });
  return found;
}

class Executor {
 public:
  Executor(const Program& p, Storage& s, const InterpOptions& o, uint64_t max_view_bytes)
      : p_(p), s_(s), o_(o), max_view_bytes_(max_view_bytes), values_(o.values || hasRegLoad(p.body)) {}

  struct LoopPosition {
    bool first, last;
  };

  // One instruction, with its writes kept in `defer` when given (InstructionStepper), applied otherwise.
  uint64_t stepOne(const Instruction& inst, const LoopPosition* loop, PendingWrites* defer, bool hash,
                   const KnownViews* known) {
    defer_ = defer;
    known_ = known;
    OperandHasher h(hash);
    try {
      execute(inst, loop, h);
    } catch (...) {
      defer_ = nullptr, known_ = nullptr;
      throw;
    }
    defer_ = nullptr, known_ = nullptr;
    return h.digest();
  }
  bool conditionHeld() const { return condition_held_; }

  InterpResult run() {
    if (!o_.release_dead) {
      loadInputs();
      runBody(p_.body, nullptr);
    } else {
      // Inputs of their own (unplaced DRAM: nothing else shares their bytes) are loaded just before the first
      // statement that names them, the rest before the run.
      const ReleaseSchedule schedule(p_);
      for (TensorId t = 0; t < p_.tensors.size(); ++t)
        if (!schedule.loadsLate(t)) loadInput(t);
      for (size_t i = 0; i < p_.body.size(); ++i) {
        for (TensorId t : schedule.before(i)) loadInput(t);
        runBody(std::span(p_.body).subspan(i, 1), nullptr);
        for (TensorId t : schedule.after(i)) {
          s_.release(t);
          if (o_.observer) o_.observer->onRelease(t);
        }
        if (o_.observer)
          for (TensorId t : schedule.finalAfter(i)) o_.observer->onOutputFinal(t);
        if (o_.output_sink)
          for (TensorId t : schedule.finalAfter(i))
            if (!p_.tensors[t].placement) storeOutput(t);  // its own storage: nothing else writes its bytes any more
      }
    }
    storeOutputs();
    return std::move(result_);
  }


  void loadInputs() {
    for (TensorId t = 0; t < p_.tensors.size(); ++t) loadInput(t);
  }
  void loadInput(TensorId t) {
    if (!values_) {  // what inputBytes would give bytes to (InterpOptions::values)
      const Tensor& tensor = p_.tensors[t];
      if (tensor.input && tensor.space == Space::Dram && tensor.partitions > 0 && tensor.elements > 0 && o_.observer)
        o_.observer->onInput(t);
      return;
    }
    const std::vector<uint8_t> input = inputBytes(p_.tensors[t], o_.input_seed);
    if (input.empty()) return;
    const uint64_t bpp = p_.tensors[t].bytesPerPartition();
    for (uint32_t q = 0; q < p_.tensors[t].partitions; ++q) std::copy_n(input.data() + q * bpp, bpp, s_.row(t, q));
    if (o_.observer) o_.observer->onInput(t);
  }

  void storeOutputs() {
    result_.outputs.resize(p_.tensors.size());
    for (TensorId t = 0; t < p_.tensors.size(); ++t)
      if (p_.tensors[t].output && !(t < stored_.size() && stored_[t])) storeOutput(t);
  }
  // Output t's bytes into InterpResult::outputs or the output sink (once).
  void storeOutput(TensorId t) {
    const Tensor& tensor = p_.tensors[t];
    if (o_.output_sink) {
      if (stored_.empty()) stored_.assign(p_.tensors.size(), false);
      stored_[t] = true;
    }
    if (!values_) return;
    uint64_t bpp = tensor.bytesPerPartition();
    std::vector<uint8_t> bytes;
    std::vector<uint8_t>& out = o_.output_sink ? bytes : result_.outputs[t];
    out.resize(tensor.partitions * bpp);
    for (uint32_t q = 0; q < tensor.partitions; ++q) std::copy_n(s_.row(t, q), bpp, out.data() + q * bpp);
    if (o_.release_dead) s_.release(t);  // copied: the storage's bytes are not needed twice
    if (o_.output_sink) o_.output_sink->onOutput(t, std::move(bytes));
  }

  void step(const Instruction& inst) {
    if (++result_.steps > o_.max_steps)
      throw InputError(inst.loc, "execution did not finish within " + std::to_string(o_.max_steps) + " steps");
    if (o_.progress && result_.steps % kProgressSteps == 0) (*o_.progress)(o_.progress_phase, result_.steps, "steps");
  }

  void runBody(std::span<const Instruction> body, const LoopPosition* loop) {
    for (const Instruction& inst : body) {
      if (o_.source_only && inst.origin != Origin::Source) continue;
      if (inst.op == Op::Loop) {
        runLoop(inst);
        continue;
      }
      step(inst);
      try {
        // Nobody reads the digest otherwise; an access-only run reads no value to hash.
        OperandHasher h(values_ && (o_.record_reads || o_.observer || o_.read_sink));
        clearAccess();
        execute(inst, loop, h);
        if (values_ && o_.record_reads) result_.reads.push_back({inst.id, h.digest()});
        if (values_ && o_.read_sink) o_.read_sink->onRead({inst.id, h.digest()});
        if (o_.observer) {
          access_.operand_hash = values_ ? h.digest() : 0;
          o_.observer->onExecute(inst, result_.steps, access_);
        }
      } catch (const std::bad_alloc&) {
        throw outOfMemory(inst);
      }
      // An if's body runs in the enclosing loop's iteration: start@first and stop@last keep meaning that loop.
      if (inst.op == Op::If && condition_held_) runBody(inst.body, loop);
    }
  }

  // What ran out of memory: the step, the instruction (its location) and the tensors it names.
  InputError outOfMemory(const Instruction& inst) const {
    std::string tensors;
    for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b, &inst.scalar.ap.get(), &inst.rare->scalar2.ap.get(), &inst.rare->scale.ap.get(),
                                    &inst.rare->bias.ap.get(), &inst.rare->reduce_dst}) {
      if (ap->tensor >= p_.tensors.size()) continue;
      const std::string name = "'" + p_.tensors[ap->tensor].name + "'";
      if (tensors.find(name) != std::string::npos) continue;
      tensors += (tensors.empty() ? "" : ", ") + name;
    }
    return InputError(inst.loc, "out of memory at step " + std::to_string(result_.steps) + ", executing " +
                                    opName(inst.op) + (tensors.empty() ? "" : " on " + tensors) +
                                    ": the tensors in use need more memory than this machine can give" +
                                    outOfMemoryDetail());
  }

  void runLoop(const Instruction& inst) {
    RegId r = reg(inst, inst.rd);
    if (inst.step <= 0) throw InputError(inst.loc, "loop step must be positive, got " + std::to_string(inst.step));
    const __int128 hi = upperBound(inst);
    __int128 v = inst.lo;  // 128 bits: v + step cannot overflow
    for (; v < hi; v += inst.step) {
      step(inst);
      s_.writeReg(r, uint64_t(int64_t(v)));
      if (o_.observer) {
        clearAccess();
        if (v == inst.lo)  // the first iteration's step also reads the bound's registers
          for (const IndexTerm& t : inst.rare->mask.c.terms) access_.reg_reads.push_back(t.reg);
        access_.reg_writes.push_back(r);
        o_.observer->onExecute(inst, result_.steps, access_);
      }
      LoopPosition pos{v == inst.lo, v + inst.step >= hi};
      runBody(inst.body, &pos);
    }
    s_.writeReg(r, uint64_t(int64_t(v)));  // hi + step - 1 at most: wraps like the register would
  }

  // A loop's upper bound on this entry: hi, or its register bound (docs/format.md "Loops with register bounds"),
  // evaluated once, never above hi. Like the loop register's own writes, it is no operand read (the trips it gives
  // show in the reads of the body).
  __int128 upperBound(const Instruction& inst) {
    if (!hasRegisterBound(inst)) return inst.hi;
    OperandHasher h(false);
    return std::min<__int128>(evaluateIndex(p_, s_, inst.rare->mask.c, inst.loc, h), inst.hi);
  }

  RegId reg(const Instruction& inst, RegId r) const {
    if (r >= p_.registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    return r;
  }
  uint64_t readReg(const Instruction& inst, RegId r, OperandHasher& h) {
    uint64_t v = s_.readReg(reg(inst, r));
    h.u64(v);
    if (o_.observer) access_.reg_reads.push_back(r);
    return v;
  }
  void writeReg(const Instruction& inst, RegId r, uint64_t v) {
    if (defer_) defer_->regs.emplace_back(reg(inst, r), v);
    else s_.writeReg(reg(inst, r), v);
    if (o_.observer) access_.reg_writes.push_back(r);
  }

  enum class Role { Read, Write, ReadWrite };
  ResolvedView resolve(const AccessPattern& ap, OperandHasher& h, Role role = Role::Read) {
    const ResolvedView* known = known_ ? known_->find(ap) : nullptr;
    ResolvedView v = known ? *known : resolveView(p_, s_, ap, max_view_bytes_, h);
    if (known) {  // hashed as resolveView hashes an index with registers: its value, in 128 bits (>= 0 here)
      if (!ap.partition.terms.empty()) h.u64(v.partition), h.u64(0);
      if (!ap.offset.terms.empty()) h.u64(v.offset), h.u64(0);
    }
    if (o_.observer) {
      for (const Index* ix : {&ap.partition, &ap.offset})
        for (const IndexTerm& t : ix->terms) access_.reg_reads.push_back(t.reg);
      if (role != Role::Write) access_.reads.push_back(v);
      if (role != Role::Read) access_.writes.push_back(v);
    }
    return v;
  }
  // Every write of an instruction goes through here: applied now, or kept for InstructionStepper::commit.
  void put(const ResolvedView& dst, const uint8_t* bytes) {
    if (!defer_) return scatterView(s_, dst, bytes);
    PendingWrites::View& w = defer_->add();
    w.view = dst;
    w.bytes.assign(bytes, bytes + dst.bytes());
  }
  // The bytes of a source view, hashed.
  const uint8_t* read(const ResolvedView& v, std::vector<uint8_t>& buf, OperandHasher& h) {
    uint8_t* bytes = grow(buf, v.bytes());
    gatherView(s_, v, bytes);
    h.bytes(bytes, v.bytes());
    return bytes;
  }
  static void decode(const ResolvedView& v, const uint8_t* bytes, NumClass c, ClassBuffer& out) {
    if (c == NumClass::Float) decodeF32(v.dtype, bytes, v.elements(), grow(out.f, v.elements()));
    else decodeInt(v.dtype, bytes, v.elements(), c, grow(out.i, v.elements()));
  }
  // Converts `in` (elements of class c) to dst's dtype and writes them.
  void write(const ResolvedView& dst, NumClass c, const ClassBuffer& in) {
    uint8_t* out = grow(out_bytes_, dst.bytes());
    if (c == NumClass::Float) encodeF32(dst.dtype, in.f.data(), dst.elements(), out);
    else encodeInt(dst.dtype, in.i.data(), dst.elements(), c, out);
    put(dst, out);
  }
  static void requireShape(const ResolvedView& v, const AccessPattern& ap, uint64_t partitions, uint64_t perPartition,
                           const char* what) {
    if (v.partitions != partitions || v.perPartition() != perPartition)
      throw InputError(ap.loc, std::string(what) + " has shape " + shapeText(v) + ", expected [" +
                                   std::to_string(partitions) + ", " + std::to_string(perPartition) + "]");
  }
  static void requireSameShape(const ResolvedView& v, const AccessPattern& ap, const ResolvedView& dst) {
    requireShape(v, ap, dst.partitions, dst.perPartition(), "source");
  }

  void execute(const Instruction& inst, const LoopPosition* loop, OperandHasher& h) {
    switch (inst.op) {
      case Op::Dma: return dma(inst, h);
      case Op::Matmul: return matmul(inst, loop, h);
      case Op::Copy: return act(inst, ActFunc::Identity, h);
      case Op::Act: return act(inst, inst.func, h);
      case Op::TT: return tt(inst, h);
      case Op::TS: return ts(inst, h);
      case Op::Reduce: return reduce(inst, h);
      case Op::Memset: return memset(inst, h);
      case Op::Select: return select(inst, h);
      case Op::Iota: return iota(inst, h);
      case Op::Transpose: return transpose(inst, h);
      case Op::Broadcast: return broadcast(inst, h);
      case Op::TTScan: return ttScan(inst, h);
      case Op::BnStats: return bnStats(inst, h);
      case Op::BnAggr: return bnAggr(inst, h);
      case Op::Li: writeReg(inst, inst.rd, immToRegister(inst.imm)); return;
      case Op::Addi: {
        uint64_t v = readReg(inst, inst.rs, h) + immToRegister(inst.imm);
        writeReg(inst, inst.rd, v);
        return;
      }
      case Op::Add: {
        uint64_t v = readReg(inst, inst.rs, h);
        v += readReg(inst, inst.rt, h);
        writeReg(inst, inst.rd, v);
        return;
      }
      case Op::Mov: writeReg(inst, inst.rd, readReg(inst, inst.rs, h)); return;
      case Op::RegLoad: return regLoad(inst, h);
      case Op::RegStore: return regStore(inst, h);
      case Op::Loop: return;  // runBody handles loops
      case Op::If: {
        // The condition's value is its operand (hashed like affine_select's c); runBody runs the body.
        const __int128 c = evaluateIndex(p_, s_, inst.rare->mask.c, inst.loc, h);
        if (o_.observer)
          for (const IndexTerm& t : inst.rare->mask.c.terms) access_.reg_reads.push_back(t.reg);
        condition_held_ = conditionHolds(inst.rare->mask.cmp, c);
        return;
      }
    }
  }

  void dma(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireSameShape(src, inst.a, dst);
    if (!values_ && (src.dtype == dst.dtype || isConvertingDmaPair(dst.dtype, src.dtype))) return;
    if (src.dtype == dst.dtype) {
      if (!defer_ && copyView(s_, src, dst, h)) return;  // the same bytes and hash without a buffer between
      return put(dst, read(src, a_bytes_, h));
    }
    if (!isConvertingDmaPair(dst.dtype, src.dtype))
      throw InputError(inst.a.loc, std::string("dma between ") + dtypeName(src.dtype) + " and " + dtypeName(dst.dtype));
    // A converting DMA (f32 <-> bf16): the values pass through f32, so bf16 -> f32 is exact and f32 -> bf16 rounds
    // to nearest even, a NaN keeping its sign and top payload bits with the quiet bit set (ir/values.h f32ToBf16).
    // No arithmetic happens: a NaN is not made canonical.
    const uint8_t* bytes = read(src, a_bytes_, h);
    out_bytes_.resize(dst.bytes());
    convertF32Bf16(src.dtype, bytes, dst.elements(), out_bytes_.data());
    put(dst, out_bytes_.data());
  }

  // Decodes len elements of `v` starting at element `first` of its gathered bytes into `out`.
  static void decodeBlock(const ResolvedView& v, const uint8_t* bytes, size_t first, size_t len, NumClass c,
                          ClassBuffer& out) {
    if (c == NumClass::Float) decodeF32(v.dtype, bytes + first * v.elem_size, len, out.f.data());
    else decodeInt(v.dtype, bytes + first * v.elem_size, len, c, out.i.data());
  }

  // dst = f(a[, b]) elementwise, in blocks small enough to stay in cache: f(first, len) computes out_ from a_
  // (and b_), which hold elements [first, first + len) decoded. All sources were read (gathered) beforehand.
  template <typename F>
  void elementwise(const ResolvedView& dst, NumClass c, const ResolvedView& a, const uint8_t* a_bytes,
                   const ResolvedView* b, const uint8_t* b_bytes, F&& f) {
    for (ClassBuffer* buf : {&a_, &b_, &out_}) {
      if (c == NumClass::Float) grow(buf->f, kBlock);
      else grow(buf->i, kBlock);
    }
    grow(out_bytes_, dst.bytes());
    const size_t n = dst.elements();
    for (size_t first = 0; first < n; first += kBlock) {
      const size_t len = std::min(kBlock, n - first);
      decodeBlock(a, a_bytes, first, len, c, a_);
      if (b) decodeBlock(*b, b_bytes, first, len, c, b_);
      f(first, len);
      uint8_t* out = out_bytes_.data() + first * dst.elem_size;
      if (c == NumClass::Float) encodeF32(dst.dtype, out_.f.data(), len, out);
      else encodeInt(dst.dtype, out_.i.data(), len, c, out);
    }
    put(dst, out_bytes_.data());
  }

  // copy is act with identity.
  void act(const Instruction& inst, ActFunc f, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireSameShape(src, inst.a, dst);
    if (hasScaleOrBias(inst) || hasFusedReduce(inst)) return actScaleBias(inst, f, dst, src, h);
    if (!values_) return;
    NumClass c = actClass(f, src.dtype);
    elementwise(dst, c, src, read(src, a_bytes_, h), nullptr, nullptr, [&](size_t, size_t len) {
      if (c == NumClass::Float) actF32(f, a_.f.data(), len, out_.f.data());
      else actInt(f, a_.i.data(), len, c, out_.i.data());
    });
  }

  // One f32 per partition of a scalar operand (ts's scalars, act's scale and bias): a [P, 1] view's values, or one
  // register's / immediate's repeated. Reads (and hashes) the operand.
  void scalarValues(const Instruction& inst, const ScalarOperand& sc, size_t parts, NumClass c, ClassBuffer& out,
                    OperandHasher& h) {
    out.f.assign(c == NumClass::Float ? parts : 0, 0.0f);
    out.i.assign(c == NumClass::Float ? 0 : parts, 0u);
    if (sc.kind == ScalarOperand::Kind::Tensor) {
      ResolvedView s = resolve(sc.ap, h);
      requireShape(s, sc.ap, parts, 1, "scalar");
      if (!values_) return;
      const uint8_t* bytes = read(s, b_bytes_, h);
      decodeBlock(s, bytes, 0, parts, c, out);
      return;
    }
    float f = 0;
    uint32_t i = 0;
    if (sc.kind == ScalarOperand::Kind::Reg) {
      uint32_t low = uint32_t(readReg(inst, sc.reg, h));  // float class: the low 32 bits are an f32
      f = bitsF32(low);
      i = low;
    } else {
      f = immToF32(sc.imm);
      i = immToInt(sc.imm, c);
      h.u64(c == NumClass::Float ? f32Bits(f) : i);
    }
    std::fill(out.f.begin(), out.f.end(), f);
    std::fill(out.i.begin(), out.i.end(), i);
  }

  // act with scale and/or bias (docs/format.md "Activation with scale and bias"): func(x * scale + bias) in f32,
  // one rounded operation at a time: x * scale, then + bias, then func. The checker requires a float source (also
  // for a fused reduction, which comes this way with or without a scale and a bias).
  void actScaleBias(const Instruction& inst, ActFunc f, const ResolvedView& dst, const ResolvedView& src,
                    OperandHasher& h) {
    const size_t parts = dst.partitions;
    const bool scaled = inst.rare->scale.kind != ScalarOperand::Kind::None;
    const bool biased = inst.rare->bias.kind != ScalarOperand::Kind::None;
    if (scaled) scalarValues(inst, inst.rare->scale, parts, NumClass::Float, scalars_, h);
    if (biased) scalarValues(inst, inst.rare->bias, parts, NumClass::Float, bias_, h);
    std::optional<ResolvedView> folded = foldTarget(inst, parts, h);
    if (!values_) return;
    const size_t per = dst.perPartition();
    elementwise(dst, NumClass::Float, src, read(src, a_bytes_, h), nullptr, nullptr, [&](size_t first, size_t len) {
      for (size_t i = 0; i < len; ++i) {
        const size_t q = (first + i) / per;
        float x = a_.f[i];
        if (scaled) x = aluF32(AluOp::Mul, x, scalars_.f[q]);
        if (biased) x = aluF32(AluOp::Add, x, bias_.f[q]);
        out_.f[i] = actF32(f, x);
      }
      if (folded) foldBlock(inst, first, len, per);
    });
    if (folded) write(*folded, NumClass::Float, folded_);
  }

  // The fused reduction's destination R of act and ts (docs/format.md "Fused reduction"), resolved before anything
  // is written; nullopt without a reduction.
  std::optional<ResolvedView> foldTarget(const Instruction& inst, size_t parts, OperandHasher& h) {
    if (!hasFusedReduce(inst)) return std::nullopt;
    ResolvedView r = resolve(inst.rare->reduce_dst, h, Role::Write);
    requireShape(r, inst.rare->reduce_dst, parts, 1, "reduction destination");
    grow(folded_.f, parts);
    return r;
  }
  // Folds a block of f32 results (out_, elements [first, first + len)) into folded_: each partition's values as
  // computed, before DST's conversion, left from its element 0 with reduce_alu, every step rounded to f32.
  void foldBlock(const Instruction& inst, size_t first, size_t len, size_t per) {
    for (size_t i = 0; i < len; ++i) {
      const size_t e = first + i, q = e / per;
      folded_.f[q] = e % per == 0 ? out_.f[i] : aluF32(inst.reduce_alu, folded_.f[q], out_.f[i]);
    }
  }

  void tt(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView a = resolve(inst.a, h);
    ResolvedView b = resolve(inst.b, h);
    requireSameShape(a, inst.a, dst);
    requireSameShape(b, inst.b, dst);
    if (!values_) return;
    NumClass c = aluClass(inst.alu, a.dtype);
    const uint8_t* a_bytes = read(a, a_bytes_, h);
    const uint8_t* b_bytes = read(b, b_bytes_, h);
    elementwise(dst, c, a, a_bytes, &b, b_bytes, [&](size_t, size_t len) {
      if (c == NumClass::Float) aluF32(inst.alu, a_.f.data(), b_.f.data(), len, out_.f.data());
      else aluInt(inst.alu, a_.i.data(), b_.i.data(), len, c, out_.i.data());
    });
  }

  // ts: (A op s) and, with a second operation, ((A op s) op2 s2) (docs/format.md "Two-op ts"): both in the class of
  // the first op, each rounded as a one-op ts rounds (f32, or 32-bit integers), the result converted to DST once.
  void ts(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView a = resolve(inst.a, h);
    requireSameShape(a, inst.a, dst);
    NumClass c = aluClass(inst.alu, a.dtype);
    // One scalar per partition (a single one repeated for an immediate or a register).
    scalarValues(inst, inst.scalar, dst.partitions, c, scalars_, h);
    const bool second = hasSecondOp(inst);
    if (second) scalarValues(inst, inst.rare->scalar2, dst.partitions, c, bias_, h);
    std::optional<ResolvedView> folded = foldTarget(inst, dst.partitions, h);
    if (!values_) return;
    const size_t per = dst.perPartition();
    elementwise(dst, c, a, read(a, a_bytes_, h), nullptr, nullptr, [&](size_t first, size_t len) {
      // The block may span partitions: one run per partition.
      for (size_t i = 0; i < len;) {
        size_t q = (first + i) / per;
        size_t end = std::min(len, (q + 1) * per - first);
        if (c == NumClass::Float) {
          aluF32(inst.alu, a_.f.data() + i, scalars_.f[q], end - i, out_.f.data() + i);
          if (second) aluF32(inst.alu2, out_.f.data() + i, bias_.f[q], end - i, out_.f.data() + i);
        } else {
          aluInt(inst.alu, a_.i.data() + i, scalars_.i[q], end - i, c, out_.i.data() + i);
          if (second) aluInt(inst.alu2, out_.i.data() + i, bias_.i[q], end - i, c, out_.i.data() + i);
        }
        i = end;
      }
      if (folded) foldBlock(inst, first, len, per);
    });
    if (folded) write(*folded, NumClass::Float, folded_);
  }

  void reduce(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireShape(dst, inst.dst, src.partitions, 1, "reduce destination");
    if (!values_) return;
    NumClass c = aluClass(inst.alu, src.dtype);
    decode(src, read(src, a_bytes_, h), c, a_);
    size_t per = src.perPartition();
    if (c == NumClass::Float) grow(out_.f, dst.partitions);
    else grow(out_.i, dst.partitions);
    for (size_t q = 0; q < dst.partitions; ++q) {
      if (c == NumClass::Float) out_.f[q] = reduceF32(inst.alu, a_.f.data() + q * per, per);
      else out_.i[q] = reduceInt(inst.alu, a_.i.data() + q * per, per, c);
    }
    write(dst, c, out_);
  }

  void memset(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    if (!values_) return;
    NumClass c = classOf(dst.dtype);
    uint8_t elem[4];
    if (c == NumClass::Float) storeF32(dst.dtype, elem, immToF32(inst.imm));
    else storeInt(dst.dtype, elem, immToInt(inst.imm, c), c);
    uint8_t* out = grow(out_bytes_, dst.bytes());
    fillElements(out, dst.elements(), elem, dst.elem_size);
    put(dst, out);
  }

  // affine_select (docs/format.md "Affine select"): the source converted as copy converts it where the mask keeps
  // the element, the fill (converted as memset converts it) elsewhere. p and e count within the destination view.
  void select(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireSameShape(src, inst.a, dst);
    const __int128 c = evaluateIndex(p_, s_, inst.rare->mask.c, inst.loc, h);
    if (o_.observer)
      for (const IndexTerm& t : inst.rare->mask.c.terms) access_.reg_reads.push_back(t.reg);
    if (!values_) return;
    uint8_t fill[4];
    NumClass fc = classOf(dst.dtype);
    if (fc == NumClass::Float) storeF32(dst.dtype, fill, immToF32(inst.imm));
    else storeInt(dst.dtype, fill, immToInt(inst.imm, fc), fc);
    // The kept values: copy's conversion, computed for every element (the fill then overwrites the others).
    uint8_t* out = grow(out_bytes_, dst.bytes());
    copyConvert(src.dtype, read(src, a_bytes_, h), dst.elements(), dst.dtype, out);
    const size_t per = dst.perPartition();
    for (size_t q = 0; q < dst.partitions; ++q)
      for (size_t e = 0; e < per; ++e)
        if (!selectKeeps(inst.rare->mask, q, e, c)) std::memcpy(out + (q * per + e) * dst.elem_size, fill, dst.elem_size);
    put(dst, out);
  }

  // n elements of dtype `from` converted to dtype `to` exactly as copy converts them (in the source's class).
  void copyConvert(DType from, const uint8_t* in, size_t n, DType to, uint8_t* out) {
    const NumClass cc = classOf(from);
    const size_t in_size = dtypeSize(from), out_size = dtypeSize(to);
    for (size_t first = 0; first < n; first += kBlock) {
      const size_t len = std::min<size_t>(kBlock, n - first);
      if (cc == NumClass::Float) {
        decodeF32(from, in + first * in_size, len, grow(a_.f, kBlock));
        encodeF32(to, a_.f.data(), len, out + first * out_size);
      } else {
        decodeInt(from, in + first * in_size, len, cc, grow(a_.i, kBlock));
        encodeInt(to, a_.i.data(), len, cc, out + first * out_size);
      }
    }
  }

  // iota (docs/format.md "Iota"): A*p + B*e + C, exact, taken modulo 2^32 as an i32, converted as copy converts an i32.
  void iota(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    const __int128 c = evaluateIndex(p_, s_, inst.rare->mask.c, inst.loc, h);
    if (o_.observer)
      for (const IndexTerm& t : inst.rare->mask.c.terms) access_.reg_reads.push_back(t.reg);
    if (!values_) return;
    const size_t per = dst.perPartition();
    uint32_t* v = grow(out_.i, dst.elements());
    for (size_t q = 0; q < dst.partitions; ++q)
      for (size_t e = 0; e < per; ++e) {
        const __int128 x = __int128(inst.rare->mask.p_scale) * __int128(q) + __int128(inst.rare->mask.e_scale) * __int128(e) + c;
        v[q * per + e] = uint32_t(uint64_t(x));
      }
    write(dst, NumClass::Signed, out_);
  }

  // transpose (docs/format.md "Transpose and broadcast"): DST[f, p] = SRC[p, f], converted as copy converts.
  void transpose(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    const size_t P = src.partitions, F = src.perPartition();
    requireShape(dst, inst.dst, F, P, "transpose destination");
    if (!values_) return;
    const uint8_t* in = read(src, a_bytes_, h);
    const size_t es = src.elem_size;
    uint8_t* moved = grow(b_bytes_, src.bytes());
    for (size_t p = 0; p < P; ++p)
      for (size_t f = 0; f < F; ++f) std::memcpy(moved + (f * P + p) * es, in + (p * F + f) * es, es);
    uint8_t* out = grow(out_bytes_, dst.bytes());
    copyConvert(src.dtype, moved, dst.elements(), dst.dtype, out);
    put(dst, out);
  }

  // broadcast (docs/format.md "Transpose and broadcast"): DST[m, n] = SRC[0, n], converted as copy converts.
  void broadcast(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireShape(src, inst.a, 1, dst.perPartition(), "broadcast source");
    if (!values_) return;
    const size_t N = src.perPartition(), row = N * dst.elem_size;
    uint8_t* out = grow(out_bytes_, dst.bytes());
    copyConvert(src.dtype, read(src, a_bytes_, h), N, dst.dtype, out);
    for (size_t m = 1; m < dst.partitions; ++m) std::memcpy(out + m * row, out, row);
    put(dst, out);
  }

  // tt_scan (docs/format.md "Tensor-tensor scan"): r[i] = (A[i] op0 r[i-1]) op1 B[i] in f32 along each partition,
  // r[-1] = INIT; DST gets r converted once.
  void ttScan(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView a = resolve(inst.a, h);
    ResolvedView b = resolve(inst.b, h);
    requireSameShape(a, inst.a, dst);
    requireSameShape(b, inst.b, dst);
    scalarValues(inst, inst.scalar, dst.partitions, NumClass::Float, scalars_, h);
    if (!values_) return;
    decode(a, read(a, a_bytes_, h), NumClass::Float, a_);
    decode(b, read(b, b_bytes_, h), NumClass::Float, b_);
    const size_t per = dst.perPartition();
    float* r = grow(out_.f, dst.elements());
    for (size_t q = 0; q < dst.partitions; ++q) {
      float prev = scalars_.f[q];
      for (size_t e = 0; e < per; ++e) {
        const size_t k = q * per + e;
        prev = aluF32(inst.alu2, aluF32(inst.alu, a_.f[k], prev), b_.f[k]);
        r[k] = prev;
      }
    }
    write(dst, NumClass::Float, out_);
  }

  // bn_stats (docs/format.md "Batch-norm statistics"): per partition, (count, mean, m2) of the even-indexed elements,
  // then of the odd-indexed ones, in f32.
  void bnStats(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireShape(dst, inst.dst, src.partitions, 6, "bn_stats destination");
    if (!values_) return;
    decode(src, read(src, a_bytes_, h), NumClass::Float, a_);
    const size_t per = src.perPartition();
    float* out = grow(out_.f, dst.elements());
    for (size_t q = 0; q < src.partitions; ++q) {
      const float* x = a_.f.data() + q * per;
      for (size_t parity = 0; parity < 2; ++parity) {
        float* o = out + q * 6 + parity * 3;
        const size_t count = per > parity ? (per - parity + 1) / 2 : 0;
        if (count == 0) {
          o[0] = o[1] = o[2] = 0.0f;
          continue;
        }
        float sum = x[parity];
        for (size_t e = parity + 2; e < per; e += 2) sum = aluF32(AluOp::Add, sum, x[e]);
        const float n = float(count);
        const float mean = aluF32(AluOp::Div, sum, n);
        float m2 = 0.0f;
        for (size_t e = parity; e < per; e += 2) {
          const float d = aluF32(AluOp::Sub, x[e], mean);
          m2 = aluF32(AluOp::Add, m2, aluF32(AluOp::Mul, d, d));
        }
        o[0] = n;
        o[1] = mean;
        o[2] = m2;
      }
    }
    write(dst, NumClass::Float, out_);
  }

  // bn_aggr (docs/format.md "Batch-norm statistics"): (count, mean, m2) tuples merged left to right in f32;
  // DST gets mean and m2 / n.
  void bnAggr(const Instruction& inst, OperandHasher& h) {
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    ResolvedView src = resolve(inst.a, h);
    requireShape(dst, inst.dst, src.partitions, 2, "bn_aggr destination");
    const size_t per = src.perPartition();
    if (per % 3 != 0)
      throw InputError(inst.a.loc, "bn_aggr source has " + std::to_string(per) +
                                       " elements per partition; it needs (count, mean, m2) tuples, a multiple of 3");
    if (!values_) return;
    decode(src, read(src, a_bytes_, h), NumClass::Float, a_);
    float* out = grow(out_.f, dst.elements());
    for (size_t q = 0; q < src.partitions; ++q) {
      const float* t = a_.f.data() + q * per;
      float n = 0.0f, mean = 0.0f, m2 = 0.0f;
      for (size_t k = 0; k < per; k += 3) {
        const float nb = t[k], mb = t[k + 1], m2b = t[k + 2];
        if (!(nb > 0.0f)) continue;
        if (!(n > 0.0f)) {
          n = nb, mean = mb, m2 = m2b;
          continue;
        }
        const float n2 = aluF32(AluOp::Add, n, nb);
        const float delta = aluF32(AluOp::Sub, mb, mean);
        mean = aluF32(AluOp::Add, mean, aluF32(AluOp::Mul, delta, aluF32(AluOp::Div, nb, n2)));
        const float cross = aluF32(AluOp::Mul, aluF32(AluOp::Mul, delta, delta),
                                   aluF32(AluOp::Div, aluF32(AluOp::Mul, n, nb), n2));
        m2 = aluF32(AluOp::Add, aluF32(AluOp::Add, m2, m2b), cross);
        n = n2;
      }
      out[q * 2] = n > 0.0f ? mean : 0.0f;
      out[q * 2 + 1] = n > 0.0f ? aluF32(AluOp::Div, m2, n) : 0.0f;
    }
    write(dst, NumClass::Float, out_);
  }

  static bool holds(When w, const LoopPosition* loop) {
    switch (w) {
      case When::Never: return false;
      case When::Always: return true;
      case When::First: return !loop || loop->first;
      case When::Last: return !loop || loop->last;
    }
    return false;
  }

  void matmul(const Instruction& inst, const LoopPosition* loop, OperandHasher& h) {
    ResolvedView acc = resolve(inst.dst, h, holds(inst.start, loop) ? Role::Write : Role::ReadWrite);
    ResolvedView stat = resolve(inst.a, h);
    ResolvedView mov = resolve(inst.b, h);
    size_t K = stat.partitions, M = stat.perPartition(), N = mov.perPartition();
    requireShape(mov, inst.b, K, N, "moving");
    requireShape(acc, inst.dst, M, N, "accumulator");
    if (!values_) return;
    NumClass c = classOf(acc.dtype);
    decode(stat, read(stat, a_bytes_, h), c, a_);
    decode(mov, read(mov, b_bytes_, h), c, b_);
    if (holds(inst.start, loop)) {
      if (c == NumClass::Float) std::fill_n(grow(out_.f, acc.elements()), acc.elements(), 0.0f);
      else std::fill_n(grow(out_.i, acc.elements()), acc.elements(), 0u);
    } else {
      decode(acc, read(acc, out_bytes_, h), c, out_);
    }
    if (c == NumClass::Float)
      matmulF32(a_.f.data(), b_.f.data(), K, M, N, acc.dtype == DType::BF16, out_.f.data());
    else
      matmulInt(a_.i.data(), b_.i.data(), K, M, N, out_.i.data());
    write(acc, c, out_);
  }

  void regLoad(const Instruction& inst, OperandHasher& h) {
    RegId rd = reg(inst, inst.rd);
    ResolvedView src = resolve(inst.a, h);
    uint32_t lanes = p_.registers[rd].lanes();
    if (src.elem_size != 4 || src.elements() != lanes)
      throw InputError(inst.a.loc, "reg_load needs " + std::to_string(lanes) + " element(s) of 4 bytes, the view has " +
                                       std::to_string(src.elements()) + " of " + std::to_string(src.elem_size));
    const uint8_t* bytes = read(src, a_bytes_, h);
    uint64_t v = 0;
    for (uint32_t b = 0; b < 4 * lanes; ++b) v |= uint64_t(bytes[b]) << (8 * b);
    writeReg(inst, rd, v);
  }

  void regStore(const Instruction& inst, OperandHasher& h) {
    RegId rs = reg(inst, inst.rs);
    ResolvedView dst = resolve(inst.dst, h, Role::Write);
    uint32_t lanes = p_.registers[rs].lanes();
    if (dst.elem_size != 4 || dst.elements() != lanes)
      throw InputError(inst.dst.loc, "reg_store needs " + std::to_string(lanes) + " element(s) of 4 bytes, the view has " +
                                         std::to_string(dst.elements()) + " of " + std::to_string(dst.elem_size));
    uint64_t v = readReg(inst, rs, h);
    if (!values_) return;
    uint8_t bytes[8];
    for (uint32_t b = 0; b < 8; ++b) bytes[b] = uint8_t(v >> (8 * b));
    put(dst, bytes);
  }

  const Program& p_;
  Storage& s_;
  const InterpOptions& o_;
  const uint64_t max_view_bytes_;
  const bool values_;  // InterpOptions::values, or a reg_load in the program
  bool condition_held_ = false;  // the last if executed: whether its condition held
  InterpResult result_;
  std::vector<bool> stored_;  // with an output sink: the outputs already given to it
  // Scratch buffers, reused by every instruction.
  static constexpr size_t kBlock = 2048;
  std::vector<uint8_t> a_bytes_, b_bytes_, out_bytes_;
  ClassBuffer a_, b_, out_, scalars_, bias_, folded_;  // bias_: act's bias, ts's second scalar
  ExecAccess access_;  // what the current instruction touched (filled only with an observer)
  // Empties access_ for the next instruction, keeping its vectors' memory (an observer sees every instruction: a
  // fresh ExecAccess would allocate its vectors again each time).
  void clearAccess() {
    access_.reads.clear();
    access_.writes.clear();
    access_.reg_reads.clear();
    access_.reg_writes.clear();
    access_.operand_hash = 0;
  }
  PendingWrites* defer_ = nullptr;
  const KnownViews* known_ = nullptr;
};

// Every tensor's size, checked against the limit before anything is allocated; returns the largest.
uint64_t checkSizes(const Program& p, const InterpOptions& opts) {
  unsigned __int128 total = 0;
  uint64_t largest = 0;
  const MemoryAvailable available = memoryAvailable();
  for (const Tensor& t : p.tensors) {
    if (opts.source_only && t.origin != Origin::Source) continue;  // read as the tensors they hold
    unsigned __int128 bytes = (unsigned __int128)t.partitions * t.elements * dtypeSize(t.dtype);
    total += bytes;
    if (total > opts.max_storage_bytes)
      throw InputError(t.loc, "the program's tensors need more than the interpreter's limit of " +
                                  std::to_string(opts.max_storage_bytes) + " bytes");
    // Out of memory, told before anything is allocated: which tensor tips it, how much, how much there is.
    if (total > available.bytes)
      throw InputError(t.loc, "out of memory: tensor '" + t.name + "' (" + formatBytes(uint64_t(bytes)) +
                                  ") brings the program's tensors to " + formatBytes(uint64_t(total)) +
                                  ", and this process can get " + formatBytes(available.bytes) + " more (" +
                                  available.limited_by + ")");
    largest = std::max(largest, uint64_t(bytes));
  }
  return largest;
}

}  // namespace

struct InstructionStepper::Impl {
  Impl(const Program& p, Storage& s, uint64_t max_view_bytes) : executor(p, s, options, max_view_bytes) {
    options.record_reads = false;
  }
  InterpOptions options;
  Executor executor;
};

InstructionStepper::InstructionStepper(const Program& p, Storage& s, uint64_t max_view_bytes)
    : impl_(std::make_unique<Impl>(p, s, max_view_bytes)) {}
InstructionStepper::~InstructionStepper() = default;

uint64_t InstructionStepper::begin(const Instruction& inst, bool first, bool last, PendingWrites& out, bool hash,
                                   const KnownViews* known) {
  out.clear();
  Executor::LoopPosition pos{first, last};
  return impl_->executor.stepOne(inst, &pos, &out, hash, known);
}

uint64_t InstructionStepper::step(const Instruction& inst, bool first, bool last, bool hash, const KnownViews* known) {
  Executor::LoopPosition pos{first, last};
  return impl_->executor.stepOne(inst, &pos, nullptr, hash, known);
}

bool InstructionStepper::conditionHeld() const { return impl_->executor.conditionHeld(); }

void PendingWrites::commit(Storage& s) const {
  for (size_t i = 0; i < used; ++i) scatterView(s, views[i].view, views[i].bytes.data());
  for (const auto& [r, v] : regs) s.writeReg(r, v);
}

uint64_t largestTensorBytes(const Program& p, uint64_t max_storage_bytes) {
  InterpOptions o;
  o.max_storage_bytes = max_storage_bytes;
  return checkSizes(p, o);
}

InterpResult interpret(const Program& p, Storage& storage, const InterpOptions& opts) {
  uint64_t largest = checkSizes(p, opts);
  return Executor(p, storage, opts, largest).run();
}

InterpResult interpret(const Program& p, const InterpOptions& opts) {
  checkSizes(p, opts);
  PrivateStorage storage(p);
  return interpret(p, storage, opts);
}

}  // namespace allocsim
