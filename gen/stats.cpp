#include "gen/stats.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "ir/operand_table.h"

namespace allocsim {
namespace {

constexpr uint32_t kDepthRows = 4;  // "loop depth 0" .. "loop depth 3"; deeper programs count as ">= 4"
constexpr uint32_t kPsumBankRows = 8;  // "PSUM tensors of 1 bank" .. "8 banks" (gen2's capacity), then "more than"

// The views an instruction names, in operand order (docs/format.md "Instructions").
void forEachView(const Instruction& i, const std::function<void(const AccessPattern&)>& f) {
  for (const OperandUse* u : operandUses(i))
    if (const AccessPattern* ap = operandView(i, u->operand)) f(*ap);
}

// The registers an instruction names: destinations, sources, loop variables and address terms.
void forEachRegister(const Instruction& i, const std::function<void(RegId)>& f) {
  for (RegId r : {i.rd, i.rs, i.rt})
    if (r != kNone) f(r);
  for (const ScalarOperand* sc : scalarOperands(i))
    if (sc->kind == ScalarOperand::Kind::Reg) f(sc->reg);
  forEachView(i, [&](const AccessPattern& ap) {
    for (const Index* ix : {&ap.partition, &ap.offset})
      for (const IndexTerm& t : ix->terms) f(t.reg);
  });
  for (const IndexTerm& t : i.rare->mask.c.terms) f(t.reg);  // affine_select's offset c
}

uint32_t maxDepth(const std::vector<Instruction>& body) {
  uint32_t d = 0;
  for (const Instruction& i : body) {
    if (i.op == Op::Loop) d = std::max(d, 1 + maxDepth(i.body));
    if (i.op == Op::If) d = std::max(d, maxDepth(i.body));
  }
  return d;
}

// Live intervals over preorder instruction positions; see PeakDemand.
struct Interval {
  uint32_t first = UINT32_MAX, last = 0;
  bool used() const { return first != UINT32_MAX; }
  void touch(uint32_t pos) {
    first = std::min(first, pos);
    last = std::max(last, pos);
  }
};

struct LoopSpan {
  uint32_t begin = 0, end = 0;  // the loop instruction's position and its body's last position
};

class IntervalWalk {
 public:
  explicit IntervalWalk(const Program& p) : tensors(p.tensors.size()), registers(p.registers.size()) {
    walk(p.body);
    // A loop-carried value: accessed inside a loop and outside it, it stays live for the whole loop.
    // Repeat to a fixpoint, since extending over an inner loop can make a value cross an outer one.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto* set : {&tensors, &registers})
        for (Interval& iv : *set)
          for (const LoopSpan& l : loops) changed |= extend(iv, l);
    }
  }
  std::vector<Interval> tensors, registers;
  uint32_t positions = 0;

 private:
  std::vector<LoopSpan> loops;
  // An interval that overlaps a loop and reaches outside it is accessed both inside and outside (or is
  // live across it): it then covers the whole loop.
  static bool extend(Interval& iv, const LoopSpan& l) {
    if (!iv.used() || iv.last < l.begin || iv.first > l.end) return false;
    bool crosses = iv.first < l.begin || iv.last > l.end;
    if (!crosses || (iv.first <= l.begin && iv.last >= l.end)) return false;
    iv.first = std::min(iv.first, l.begin);
    iv.last = std::max(iv.last, l.end);
    return true;
  }
  void walk(const std::vector<Instruction>& body) {
    for (const Instruction& i : body) {
      uint32_t pos = positions++;
      forEachView(i, [&](const AccessPattern& ap) {
        if (ap.tensor < tensors.size()) tensors[ap.tensor].touch(pos);
      });
      forEachRegister(i, [&](RegId r) {
        if (r < registers.size()) registers[r].touch(pos);
      });
      if (i.op == Op::Loop) {
        walk(i.body);
        loops.push_back(LoopSpan{pos, positions - 1});
      }
      if (i.op == Op::If) walk(i.body);
    }
  }
};

uint32_t psumBanksOf(const Program& p, const Tensor& t) {
  return uint32_t(std::min<uint64_t>(UINT32_MAX, psumBankCount(p.arch, t)));
}

}  // namespace

