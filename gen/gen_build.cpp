// Decisions and program building: the small helpers every statement uses.
#include <algorithm>
#include <cstdio>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
// "t12": formatted into a buffer (GCC 12's -Wrestrict misfires on string concatenation here).
std::string numbered(const char* prefix, size_t n) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%s%zu", prefix, n);
  return buf;
}
}  // namespace

Immediate intImm(int64_t v) {
  Immediate i;
  i.i = v;
  return i;
}

Immediate floatImm(double v) {
  Immediate i;
  i.is_float = true;
  i.f = v;
  return i;
}

Index regIndex(RegId r, int64_t scale, int64_t constant) {
  return Index::affine(r, scale, constant);
}

Divisors divisorsIn(uint64_t n, uint32_t lo, uint32_t hi) {
  Divisors out;
  for (uint32_t d = lo; d <= hi && d <= n && out.n < 64; ++d)
    if (n % d == 0) out.items[out.n++] = d;
  return out;
}

Generator::Generator(Choices& choices, const GenOptions& opts) : c_(choices), opts_(opts) {
  prog_.arch = opts.arch;
  bodies_.emplace_back();
}

bool Generator::yes(uint32_t percent) { return c_.below(100) >= 100 - std::min<uint32_t>(percent, 100); }

uint64_t Generator::upTo(uint64_t n) { return c_.below(n + 1); }

size_t Generator::weighted(std::initializer_list<uint32_t> weights) {
  uint64_t total = 0;
  for (uint32_t w : weights) total += w;
  uint64_t r = c_.below(total);
  size_t i = 0;
  for (uint32_t w : weights) {
    if (r < w) return i;
    r -= w;
    ++i;
  }
  // Only when every weight is 0: the first option.
  return 0;
}

DType Generator::anyDType() {
  static const DType kAll[] = {DType::U32, DType::I32, DType::F32, DType::BF16, DType::U16};
  return kAll[c_.below(std::size(kAll))];
}

DType Generator::floatOr(bool wantFloat) {
  if (wantFloat) return yes(50) ? DType::BF16 : DType::F32;
  return anyDType();
}

void Generator::died(TensorId t) {
  if (opts_.reuse == 0 || t >= prog_.tensors.size() || prog_.tensors[t].space == Space::Dram) return;
  if (madeIn_[t] != currentScope()) return;  // mentioned in an enclosing body too: not safe to recycle here
  const Tensor& d = prog_.tensors[t];
  deadTensors_[DeadKey{currentScope(), d.space, d.dtype, d.partitions, d.elements}].push_back(t);
}

TensorId Generator::addTensor(Space space, uint32_t parts, uint32_t elems, DType dt, const char* prefix) {
  if (opts_.reuse > 0 && space != Space::Dram) {
    auto same = deadTensors_.find(DeadKey{currentScope(), space, dt, parts, elems});
    if (same != deadTensors_.end() && !same->second.empty() && yes(opts_.reuse)) {
      std::vector<TensorId>& fits = same->second;
      const size_t k = c_.below(fits.size());
      const TensorId id = fits[k];
      fits.erase(fits.begin() + std::ptrdiff_t(k));
      ts_[id] = TensorState{};  // a new value: nothing written yet
      return id;
    }
  }
  Tensor t;
  uint32_t& counter = counters_[space == Space::Psum ? 3 : space == Space::Sbuf ? 2 : prefix[0] == 'o' ? 1 : 0];
  t.name = numbered(prefix, counter++);
  t.space = space;
  t.partitions = parts;
  t.elements = elems;
  t.dtype = dt;
  // Some SBUF/PSUM tensors are tile arrays (docs/format.md "Tile arrays"): same bytes, 2 or 4 tiles along
  // the free axis, so that views may name a tile.
  if (space != Space::Dram && elems % 2 == 0 && yes(15)) t.tiles = (elems % 4 == 0 && yes(50)) ? 4 : 2;
  if (space == Space::Dram) dramBytes_ += t.totalBytes();
  elements_ += uint64_t(parts) * elems;
  prog_.tensors.push_back(std::move(t));
  ts_.emplace_back();
  madeIn_.push_back(currentScope());
  return TensorId(prog_.tensors.size() - 1);
}

RegId Generator::newRegister(uint32_t width) {
  uint32_t scope = scopes_.empty() ? 0 : scopes_.back().id;
  // Reusing a dead register gives one register several live ranges, which register allocators must handle.
  const RegSet& dead = dead_[width == 64 ? 1 : 0];
  RegId id;
  if (dead.size() > 0 && yes(40)) {
    id = dead.kth(uint32_t(c_.below(dead.size())));
  } else {
    Register reg;
    reg.name = numbered(width == 64 ? "x" : "r", prog_.registers.size());
    reg.width = width;
    prog_.registers.push_back(std::move(reg));
    rs_.emplace_back();
    id = RegId(prog_.registers.size() - 1);
  }
  rs_[id] = RegState{};
  rs_[id].defined = true;
  rs_[id].scope = scope;
  if (!scopes_.empty()) scopes_.back().regs.push_back(id);
  syncReg(id);
  return id;
}

void Generator::syncReg(RegId r) {
  const RegState& s = rs_[r];
  const bool wide = prog_.registers[r].width == 64;
  defined_[wide].set(r, s.defined);
  dead_[wide].set(r, !s.defined);
  topLevel_[wide].set(r, s.defined && !s.readOnly && s.scope == 0);
  indexable_.set(r, s.defined && s.known && !wide);
}

