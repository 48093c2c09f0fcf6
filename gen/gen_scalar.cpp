// Scalar statements: li / addi / add / mov on 32- and 64-bit registers, reg_store / reg_load round trips
// through SBUF, and ts with a register scalar. The generator tracks the values it knows (constants and
// affine functions of loop variables), which chooseIndex then uses for register-indexed views.
#include <algorithm>
#include <cmath>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
constexpr int64_t kKnownLimit = int64_t(1) << 30;

// a + b, merging the loop-variable terms.
Affine plus(const Affine& a, const Affine& b) {
  Affine r = a;
  r.constant += b.constant;
  for (const auto& term : b.terms) {  // not a structured binding: clang 14 cannot capture those
    auto it = std::find_if(r.terms.begin(), r.terms.end(), [&](const auto& t) { return t.first == term.first; });
    if (it == r.terms.end()) r.terms.push_back(term);
    else it->second += term.second;
  }
  std::erase_if(r.terms, [](const auto& t) { return t.second == 0; });
  return r;
}
}  // namespace

std::optional<RegId> Generator::readableReg(uint32_t width, bool knownOnly) {
  if (!knownOnly) {
    const RegSet& defined = defined_[width == 64 ? 1 : 0];
    if (defined.size() == 0) return std::nullopt;
    return defined.kth(uint32_t(c_.below(defined.size())));
  }
  std::vector<RegId> cands;
  for (RegId r = 0; r < rs_.size(); ++r)
    if (rs_[r].defined && prog_.registers[r].width == width && (!knownOnly || rs_[r].known)) cands.push_back(r);
  if (cands.empty()) return std::nullopt;
  return cands[c_.below(cands.size())];
}

// One to four scalar instructions: li, addi, add, mov on a 32- or 64-bit register, a reg_store / reg_load round
// trip through SBUF, or ts with a register scalar; each kind drawn among those whose operands exist.
void Generator::scalarStatement() {
  const uint64_t n = 1 + upTo(3);
  for (uint64_t k = 0; k < n && budgetLeft(); ++k) {
    const uint32_t width = yes(30) ? 64 : 32;
    std::optional<RegId> src = readableReg(width, false);
    std::optional<RegId> src2 = readableReg(width, false);
    std::vector<TensorId> words;  // live SBUF tensors with 4-byte elements a register can round-trip through
    for (TensorId t : pool_)
      if (dtypeSize(prog_.tensors[t].dtype) == 4 && prog_.tensors[t].elements >= width / 32) words.push_back(t);
    std::vector<TensorId> tsTargets;
    for (TensorId t : pool_)
      if (!isFloat(prog_.tensors[t].dtype)) tsTargets.push_back(t);
    std::optional<RegId> reg32 = readableReg(32, false);
    switch (weighted({6, src ? 4u : 0u, src ? 3u : 0u, src ? 2u : 0u, src ? 4u : 0u,
                      reg32 && !tsTargets.empty() ? 3u : 0u})) {
      case 1: addiInstruction(width, *src); break;
      case 2: addInstruction(width, *src, *src2); break;
      case 3: movInstruction(width, *src); break;
      case 4: regRoundTrip(width, *src, words); break;
      case 5: tsWithRegister(tsTargets, *reg32); break;
      default: liInstruction(width);
    }
  }
}

// A destination register of `width`: one written in this scope before (so every iteration redefines it the same
// way), or a new one.
RegId Generator::scalarDestination(uint32_t width) {
  const uint32_t scope = scopes_.empty() ? 0 : scopes_.back().id;
  if (scope == 0) {  // the top level's registers accumulate: drawn from the index
    const RegSet& top = topLevel_[width == 64 ? 1 : 0];
    if (top.size() > 0 && yes(25)) return top.kth(uint32_t(c_.below(top.size())));
    return newRegister(width);
  }
  std::vector<RegId> own;  // a loop's own registers, in id order
  for (RegId r : scopes_.back().regs)
    if (rs_[r].defined && !rs_[r].readOnly && rs_[r].scope == scope && prog_.registers[r].width == width)
      own.push_back(r);
  std::sort(own.begin(), own.end());
  own.erase(std::unique(own.begin(), own.end()), own.end());
  if (!own.empty() && yes(25)) return own[c_.below(own.size())];
  return newRegister(width);
}

// The tracked value of rd after a write: known only if it stays a small non-negative 32-bit number.
void Generator::setRegValue(RegId rd, bool known, const Affine& v) {
  RegState& s = rs_[rd];
  s.defined = true;
  s.known = false;
  s.value = Affine{};
  if (known && prog_.registers[rd].width == 32) {
    s.value = v;
    s.known = true;
    int64_t lo, hi;
    if (!regRange(rd, lo, hi) || hi >= kKnownLimit) {
      s.known = false;
      s.value = Affine{};
    }
  }
  syncReg(rd);
}