PeakDemand peakDemand(const Program& p) {
  IntervalWalk w(p);
  // Demand changes only where an interval starts or ends: add at first, remove after last.
  std::vector<int64_t> sbuf(w.positions + 1, 0), psum(w.positions + 1, 0), regs(w.positions + 1, 0);
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Interval& iv = w.tensors[t];
    if (!iv.used()) continue;
    const Tensor& tensor = p.tensors[t];
    if (tensor.space == Space::Sbuf) {
      sbuf[iv.first] += int64_t(tensor.totalBytes());
      sbuf[iv.last + 1] -= int64_t(tensor.totalBytes());
    } else if (tensor.space == Space::Psum) {
      psum[iv.first] += psumBanksOf(p, tensor);
      psum[iv.last + 1] -= psumBanksOf(p, tensor);
    }
  }
  for (RegId r = 0; r < p.registers.size(); ++r) {
    const Interval& iv = w.registers[r];
    if (!iv.used()) continue;
    regs[iv.first] += p.registers[r].lanes();
    regs[iv.last + 1] -= p.registers[r].lanes();
  }
  PeakDemand d;
  int64_t s = 0, b = 0, g = 0;
  for (uint32_t pos = 0; pos < w.positions; ++pos) {
    s += sbuf[pos];
    b += psum[pos];
    g += regs[pos];
    d.sbuf_bytes = std::max<uint64_t>(d.sbuf_bytes, uint64_t(s));
    d.psum_banks = std::max<uint32_t>(d.psum_banks, uint32_t(b));
    d.register_lanes = std::max<uint32_t>(d.register_lanes, uint32_t(g));
  }
  return d;
}

