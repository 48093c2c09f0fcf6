#include "ir/program.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "ir/enum_names.h"

namespace allocsim {

const char* spaceName(Space s) {
  switch (s) {
    case Space::Dram: return "dram";
    case Space::Sbuf: return "sbuf";
    case Space::Psum: return "psum";
  }
  return "?";
}

static const char* const kOriginNames[] = {"source", "spill", "reload", "coalesced", "partial", "copy"};

const char* originName(Origin o) { return kOriginNames[size_t(o)]; }

// "source" is the default and is never written.
std::optional<Origin> parseOrigin(const std::string& s) { return valueNamed<Origin>(s, kOriginNames, 1); }

bool Index::uses(RegId r) const {
  for (const IndexTerm& t : terms)
    if (t.reg == r) return true;
  return false;
}

bool Index::isAffine() const {
  for (const IndexTerm& t : terms)
    if (!t.isAffine()) return false;
  return true;
}

int64_t Index::scaleOf(RegId r) const {
  for (const IndexTerm& t : terms)
    if (t.reg == r && t.isAffine()) return t.scale;
  return 0;
}

bool Index::addTerm(RegId r, int64_t scale, uint32_t div, uint32_t mod) {
  const IndexTerm key{r, scale, div, mod};
  auto it = std::lower_bound(terms.begin(), terms.end(), key, [](const IndexTerm& t, const IndexTerm& x) { return t.keyBefore(x); });
  if (it != terms.end() && it->sameKey(key)) return !__builtin_add_overflow(it->scale, scale, &it->scale);
  terms.insert(it, key);
  return true;
}

void Index::normalize() {
  CompactVector<IndexTerm> old;
  old.swap(terms);
  for (const IndexTerm& t : old) {
    // Renaming never merges two terms in practice; if it does, a wrapping sum keeps this total.
    if (!addTerm(t.reg, t.scale, t.div, t.mod)) {
      for (IndexTerm& m : terms)
        if (m.sameKey(t)) m.scale = int64_t(uint64_t(m.scale) + uint64_t(t.scale));
    }
  }
}

Index Index::constantIndex(int64_t c) {
  Index i;
  i.constant = c;
  return i;
}

Index Index::affine(RegId r, int64_t scale, int64_t constant) {
  Index i;
  i.terms.push_back(IndexTerm{r, scale, 1, 0});
  i.constant = constant;
  return i;
}

bool Immediate::operator==(const Immediate& o) const {
  if (is_float != o.is_float) return false;
  if (!is_float) return i == o.i;
  return std::memcmp(&f, &o.f, sizeof f) == 0;
}

const char* opName(Op op) {
  switch (op) {
    case Op::Dma: return "dma";
    case Op::Matmul: return "matmul";
    case Op::Copy: return "copy";
    case Op::Act: return "act";
    case Op::TT: return "tt";
    case Op::TS: return "ts";
    case Op::Reduce: return "reduce";
    case Op::Memset: return "memset";
    case Op::Li: return "li";
    case Op::Addi: return "addi";
    case Op::Add: return "add";
    case Op::Mov: return "mov";
    case Op::RegLoad: return "reg_load";
    case Op::RegStore: return "reg_store";
    case Op::Loop: return "loop";
    case Op::Select: return "affine_select";
    case Op::Iota: return "iota";
    case Op::Transpose: return "transpose";
    case Op::Broadcast: return "broadcast";
    case Op::TTScan: return "tt_scan";
    case Op::BnStats: return "bn_stats";
    case Op::BnAggr: return "bn_aggr";
    case Op::If: return "if";
  }
  return "?";
}

const char* engineName(Engine e) {
  switch (e) {
    case Engine::PE: return "PE";
    case Engine::ACT: return "ACT";
    case Engine::DVE: return "DVE";
    case Engine::POOL: return "POOL";
    case Engine::SP: return "SP";
    case Engine::DMA: return "DMA";
  }
  return "?";
}

static const char* const kCmpNames[] = {"ge", "gt", "eq", "ne", "le", "lt"};

const char* cmpName(CmpOp c) { return kCmpNames[size_t(c)]; }

std::optional<CmpOp> parseCmp(const std::string& s) { return valueNamed<CmpOp>(s, kCmpNames); }

bool selectKeeps(const SelectMask& m, uint64_t p, uint64_t e, __int128 c) {
  // Each product is below 2^127 in magnitude (|scale| <= 2^63, p < 2^32, e < 2^64) and c within +-2^100 (ir/view.cpp).
  // Only the element term can exceed 2^102, and when it does it decides the sign: clamping it there keeps the sign.
  const __int128 limit = __int128(1) << 102;
  auto clamp = [&](__int128 v) { return v > limit ? limit : v < -limit ? -limit : v; };
  return conditionHolds(m.cmp, clamp(__int128(m.p_scale) * __int128(p)) + clamp(__int128(m.e_scale) * __int128(e)) + c);
}

bool conditionHolds(CmpOp cmp, __int128 v) {
  switch (cmp) {
    case CmpOp::Ge: return v >= 0;
    case CmpOp::Gt: return v > 0;
    case CmpOp::Eq: return v == 0;
    case CmpOp::Ne: return v != 0;
    case CmpOp::Le: return v <= 0;
    case CmpOp::Lt: return v < 0;
  }
  return false;
}

static const char* const kAluNames[] = {"add", "sub", "mul", "max", "min", "and", "or", "xor", "shl",
                                        "shr", "div", "eq",  "ne",  "lt",  "le",  "gt", "ge", "keep"};
static_assert(std::size(kAluNames) == size_t(kLastAlu) + 1);

const char* aluName(AluOp a) { return kAluNames[size_t(a)]; }

std::optional<AluOp> parseAlu(const std::string& s) { return valueNamed<AluOp>(s, kAluNames); }

bool aluIsIntegerOnly(AluOp a) { return a >= AluOp::And && a <= AluOp::Shr; }

static const char* const kActNames[] = {"identity", "relu",     "neg",   "abs",         "square",
                                        "exp",      "tanh",     "sigmoid", "silu",      "gelu",
                                        "sqrt",     "rsqrt",    "reciprocal", "log",    "sin",
                                        "cos",      "erf",      "softplus", "gelu_apprx_tanh", "sign",
                                        "arctan",   "mish"};
static_assert(std::size(kActNames) == size_t(kLastActFunc) + 1);

const char* actName(ActFunc f) { return kActNames[size_t(f)]; }

std::optional<ActFunc> parseAct(const std::string& s) { return valueNamed<ActFunc>(s, kActNames); }

bool actIsFloatOnly(ActFunc f) { return f >= ActFunc::Exp; }

TensorId Program::findTensor(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return TensorId(i);
  return kNone;
}

RegId Program::findRegister(const std::string& name) const {
  for (size_t i = 0; i < registers.size(); ++i)
    if (registers[i].name == name) return RegId(i);
  return kNone;
}

static void renumberBody(std::vector<Instruction>& body, uint32_t& next) {
  for (Instruction& i : body) {
    i.id = next++;
    if (hasBody(i.op)) renumberBody(i.body, next);
  }
}

uint32_t Program::renumber() {
  uint32_t next = 0;
  renumberBody(body, next);
  return next;
}

Index offsetInTile(const AccessPattern& ap, const Tensor& t) {
  if (!ap.tile) return ap.offset;
  const uint64_t e = t.tileElements();
  Index in = ap.offset;
  // Wrapping arithmetic: the parser built ap.offset by the exact opposite sum, so no term really wraps.
  in.constant = int64_t(uint64_t(in.constant) - uint64_t(ap.tile->constant) * e);
  for (const IndexTerm& term : ap.tile->terms) {
    auto it = std::find_if(in.terms.begin(), in.terms.end(), [&](const IndexTerm& x) { return x.sameKey(term); });
    int64_t left = int64_t(uint64_t(it == in.terms.end() ? 0 : it->scale) - uint64_t(term.scale) * e);
    if (it == in.terms.end()) {
      if (left != 0) in.addTerm(term.reg, left, term.div, term.mod);
    } else if (left == 0) {
      in.terms.erase(it);
    } else {
      it->scale = left;
    }
  }
  return in;
}

uint64_t psumBankCount(const Arch& arch, const Tensor& t) {
  if (arch.psum_bank_bytes == 0) return 0;
  return (t.bytesPerPartition() + arch.psum_bank_bytes - 1) / arch.psum_bank_bytes;
}

AccessPattern wholeTensor(const Program& p, TensorId t) {
  AccessPattern ap;
  ap.tensor = t;
  ap.partitions = p.tensors[t].partitions;
  ap.count = p.tensors[t].elements;
  return ap;
}

bool isFullAccess(const Program& p, const AccessPattern& ap) {
  const Tensor& t = p.tensors[ap.tensor];
  return ap.partition.isConstant() && ap.partition.constant == 0 && ap.partitions == t.partitions &&
         ap.offset.isConstant() && ap.offset.constant == 0 && ap.count == t.elements && ap.count2 == 1;
}

bool isContiguous(const AccessPattern& ap) { return ap.count2 == 1 || ap.step2 == ap.count; }

ScalarOperandList<const ScalarOperand*> scalarOperands(const Instruction& inst) {
  ScalarOperandList<const ScalarOperand*> out;
  if (inst.op == Op::TS || inst.op == Op::TTScan) out.push_back(&inst.scalar);
  if (hasSecondOp(inst)) out.push_back(&inst.rare->scalar2);
  if (inst.op == Op::Act)
    for (const ScalarOperand* s : {&inst.rare->scale, &inst.rare->bias})
      if (s->kind != ScalarOperand::Kind::None) out.push_back(s);
  return out;
}
ScalarOperandList<ScalarOperand*> scalarOperands(Instruction& inst) {
  ScalarOperandList<ScalarOperand*> out;
  // Each is the instruction's own: the rare ones are listed only when given, so they are in its stored block.
  for (const ScalarOperand* s : scalarOperands(std::as_const(inst))) out.push_back(const_cast<ScalarOperand*>(s));
  return out;
}
std::array<AccessPattern*, 8> storedViews(Instruction& inst) {
  RareOperands* r = inst.rare.ifStored();
  return {&inst.dst, &inst.a, &inst.b, inst.scalar.ap.ifStored(), r ? r->scalar2.ap.ifStored() : nullptr,
          r ? r->scale.ap.ifStored() : nullptr, r ? r->bias.ap.ifStored() : nullptr, r ? &r->reduce_dst : nullptr};
}

bool hasScaleOrBias(const Instruction& inst) {
  return inst.op == Op::Act && (inst.rare->scale.kind != ScalarOperand::Kind::None || inst.rare->bias.kind != ScalarOperand::Kind::None);
}

bool hasSecondOp(const Instruction& inst) {
  return inst.op == Op::TS && inst.rare->scalar2.kind != ScalarOperand::Kind::None;
}
bool hasFusedReduce(const Instruction& inst) {
  return (inst.op == Op::Act || inst.op == Op::TS) && inst.rare->reduce_dst.tensor != kNone;
}

bool isConvertingDma(const Program& p, const Instruction& inst) {
  if (inst.op != Op::Dma || inst.dst.tensor >= p.tensors.size() || inst.a.tensor >= p.tensors.size()) return false;
  return p.tensors[inst.dst.tensor].dtype != p.tensors[inst.a.tensor].dtype;
}

}  // namespace allocsim