// addi rd, src, IMM with a small (now and then negative) immediate.
void Generator::addiInstruction(uint32_t width, RegId src) {
  Instruction i;
  i.op = Op::Addi;
  i.rs = src;
  int64_t imm = int64_t(upTo(16));
  if (yes(15)) imm = -imm;
  i.imm = intImm(imm);
  Affine v = rs_[src].value;
  bool known = rs_[src].known;
  v.constant += imm;
  i.rd = scalarDestination(width);
  setRegValue(i.rd, known, v);
  emit(std::move(i));
}

// add rd, src, src2.
void Generator::addInstruction(uint32_t width, RegId src, RegId src2) {
  Instruction i;
  i.op = Op::Add;
  i.rs = src;
  i.rt = src2;
  bool known = rs_[src].known && rs_[src2].known;
  Affine v = plus(rs_[src].value, rs_[src2].value);
  i.rd = scalarDestination(width);
  setRegValue(i.rd, known, v);
  emit(std::move(i));
}

// mov rd, src.
void Generator::movInstruction(uint32_t width, RegId src) {
  Instruction i;
  i.op = Op::Mov;
  i.rs = src;
  bool known = rs_[src].known;
  Affine v = rs_[src].value;
  i.rd = scalarDestination(width);
  setRegValue(i.rd, known, v);
  emit(std::move(i));
}

// reg_store of src, then (mostly) reg_load into a register, through one (or two, for 64 bits) SBUF words of a live
// tensor from `words` or of a new memset one.
void Generator::regRoundTrip(uint32_t width, RegId src, const std::vector<TensorId>& words) {
  const uint32_t lanes = width / 32;
  TensorId t;
  if (words.empty()) {
    // One draw per statement: the order of a call's arguments is the compiler's (docs/format.md's programs
    // must be the same from gcc and clang builds).
    const uint32_t drawn = 2 + uint32_t(upTo(6));
    const DType dt = yes(50) ? DType::I32 : DType::U32;
    // At most a partition's words (a machine with a small SBUF); none when not even the register's words fit.
    const uint32_t fits = prog_.arch.sbuf_bytes / dtypeSize(dt);
    if (fits < lanes) return;
    const uint32_t elems = std::min(drawn, fits);
    t = newPoolTensor(1, elems, dt, {});
    Instruction ms;
    ms.op = Op::Memset;
    ms.dst = whole(t);
    ms.imm = intImm(0);
    emit(std::move(ms));
    addToPool(t);
  } else {
    t = words[c_.below(words.size())];
  }
  std::optional<AccessPattern> v = chooseView(t, 1, lanes, false);
  if (!v) return;
  Instruction st;
  st.op = Op::RegStore;
  st.dst = *v;
  st.rs = src;
  emit(std::move(st));
  // Integer bits in a float tensor can be anything, NaN included.
  if (isFloat(prog_.tensors[t].dtype)) ts_[t].mag = HUGE_VAL;
  if (!yes(80)) return;
  Instruction ld;
  ld.op = Op::RegLoad;
  ld.a = *v;
  ld.rd = scalarDestination(width);
  setRegValue(ld.rd, false, {});
  emit(std::move(ld));
}

// ts with the register scalar reg, in place on a view of an integer tensor from `targets`.
void Generator::tsWithRegister(const std::vector<TensorId>& targets, RegId reg) {
  TensorId t = targets[c_.below(targets.size())];
  uint32_t parts;
  uint64_t elems;
  chooseSubShape(t, parts, elems);
  std::optional<AccessPattern> v = chooseView(t, parts, elems, true);
  if (!v) return;
  Instruction i;
  i.op = Op::TS;
  i.dst = *v;
  i.a = *v;
  i.scalar.kind = ScalarOperand::Kind::Reg;
  i.scalar.reg = reg;
  static const AluOp kOps[] = {AluOp::Add, AluOp::Sub, AluOp::Xor, AluOp::Max, AluOp::Min, AluOp::Or};
  i.alu = kOps[c_.below(std::size(kOps))];
  charge(uint64_t(parts) * elems * 8);
  emit(std::move(i));
}

// li rd, IMM: a small immediate, for 64 bits now and then one up to 2^40.
void Generator::liInstruction(uint32_t width) {
  Instruction i;
  i.op = Op::Li;
  int64_t imm = int64_t(upTo(width == 64 && yes(50) ? (uint64_t(1) << 40) : 64));
  i.imm = intImm(imm);
  i.rd = scalarDestination(width);
  Affine v;
  v.constant = imm;
  setRegValue(i.rd, true, v);
  emit(std::move(i));
}
}  // namespace allocsim::gen