namespace {

// The source shapes the DMA optimization's peepholes feed on once a tensor is spilled (gen/gen_dma_patterns.cpp).
struct DmaPatterns {
  uint64_t abutting = 0, apart = 0, repeated = 0, sub_range = 0, dead_stores = 0;
};

bool constantRun(const AccessPattern& ap) { return !ap.hasRegister() && ap.count2 == 1; }

// The same elements of the same tensor, wherever each view is written in the source.
bool sameView(AccessPattern a, const AccessPattern& b) {
  a.loc = b.loc;
  return a == b;
}

// The source views the pattern and edge counts look at: those of dma, copy, reduce, affine_select, reg_load, tt,
// act, ts and matmul (not a matmul's accumulator). The PE moves', tt_scan's and batch norm's sources are not counted.
bool countsSources(Op op) {
  switch (op) {
    case Op::Dma: case Op::Copy: case Op::Reduce: case Op::Select: case Op::RegLoad: case Op::TT: case Op::Act:
    case Op::TS: case Op::Matmul: return true;
    default: return false;
  }
}
std::vector<const AccessPattern*> sourceViews(const Instruction& i) {
  std::vector<const AccessPattern*> out;
  if (!countsSources(i.op)) return out;
  for (const OperandUse* u : operandUses(i))
    if (const AccessPattern* ap = operandView(i, u->operand); ap && u->role == Role::Read) out.push_back(ap);
  return out;
}

bool writesWhole(const Program& p, const Instruction& i) {
  return !hasBody(i.op) && i.op != Op::Matmul && i.op != Op::RegStore && i.dst.tensor < p.tensors.size() &&
         isFullAccess(p, i.dst);
}

void dmaPatterns(const Program& p, const std::vector<Instruction>& body, DmaPatterns& d) {
  for (size_t k = 0; k < body.size(); ++k) {
    const Instruction& i = body[k];
    if (hasBody(i.op)) {
      dmaPatterns(p, i.body, d);
      continue;
    }
    const std::vector<const AccessPattern*> reads = sourceViews(i);
    if (reads.size() >= 2 && reads[0]->tensor == reads[1]->tensor && constantRun(*reads[0]) &&
        constantRun(*reads[1]) && reads[0]->partition == reads[1]->partition) {
      // elements between the end of one read and the start of the other (none: they abut)
      auto between = [](const AccessPattern& a, const AccessPattern& b) {
        return int64_t(b.offset.constant) - int64_t(a.offset.constant) - int64_t(a.count);
      };
      const int64_t gap = std::max(between(*reads[0], *reads[1]), between(*reads[1], *reads[0]));
      d.abutting += gap == 0;
      d.apart += gap == 1;
    }
    for (const AccessPattern* r : reads)
      if (r->tensor < p.tensors.size() && p.tensors[r->tensor].space != Space::Dram && constantRun(*r) &&
          !isFullAccess(p, *r))
        ++d.sub_range;
    if (k + 1 < body.size() && !hasBody(body[k + 1].op)) {
      const std::vector<const AccessPattern*> next = sourceViews(body[k + 1]);
      bool shared = false;
      for (const AccessPattern* a : reads)
        for (const AccessPattern* b : next) shared |= sameView(*a, *b);
      d.repeated += shared;
      // a whole write followed directly by another whole write of the same tensor that does not read it
      bool reread = false;
      for (const AccessPattern* b : next) reread |= b->tensor == i.dst.tensor;
      d.dead_stores += writesWhole(p, i) && writesWhole(p, body[k + 1]) && body[k + 1].dst.tensor == i.dst.tensor &&
                       !reread;
    }
  }
}

// Over-broad tensors: on-chip tensors written whole somewhere and read, but only ever through constant views whose
// hull is a strict part of the tensor. Spilled, such a tensor is saved whole and reloaded over the hull only: the
// save is what partial_DMA_access shrinks.
uint64_t overBroadTensors(const Program& p) {
  struct Use {
    bool whole_write = false, read = false, wide = false;  // wide: a read that makes the used range all of it
    uint64_t row_lo = UINT64_MAX, row_hi = 0, lo = UINT64_MAX, hi = 0;
  };
  std::vector<Use> use(p.tensors.size());
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (hasBody(i.op)) return;
    if (writesWhole(p, i)) use[i.dst.tensor].whole_write = true;
    for (const AccessPattern* r : sourceViews(i)) {
      if (r->tensor >= p.tensors.size()) continue;
      Use& u = use[r->tensor];
      u.read = true;
      if (!constantRun(*r) || r->partition.constant < 0 || r->offset.constant < 0) {
        u.wide = true;
        continue;
      }
      u.row_lo = std::min<uint64_t>(u.row_lo, uint64_t(r->partition.constant));
      u.row_hi = std::max<uint64_t>(u.row_hi, uint64_t(r->partition.constant) + r->partitions);
      u.lo = std::min<uint64_t>(u.lo, uint64_t(r->offset.constant));
      u.hi = std::max<uint64_t>(u.hi, uint64_t(r->offset.constant) + r->count);
    }
  });
  uint64_t n = 0;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Use& u = use[t];
    const Tensor& T = p.tensors[t];
    n += T.space != Space::Dram && u.whole_write && u.read && !u.wide &&
         (u.row_hi - u.row_lo < T.partitions || u.hi - u.lo < T.elements);
  }
  return n;
}

// The shapes the allocators' narrow rules meet at loop edges and live-range boundaries (gen/gen_reach.cpp makes them
// on purpose): registers and tensors carried around a back edge, a tensor first written in a loop and read after it
// (the last iteration's value leaves the loop), a partial write then a whole write of one tensor in a loop body, and
// a new tensor whose first write is the last read of another (an in-place candidate at the exact boundary) or one
// instruction before it.
struct EdgeShapes {
  uint64_t carried_registers = 0, carried_tensors = 0, live_out = 0, partial_then_whole = 0;
  uint64_t in_place_exact = 0, in_place_one_short = 0;
};