namespace allocsim {

namespace {

// The smallest and largest value of t.apply(r) for r in [a, b] (unsigned register values).
std::pair<uint64_t, uint64_t> termRange(const IndexTerm& t, uint64_t a, uint64_t b) {
  const uint64_t qa = a / t.div, qb = b / t.div;
  if (!t.mod) return {qa, qb};
  if (qb - qa >= t.mod - 1) return {0, t.mod - 1};  // every remainder occurs
  const uint64_t ra = qa % t.mod, rb = qb % t.mod;
  return ra <= rb ? std::pair{ra, rb} : std::pair<uint64_t, uint64_t>{0, t.mod - 1};
}

}  // namespace

std::optional<int64_t> loopBoundMaximum(const Index& bound, const std::function<const InstructionHead*(RegId)>& controller,
                                        RegId* missing) {
  using Int = __int128;
  const Int limit = Int(1) << 62;
  Int max = bound.constant;
  for (const IndexTerm& t : bound.terms) {
    const InstructionHead* loop = controller(t.reg);
    if (!loop) {
      if (missing) *missing = t.reg;
      return std::nullopt;
    }
    // The register's values: lo, lo+step, ... below hi; only lo when the loop never runs (nothing inside runs then).
    const Int lo = std::max<int64_t>(loop->lo, 0), step = std::max<int64_t>(loop->step, 1);
    const Int last = loop->hi > lo ? lo + (Int(loop->hi) - lo - 1) / step * step : lo;
    const auto [fmin, fmax] = termRange(t, uint64_t(std::min(lo, limit)), uint64_t(std::min(last, limit)));
    max += t.scale >= 0 ? Int(t.scale) * Int(fmax) : Int(t.scale) * Int(fmin);
    max = std::clamp(max, -limit, limit);
  }
  return int64_t(max);
}

bool setLoopBoundMaxima(Program& p) {
  std::vector<const InstructionHead*> enclosing;
  bool ok = true;
  auto walk = [&](auto& self, std::vector<Instruction>& body) -> void {
    for (Instruction& i : body) {
      if (hasRegisterBound(i)) {
        auto controller = [&](RegId r) -> const InstructionHead* {
          for (auto it = enclosing.rbegin(); it != enclosing.rend(); ++it)
            if ((*it)->rd == r) return *it;
          return nullptr;
        };
        if (std::optional<int64_t> max = loopBoundMaximum(i.rare->mask.c, controller)) i.hi = *max;
        else ok = false;
      }
      if (!hasBody(i.op)) continue;
      if (i.op == Op::Loop) enclosing.push_back(&i);
      self(self, i.body);
      if (i.op == Op::Loop) enclosing.pop_back();
    }
  };
  walk(walk, p.body);
  return ok;
}

}  // namespace allocsim