// A scalar operand with only the fields its kind uses, as the parser makes it.
static ScalarOperand canonicalScalar(const ScalarOperand& in) {
  ScalarOperand out;
  out.kind = in.kind;
  if (in.kind == ScalarOperand::Kind::Imm) out.imm = in.imm;
  if (in.kind == ScalarOperand::Kind::Reg) out.reg = in.reg;
  if (in.kind == ScalarOperand::Kind::Tensor) out.ap = in.ap;
  return out;
}

// Only the fields an opcode uses survive, so a generated program equals its printed-and-parsed form.
static Instruction canonical(Instruction in) {
  Instruction out;
  out.op = in.op;
  switch (in.op) {
    case Op::Matmul:
      out.start = in.start;
      out.stop = in.stop;
      out.b = in.b;
      [[fallthrough]];
    case Op::Dma:
    case Op::Copy:
      out.dst = in.dst;
      out.a = in.a;
      break;
    case Op::Act:
      out.dst = in.dst;
      out.a = in.a;
      out.func = in.func;
      if (hasScaleOrBias(in)) {
        out.rare.mut().scale = canonicalScalar(in.rare->scale);
        out.rare.mut().bias = canonicalScalar(in.rare->bias);
      }
      if (hasFusedReduce(in)) out.rare.mut().reduce_dst = in.rare->reduce_dst, out.reduce_alu = in.reduce_alu;
      break;
    case Op::TT:
      out.b = in.b;
      [[fallthrough]];
    case Op::Reduce:
      out.dst = in.dst;
      out.a = in.a;
      out.alu = in.alu;
      break;
    case Op::TS:
      out.dst = in.dst;
      out.a = in.a;
      out.alu = in.alu;
      out.scalar = canonicalScalar(in.scalar);
      if (hasSecondOp(in)) out.rare.mut().scalar2 = canonicalScalar(in.rare->scalar2), out.alu2 = in.alu2;
      if (hasFusedReduce(in)) out.rare.mut().reduce_dst = in.rare->reduce_dst, out.reduce_alu = in.reduce_alu;
      break;
    case Op::Memset:
      out.dst = in.dst;
      out.imm = in.imm;
      break;
    case Op::Select:
      out.dst = in.dst;
      out.a = in.a;
      out.rare.mut().mask = in.rare->mask;
      out.imm = in.imm;
      break;
    case Op::Iota:
      out.dst = in.dst;
      out.rare.mut().mask = in.rare->mask;
      out.rare.mut().mask.cmp = CmpOp::Ge;  // not part of an iota
      break;
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
      out.dst = in.dst;
      out.a = in.a;
      break;
    case Op::TTScan:
      out.dst = in.dst;
      out.a = in.a;
      out.b = in.b;
      out.scalar = canonicalScalar(in.scalar);
      out.alu = in.alu;
      out.alu2 = in.alu2;
      break;
    case Op::Li:
      out.rd = in.rd;
      out.imm = in.imm;
      break;
    case Op::Addi:
      out.imm = in.imm;
      [[fallthrough]];
    case Op::Mov:
      out.rd = in.rd;
      out.rs = in.rs;
      break;
    case Op::Add:
      out.rd = in.rd;
      out.rs = in.rs;
      out.rt = in.rt;
      break;
    case Op::RegLoad:
      out.rd = in.rd;
      out.a = in.a;
      break;
    case Op::RegStore:
      out.dst = in.dst;
      out.rs = in.rs;
      break;
    case Op::Loop:
      out.rd = in.rd;
      out.lo = in.lo;
      out.hi = in.hi;
      out.step = in.step;
      if (hasRegisterBound(in)) out.rare.mut().mask.c = in.rare->mask.c;  // a register bound
      out.body = std::move(in.body);
      break;
    case Op::If:
      out.rare.mut().mask.c = in.rare->mask.c;
      out.rare.mut().mask.cmp = in.rare->mask.cmp;
      out.body = std::move(in.body);
      break;
  }
  return out;
}

void Generator::emit(Instruction inst) {
  ++statements_;
  bodies_.back().push_back(canonical(std::move(inst)));
}

static Index shifted(Index i, uint32_t by) {
  i.constant += by;
  return i;
}

AccessPattern Generator::view(const Rect& r, const Geo& g) const {
  AccessPattern ap;
  ap.tensor = r.tensor;
  ap.partition = shifted(g.part, r.p0);
  ap.partitions = g.parts;
  ap.offset = shifted(g.off, r.e0);
  ap.count = g.count;
  ap.count2 = g.count2;
  ap.step2 = g.count2 == 1 ? 0 : g.step2;
  return ap;
}

AccessPattern Generator::whole(TensorId t) const { return wholeTensor(prog_, t); }

Rect Generator::wholeRect(TensorId t) const {
  return Rect{t, 0, prog_.tensors[t].partitions, 0, prog_.tensors[t].elements};
}

uint64_t Generator::trips() const {
  uint64_t n = 1;
  for (const Scope& s : scopes_) n *= s.trips;
  return n;
}

uint64_t Generator::tripRoom() const {
  if (opts_.max_nest_trips == 0) return UINT64_MAX;
  return std::max<uint64_t>(1, opts_.max_nest_trips / trips());
}

bool Generator::dramBudgetLeft() const { return dramBytes_ < prog_.arch.dram_limit / 4; }

bool Generator::budgetLeft() const {
  return statements_ < statementLimit_ && work_ < workLimit_ && dramBudgetLeft() &&
         (!opts_.fit_dram || elements_ < kFitElements);
}

void Generator::charge(uint64_t bytes) { work_ += bytes * trips(); }

}  // namespace allocsim::gen