// Registers an instruction reads and writes (a loop instruction: its induction register, written on entry), its
// reads first.
void registerEvents(const Instruction& i, const std::function<void(RegId, bool)>& f) {
  const OperandUses uses = operandUses(i);
  for (const OperandUse* u : uses) {
    if (u->operand == Operand::MaskC) {
      for (const IndexTerm& t : i.rare->mask.c.terms) f(t.reg, false);
    } else if (const AccessPattern* ap = operandView(i, u->operand)) {
      for (const Index* ix : {&ap->partition, &ap->offset})
        for (const IndexTerm& t : ix->terms) f(t.reg, false);
    } else if (u->role == Role::Read) {
      f(operandRegister(i, u->operand), false);
    }
  }
  for (const OperandUse* u : uses)
    if (u->role == Role::Write && !operandView(i, u->operand)) f(operandRegister(i, u->operand), true);
}

// Tensors an instruction reads (sources, a matmul's accumulator unless it starts always) and writes.
void tensorEvents(const Instruction& i, const std::function<void(const AccessPattern&, bool)>& f) {
  for (const AccessPattern* r : sourceViews(i)) f(*r, false);
  const OperandUses uses = operandUses(i);
  for (const OperandUse* u : uses)
    if (u->role == Role::Accumulate && i.start != When::Always) f(*operandView(i, u->operand), false);
  for (const OperandUse* u : uses) {
    const AccessPattern* ap = operandView(i, u->operand);
    if (u->role != Role::Read && ap && ap->tensor != kNone) f(*ap, true);
  }
}

void flatten(const std::vector<Instruction>& body, std::vector<const Instruction*>& out) {
  for (const Instruction& i : body) {
    out.push_back(&i);
    if (i.op == Op::Loop) flatten(i.body, out);
  }
}

void loopEdges(const Program& p, const std::vector<Instruction>& body, EdgeShapes& e) {
  for (const Instruction& loop : body) {
    if (loop.op != Op::Loop) continue;
    loopEdges(p, loop.body, e);
    std::vector<const Instruction*> flat;
    flatten(loop.body, flat);
    // first event per register / tensor in the body's order (0 none, 1 read, 2 write); written anywhere
    std::vector<uint8_t> regFirst(p.registers.size(), 0), tenFirst(p.tensors.size(), 0);
    std::vector<bool> regWritten(p.registers.size(), false), tenWritten(p.tensors.size(), false);
    std::vector<bool> partial(p.tensors.size(), false), partialThenWhole(p.tensors.size(), false);
    for (const Instruction* i : flat) {
      registerEvents(*i, [&](RegId r, bool write) {
        if (r >= p.registers.size()) return;
        if (regFirst[r] == 0) regFirst[r] = write ? 2 : 1;
        if (write) regWritten[r] = true;
      });
      tensorEvents(*i, [&](const AccessPattern& ap, bool write) {
        TensorId t = ap.tensor;
        if (t >= p.tensors.size() || p.tensors[t].space == Space::Dram) return;
        if (tenFirst[t] == 0) tenFirst[t] = write ? 2 : 1;
        if (!write) return;
        tenWritten[t] = true;
        if (!isFullAccess(p, ap)) partial[t] = true;
        else if (partial[t]) partialThenWhole[t] = true;
      });
    }
    for (RegId r = 0; r < p.registers.size(); ++r)
      e.carried_registers += r != loop.rd && regFirst[r] == 1 && regWritten[r];
    for (TensorId t = 0; t < p.tensors.size(); ++t) {
      e.carried_tensors += tenFirst[t] == 1 && tenWritten[t];
      e.partial_then_whole += partialThenWhole[t];
    }
  }
}

EdgeShapes edgeShapes(const Program& p) {
  EdgeShapes e;
  loopEdges(p, p.body, e);
  // Raw first / last mentions (preorder positions) and the loops' spans, for live-out and the in-place boundary.
  std::vector<const Instruction*> flat;
  flatten(p.body, flat);
  std::vector<uint32_t> first(p.tensors.size(), UINT32_MAX), last(p.tensors.size(), 0);
  std::vector<std::pair<uint32_t, uint32_t>> loops;
  std::vector<uint32_t> open;  // loop positions whose span is not closed yet
  for (uint32_t pos = 0; pos < flat.size(); ++pos)
    forEachView(*flat[pos], [&](const AccessPattern& ap) {
      if (ap.tensor >= p.tensors.size()) return;
      first[ap.tensor] = std::min(first[ap.tensor], pos);
      last[ap.tensor] = std::max(last[ap.tensor], pos);
    });
  {
    uint32_t pos = 0;
    std::function<void(const std::vector<Instruction>&)> spans = [&](const std::vector<Instruction>& body) {
      for (const Instruction& i : body) {
        uint32_t at = pos++;
        if (i.op == Op::Loop) {
          spans(i.body);
          loops.emplace_back(at, pos - 1);
        }
      }
    };
    spans(p.body);
  }
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    if (first[t] == UINT32_MAX || p.tensors[t].space == Space::Dram) continue;
    bool out = false;
    for (const auto& [begin, end] : loops) out |= first[t] > begin && first[t] <= end && last[t] > end;
    e.live_out += out;
  }
  IntervalWalk w(p);  // intervals extended over the loops that carry them
  for (uint32_t pos = 0; pos < flat.size(); ++pos) {
    const Instruction& i = *flat[pos];
    if (i.op == Op::Loop || i.dst.tensor >= p.tensors.size()) continue;
    const TensorId d = i.dst.tensor;
    const Space space = p.tensors[d].space;
    if (space == Space::Dram || w.tensors[d].first != pos) continue;
    for (const AccessPattern* r : sourceViews(i)) {
      const TensorId s = r->tensor;
      if (s >= p.tensors.size() || s == d || p.tensors[s].space != space) continue;
      e.in_place_exact += w.tensors[s].last == pos;
      e.in_place_one_short += w.tensors[s].last == pos + 1;
    }
  }
  return e;
}

// On-chip tensors that hold more than one value: written whole again, by an instruction that does not read them,
// after they were read (program order, each loop body once).
uint64_t recycledTensors(const Program& p) {
  std::vector<bool> read(p.tensors.size(), false), recycled(p.tensors.size(), false);
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (i.op == Op::Loop) return;
    bool reads_dst = false;
    for (const AccessPattern* r : sourceViews(i)) reads_dst = reads_dst || r->tensor == i.dst.tensor;
    const bool whole = writesWhole(p, i) || (i.op == Op::Matmul && i.start == When::Always &&
                                             i.dst.tensor < p.tensors.size() && isFullAccess(p, i.dst));
    if (whole && !reads_dst && i.dst.tensor < p.tensors.size() && read[i.dst.tensor] &&
        p.tensors[i.dst.tensor].space != Space::Dram)
      recycled[i.dst.tensor] = true;
    for (const AccessPattern* r : sourceViews(i))
      if (r->tensor < p.tensors.size()) read[r->tensor] = true;
  });
  return uint64_t(std::count(recycled.begin(), recycled.end(), true));
}

// The rows of one program's table, in order.
struct ShapeRows {
  std::vector<ShapeFeature> f;
  void flag(const std::string& name, bool v) { f.push_back(ShapeFeature{name, v ? 1u : 0u, true}); }
  void count(const std::string& name, uint64_t v) { f.push_back(ShapeFeature{name, v, false}); }
};

// What one walk over the instructions (and the views they use) counts.
struct InstructionCounts {
  uint64_t groups = 0, kGroups = 0, accumulating = 0, regViews = 0, dramPartViews = 0, dim2Views = 0;
  uint64_t multiRegViews = 0, tileViews = 0, regTileViews = 0, divModViews = 0, divModConditions = 0;
  uint64_t boundedLoops = 0;
  uint64_t ops[uint32_t(kLastOp) + 1] = {};
  uint64_t funcs[uint32_t(kLastActFunc) + 1] = {};
  uint64_t divides = 0, convertingDmas = 0, actScaleBias = 0, twoOpTs = 0, fusedReduces = 0, selectRegOffsets = 0;
};

// The kinds of index one view uses, added to c.
void countView(const Program& p, const AccessPattern& ap, InstructionCounts& c) {
  c.regViews += ap.hasRegister();
  c.multiRegViews += ap.partition.terms.size() > 1 || ap.offset.terms.size() > 1;
  c.divModViews += !ap.partition.isAffine() || !ap.offset.isAffine();
  c.tileViews += ap.tile.has_value();
  c.regTileViews += ap.tile && !ap.tile->isConstant();
  c.dim2Views += ap.hasSecondDim();
  if (ap.tensor < p.tensors.size() && p.tensors[ap.tensor].space == Space::Dram) {
    bool whole = ap.partition.isConstant() && ap.partition.constant == 0 &&
                 ap.partitions == p.tensors[ap.tensor].partitions;
    c.dramPartViews += !whole;
  }
}

InstructionCounts countInstructions(const Program& p) {
  InstructionCounts c;
  forEachInstruction(p.body, [&](const Instruction& i) {
    c.convertingDmas += isConvertingDma(p, i);
    c.actScaleBias += hasScaleOrBias(i);
    c.twoOpTs += hasSecondOp(i);
    c.fusedReduces += hasFusedReduce(i);
    c.selectRegOffsets += i.op == Op::Select && !i.rare->mask.c.isConstant();
    c.divModConditions += i.op == Op::If && !i.rare->mask.c.isAffine();
    c.boundedLoops += hasRegisterBound(i);
    ++c.ops[uint32_t(i.op)];
    if (i.op == Op::Act) ++c.funcs[uint32_t(i.func)];
    c.divides += (i.op == Op::TT || i.op == Op::TS) && i.alu == AluOp::Div;
    if (i.op == Op::Matmul) {
      c.groups += i.start != When::Never;
      c.kGroups += i.start == When::First || i.stop == When::Last;
      c.accumulating += i.start != When::Always;
    }
    forEachView(i, [&](const AccessPattern& ap) { countView(p, ap, c); });
  });
  return c;
}

// Loop depth, loops, 64-bit registers, accumulation groups and the kinds of views.
void loopAndViewRows(const Program& p, const InstructionCounts& c, ShapeRows& r) {
  uint32_t depth = maxDepth(p.body);
  for (uint32_t d = 0; d < kDepthRows; ++d) r.flag("loop depth " + std::to_string(d), depth == d);
  r.flag("loop depth >= " + std::to_string(kDepthRows), depth >= kDepthRows);
  r.count("loops", c.ops[uint32_t(Op::Loop)]);
  uint64_t regs64 = 0;
  for (const Register& reg : p.registers) regs64 += reg.width == 64;
  r.count("64-bit registers", regs64);
  r.count("accumulation groups (matmul start)", c.groups);
  r.count("K-loop groups (start@first / stop@last)", c.kGroups);
  r.count("accumulating matmuls (without start)", c.accumulating);
  r.count("register-indexed views", c.regViews);
  r.count("partition-indexed DRAM views", c.dramPartViews);
  r.count("second-dimension views", c.dim2Views);
  r.count("multi-register index views", c.multiRegViews);
  r.count("tile views q{t}", c.tileViews);
  r.count("register-indexed tile views", c.regTileViews);
  r.count("views with // or % of a register", c.divModViews);
  r.count("if conditions with // or % of a register", c.divModConditions);
  r.count("loops with a register bound", c.boundedLoops);
}

// Tensor kinds, instructions by opcode and act function, the rarer instruction forms, tensors by dtype.
void tensorAndOpRows(const Program& p, const InstructionCounts& c, ShapeRows& r) {
  uint64_t partial = 0, tileArrays = 0;
  uint64_t dtypes[uint32_t(DType::U16) + 1] = {};
  for (const Tensor& t : p.tensors) {
    ++dtypes[uint32_t(t.dtype)];
    tileArrays += t.tiles > 1;
    partial += t.space != Space::Dram && t.partitions < p.arch.sbuf_partitions;
  }
  r.count("partial-partition tensors", partial);
  r.count("tile arrays", tileArrays);
  for (uint32_t op = 0; op <= uint32_t(kLastOp); ++op) r.count(std::string("op ") + opName(Op(op)), c.ops[op]);
  for (uint32_t fn = 0; fn <= uint32_t(kLastActFunc); ++fn)
    r.count(std::string("act ") + actName(ActFunc(fn)), c.funcs[fn]);
  r.count("div (tt, ts)", c.divides);
  r.count("converting dma (f32 <-> bf16)", c.convertingDmas);
  r.count("scale or bias on act", c.actScaleBias);
  r.count("two-op ts", c.twoOpTs);
  r.count("fused reduction (act, ts)", c.fusedReduces);
  r.count("affine_select with a register offset c", c.selectRegOffsets);
  for (uint32_t t = 0; t <= uint32_t(DType::U16); ++t)
    r.count(std::string("dtype ") + dtypeName(DType(t)) + " tensors", dtypes[t]);
}

// The DMA patterns of GenOptions::dma_patterns.
void dmaPatternRows(const Program& p, ShapeRows& r) {
  DmaPatterns dp;
  dmaPatterns(p, p.body, dp);
  r.count("DMA pattern: abutting reads of one tensor", dp.abutting);
  r.count("DMA pattern: reads of one tensor one element apart", dp.apart);
  r.count("DMA pattern: the same view read twice in a row", dp.repeated);
  r.count("DMA pattern: on-chip sub-range reads", dp.sub_range);
  r.count("DMA pattern: dead stores (overwritten whole before a read)", dp.dead_stores);
  r.count("DMA pattern: over-broad tensors (written whole, only ever read over a sub-range)", overBroadTensors(p));
}

// PSUM tensors by bank count.
void psumRows(const Program& p, ShapeRows& r) {
  uint64_t psumOfBanks[kPsumBankRows + 1] = {};  // [0]: more than kPsumBankRows banks
  uint64_t psumWhole = 0, psumPartLast = 0;
  for (const Tensor& t : p.tensors) {
    if (t.space != Space::Psum) continue;
    uint32_t banks = psumBanksOf(p, t);
    ++psumOfBanks[banks <= kPsumBankRows ? banks : 0];
    psumWhole += banks == p.arch.psum_banks;
    psumPartLast += banks > 1 && p.arch.psum_bank_bytes > 0 && t.bytesPerPartition() % p.arch.psum_bank_bytes != 0;
  }
  for (uint32_t b = 1; b <= kPsumBankRows; ++b)
    r.count("PSUM tensors of " + std::to_string(b) + (b == 1 ? " bank" : " banks"), psumOfBanks[b]);
  r.count("PSUM tensors of more than " + std::to_string(kPsumBankRows) + " banks", psumOfBanks[0]);
  r.count("PSUM tensors of every bank", psumWhole);
  r.count("multi-bank PSUM tensors with a partly used last bank", psumPartLast);
}

// The shapes at loop edges and live-range boundaries (gen/gen_reach.cpp), recycled tensors, and the peak demand
// against each capacity.
void edgeAndPressureRows(const Program& p, ShapeRows& r) {
  EdgeShapes e = edgeShapes(p);
  r.count("registers carried around a back edge", e.carried_registers);
  r.count("tensors carried around a back edge (read before written in the body)", e.carried_tensors);
  r.count("tensors first written in a loop and read after it", e.live_out);
  r.count("partial then whole write of a tensor in a loop body", e.partial_then_whole);
  r.count("in place at the exact boundary (first write reads a source at its last use)", e.in_place_exact);
  r.count("in place one short (the source is read once more after the first write)", e.in_place_one_short);
  r.count("recycled on-chip tensors (written whole again after a read)", recycledTensors(p));
  PeakDemand d = peakDemand(p);
  r.flag("SBUF peak live bytes > capacity", d.sbuf_bytes > uint64_t(p.arch.sbuf_partitions) * p.arch.sbuf_bytes);
  r.flag("PSUM peak live banks > capacity", d.psum_banks > p.arch.psum_banks);
  r.flag("register peak live lanes > sp-registers", d.register_lanes > p.arch.sp_registers);
}

}  // namespace

std::vector<ShapeFeature> measureShape(const Program& p) {
  ShapeRows rows;
  const InstructionCounts c = countInstructions(p);
  loopAndViewRows(p, c, rows);
  tensorAndOpRows(p, c, rows);
  dmaPatternRows(p, rows);
  psumRows(p, rows);
  edgeAndPressureRows(p, rows);
  return std::move(rows.f);
}

void ShapeTally::add(const Program& p) {
  std::vector<ShapeFeature> f = measureShape(p);
  if (rows_.empty())
    for (const ShapeFeature& x : f) rows_.push_back(Row{x.name, x.is_flag, 0, 0});
  for (size_t i = 0; i < f.size() && i < rows_.size(); ++i) {
    rows_[i].containing += f[i].count > 0;
    rows_[i].total += f[i].count;
  }
  ++programs_;
}

uint64_t ShapeTally::containing(const std::string& name) const {
  for (const Row& r : rows_)
    if (r.name == name) return r.containing;
  return 0;
}

std::string ShapeTally::table() const {
  size_t width = 7;
  for (const Row& r : rows_) width = std::max(width, r.name.size());
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-*s  %10s  %8s\n", int(width), "feature", "% programs", "mean");
  out += line;
  for (const Row& r : rows_) {
    double pct = programs_ ? 100.0 * double(r.containing) / double(programs_) : 0;
    if (r.is_flag) {
      std::snprintf(line, sizeof line, "%-*s  %9.1f%%  %8s\n", int(width), r.name.c_str(), pct, "");
    } else {
      double mean = programs_ ? double(r.total) / double(programs_) : 0;
      std::snprintf(line, sizeof line, "%-*s  %9.1f%%  %8.2f\n", int(width), r.name.c_str(), pct, mean);
    }
    out += line;
  }
  out += "programs: " + std::to_string(programs_) + "\n";
  return out;
}

std::string ShapeTally::json() const {
  std::string out = "{\"programs\": " + std::to_string(programs_) + ", \"features\": [";
  char buf[64];
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& r = rows_[i];
    double pct = programs_ ? 100.0 * double(r.containing) / double(programs_) : 0;
    std::snprintf(buf, sizeof buf, "%.4f", pct);
    // Feature names are identifiers (letters, digits, '_', '-', '.', '%', ' '), so they need no escaping.
    out += std::string(i ? ",\n  " : "\n  ") + "{\"name\": \"" + r.name + "\", \"flag\": " +
           (r.is_flag ? "true" : "false") + ", \"programs\": " + std::to_string(r.containing) +
           ", \"percent\": " + buf;
    if (!r.is_flag) {
      std::snprintf(buf, sizeof buf, "%.6f", programs_ ? double(r.total) / double(programs_) : 0.0);
      out += ", \"total\": " + std::to_string(r.total) + ", \"mean\": " + buf;
    }
    out += "}";
  }
  return out + "]}\n";
}

}  // namespace allocsim
