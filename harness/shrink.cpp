#include "harness/shrink.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <optional>

#include "verify/program_ids.h"
#include "ir/check.h"

namespace allocsim {
namespace {

size_t countBody(const std::vector<Instruction>& body) {
  size_t n = 0;
  forEachInstruction(body, [&](const Instruction&) { ++n; });
  return n;
}

// The body without the instructions whose preorder index is in [first, last); a removed loop takes its body.
std::vector<Instruction> without(const std::vector<Instruction>& body, size_t first, size_t last, size_t& index) {
  std::vector<Instruction> out;
  for (const Instruction& inst : body) {
    const size_t mine = index++;
    if (mine >= first && mine < last) {
      if (hasBody(inst.op)) index += countBody(inst.body);
      continue;
    }
    Instruction copy = withoutBody(inst);
    if (hasBody(inst.op)) copy.body = without(inst.body, first, last, index);
    out.push_back(std::move(copy));
  }
  return out;
}

// Calls f(inst) with a mutable reference to the instruction of preorder index `target`.
template <typename F>
bool atIndex(std::vector<Instruction>& body, size_t target, size_t& index, F&& f) {
  for (size_t k = 0; k < body.size(); ++k) {
    if (index++ == target) {
      f(body, k);
      return true;
    }
    if (hasBody(body[k].op) && atIndex(body[k].body, target, index, f)) return true;
  }
  return false;
}

template <typename F>
std::optional<Program> editAt(const Program& p, size_t target, F&& f) {
  Program c = p;
  size_t index = 0;
  bool changed = false;
  atIndex(c.body, target, index, [&](std::vector<Instruction>& body, size_t k) { changed = f(body, k); });
  if (!changed) return std::nullopt;
  c.renumber();
  return c;
}

// Every index in `body` (loops and blocks included) that may name a register: the views' partition, offset and tile
// indices, and affine_select's offset c.
void forEachIndex(std::vector<Instruction>& body, const std::function<void(Index&)>& index) {
  for (Instruction& i : body) {
    for (AccessPattern* ap : storedViews(i)) {
      if (!ap) continue;
      index(ap->partition), index(ap->offset);
      if (ap->tile) index(*ap->tile);  // the offset holds the tile's terms too: both change
    }
    if (RareOperands* r = i.rare.ifStored()) index(r->mask.c);  // unstored: no register named
    if (hasBody(i.op)) forEachIndex(i.body, index);
  }
}

bool isWhole(const Tensor& t, const AccessPattern& ap) {
  return ap.partition.isConstant() && ap.partition.constant == 0 && ap.partitions == t.partitions &&
         ap.offset.isConstant() && ap.offset.constant == 0 && ap.count == t.elements && ap.count2 == 1;
}

// Tensor `t` reshaped; views of the whole tensor follow, other views stay (the checker rejects what no longer fits).
std::optional<Program> reshaped(const Program& p, TensorId t, uint32_t partitions, uint32_t elements) {
  const Tensor& old = p.tensors[t];
  if (partitions == old.partitions && elements == old.elements) return std::nullopt;
  Program c = p;
  std::vector<AccessPattern*> views;
  std::function<void(std::vector<Instruction>&)> walk = [&](std::vector<Instruction>& body) {
    for (Instruction& i : body) {
      for (AccessPattern* ap : storedViews(i)) {
        if (!ap || ap->tensor != t) continue;
        ap->tile.reset();  // a reshaped tile array is a plain tensor; its tile views keep their row offsets
        if (isWhole(old, *ap)) views.push_back(ap);
      }
      if (hasBody(i.op)) walk(i.body);
    }
  };
  walk(c.body);
  for (AccessPattern* ap : views) {
    ap->partitions = partitions;
    ap->count = elements;
  }
  c.tensors[t].partitions = partitions;
  c.tensors[t].elements = elements;
  c.tensors[t].tiles = 1;
  return c;
}

class Shrinker {
 public:
  Shrinker(const Program& failing, const std::function<bool(const Program&)>& stillFails, const ShrinkOptions& opts)
      : best_(failing), still_fails_(stillFails), opts_(opts), start_(std::chrono::steady_clock::now()) {}

  ShrinkResult run() {
    bool progress = true;
    while (progress && !outOfBudget()) {
      progress = false;
      progress |= removeInstructions();
      progress |= eachCandidate([&](size_t k) { return loopCandidate(k); }, loopCandidateCount());
      progress |= tryCandidate(dropUnused());
      progress |= tryCandidate(everyMatmulItsOwnGroup());
      progress |= eachCandidate([&](size_t k) { return withoutRegisterTerms(k); }, best_.registers.size());
      progress |= eachCandidate([&](size_t k) { return registerFolded(k); }, best_.registers.size());
      progress |= eachCandidate([&](size_t k) { return dropOneDeclaration(k); }, best_.tensors.size() + best_.registers.size());
      progress |= eachCandidate([&](size_t k) { return outputCandidate(k); }, best_.tensors.size());
      progress |= eachCandidate([&](size_t k) { return shapeCandidate(k); }, best_.tensors.size() * 4);
      progress |= eachCandidate([&](size_t k) { return simplerInstruction(k); }, countBody(best_.body) * kSimplifications);
    }
    ShrinkResult r;
    r.program = best_;
    r.attempts = attempts_;
    r.accepted = accepted_;
    r.rejected_ill_formed = ill_formed_;
    r.seconds = elapsed();
    r.budget_exhausted = outOfBudget();
    return r;
  }

 private:
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool outOfBudget() const { return attempts_ >= opts_.max_attempts || elapsed() >= opts_.max_seconds; }

  // Runs the predicate on a well-formed candidate; keeps it when it still fails.
  bool tryCandidate(std::optional<Program> c) {
    if (!c || outOfBudget() || *c == best_) return false;
    // A program without instructions is no input (every verb refuses it): the smallest candidate keeps one.
    if (c->body.empty()) return false;
    c->renumber();
    CheckOptions co;
    co.max_steps = uint64_t(1) << 22;
    if (!checkProgram(*c, co).empty()) {
      ++ill_formed_;
      return false;
    }
    ++attempts_;
    if (!still_fails_(*c)) return false;
    ++accepted_;
    best_ = std::move(*c);
    return true;
  }

  // Candidates k = 0..n-1 from a generator that reads best_ (re-read after every success, so indexes shift).
  template <typename G>
  bool eachCandidate(G&& candidate, size_t n) {
    bool any = false;
    for (size_t k = 0; k < n && !outOfBudget(); ++k)
      if (tryCandidate(candidate(k))) any = true;
    return any;
  }

  // ddmin's complement step: remove chunks, from the end (later instructions depend on earlier ones), halving
  // the chunk size down to one instruction.
  bool removeInstructions() {
    bool any = false;
    for (size_t chunk = std::max<size_t>(countBody(best_.body) / 2, 1); !outOfBudget(); chunk /= 2) {
      for (size_t end = countBody(best_.body); end > 0 && !outOfBudget();) {
        const size_t first = end > chunk ? end - chunk : 0;
        Program c = best_;
        size_t index = 0;
        c.body = without(best_.body, first, end, index);
        if (tryCandidate(std::move(c))) any = true;
        end = std::min(first, countBody(best_.body));
      }
      if (chunk == 1) break;
    }
    return any;
  }

  size_t loopCandidateCount() const { return countBody(best_.body) * 3; }
  // Per instruction: unwrap a loop (its register set to the first value), run it once, run half its trips.
  std::optional<Program> loopCandidate(size_t k) {
    const size_t target = k / 3, how = k % 3;
    return editAt(best_, target, [&](std::vector<Instruction>& body, size_t at) {
      Instruction& loop = body[at];
      if (loop.op != Op::Loop || loop.step <= 0) return false;
      const int64_t trips = (loop.hi - loop.lo + loop.step - 1) / loop.step;
      if (how == 0) {
        Instruction li;
        li.op = Op::Li;
        li.rd = loop.rd;
        li.imm.i = loop.lo;
        li.loc = loop.loc;
        std::vector<Instruction> inner = std::move(loop.body);
        body.erase(body.begin() + long(at));
        body.insert(body.begin() + long(at), inner.begin(), inner.end());
        body.insert(body.begin() + long(at), li);
        return true;
      }
      const int64_t want = how == 1 ? 1 : (trips + 1) / 2;
      if (want >= trips) return false;
      loop.hi = loop.lo + want * loop.step;
      if (RareOperands* r = loop.rare.ifStored()) r->mask.c = Index{};  // a register bound becomes the constant one
      return true;
    });
  }

  // Accumulation groups tie their matmuls together (a stop needs its start): closing every group at once frees
  // the matmuls to be removed one by one.
  std::optional<Program> everyMatmulItsOwnGroup() {
    Program c = best_;
    std::function<void(std::vector<Instruction>&)> walk = [&](std::vector<Instruction>& body) {
      for (Instruction& i : body) {
        if (i.op == Op::Matmul) i.start = i.stop = When::Always;
        if (hasBody(i.op)) walk(i.body);
      }
    };
    walk(c.body);
    return c;
  }

  // Views (and affine_select offsets) that index with register `r` use their constant part alone (r's value as if 0): the instructions
  // computing r can then go.
  std::optional<Program> withoutRegisterTerms(size_t r) {
    Program c = best_;
    bool changed = false;
    auto index = [&](Index& i) {
      auto it = std::find_if(i.terms.begin(), i.terms.end(), [&](const IndexTerm& t) { return t.reg == RegId(r); });
      if (it == i.terms.end()) return;
      i.terms.erase(it);
      changed = true;
    };
    forEachIndex(c.body, index);
    if (!changed) return std::nullopt;
    return c;
  }

  // Views that index with register `r` use the value r gets at its first top-level write instead (an `li`, or a
  // `mov`, `addi` or `add` from registers whose values are known there): an address computed as `r*2-98` with
  // r = 49 becomes 0, where dropping the term (withoutRegisterTerms) would leave -98. The instructions computing r
  // can then go.
  std::optional<Program> registerFolded(size_t r) {
    std::map<RegId, int64_t> known;
    std::optional<int64_t> value;
    for (const Instruction& i : best_.body) {
      if (hasBody(i.op)) break;  // values after a loop or if are not followed
      std::optional<int64_t> v;
      if (i.op == Op::Li && !i.imm.is_float) v = i.imm.i;
      if (i.op == Op::Mov && known.count(i.rs)) v = known[i.rs];
      // add / addi of known values, wrapped at the destination's width as the register would hold it.
      const uint64_t mask = i.rd < best_.registers.size() && best_.registers[i.rd].width == 64 ? ~uint64_t(0)
                                                                                               : 0xffffffffu;
      if (i.op == Op::Addi && known.count(i.rs) && !i.imm.is_float)
        v = int64_t((uint64_t(known[i.rs]) + uint64_t(i.imm.i)) & mask);
      if (i.op == Op::Add && known.count(i.rs) && known.count(i.rt))
        v = int64_t((uint64_t(known[i.rs]) + uint64_t(known[i.rt])) & mask);
      if (i.rd == kNone || (i.op != Op::Li && i.op != Op::Mov && i.op != Op::Addi && i.op != Op::Add &&
                            i.op != Op::RegLoad))
        continue;
      if (i.rd == RegId(r)) {
        value = v;
        break;
      }
      if (v) known[i.rd] = *v;
      else known.erase(i.rd);
    }
    if (!value) return std::nullopt;
    Program c = best_;
    bool changed = false;
    auto index = [&](Index& ix) {
      auto it = std::find_if(ix.terms.begin(), ix.terms.end(), [&](const IndexTerm& t) { return t.reg == RegId(r); });
      if (it == ix.terms.end()) return;
      ix.constant = int64_t(uint64_t(ix.constant) + uint64_t(it->scale) * uint64_t(*value));  // wraps: still checked
      ix.terms.erase(it);
      changed = true;
    };
    forEachIndex(c.body, index);
    if (!changed) return std::nullopt;
    return c;
  }

  std::optional<Program> dropUnused() {
    Program c = best_;
    dropUnusedDeclarations(c);
    return c;
  }

  // One unused declaration at a time, when dropping them all loses the failure (an allocator may fail on a tensor
  // nothing touches).
  std::optional<Program> dropOneDeclaration(size_t k) {
    std::vector<bool> tensor_used(best_.tensors.size()), register_used(best_.registers.size());
    Program c = best_;
    forEachReference(c.body, [&](TensorId& t) { tensor_used[t] = true; }, [&](RegId& r) { register_used[r] = true; });
    std::vector<TensorId> tensor_to(best_.tensors.size());
    std::vector<RegId> register_to(best_.registers.size());
    for (size_t i = 0; i < tensor_to.size(); ++i) tensor_to[i] = TensorId(i);
    for (size_t i = 0; i < register_to.size(); ++i) register_to[i] = RegId(i);
    auto dropFrom = [](auto& to, size_t at) {
      to[at] = kNone;
      for (size_t i = at + 1; i < to.size(); ++i) --to[i];
    };
    if (k < tensor_to.size()) {
      if (tensor_used[k]) return std::nullopt;
      dropFrom(tensor_to, k);
    } else {
      k -= tensor_to.size();
      if (k >= register_to.size() || register_used[k]) return std::nullopt;
      dropFrom(register_to, k);
    }
    renumberDeclarations(c, tensor_to, register_to);
    return c;
  }

  // An output nobody needs lets the instructions that write it go.
  std::optional<Program> outputCandidate(size_t t) {
    if (t >= best_.tensors.size() || !best_.tensors[t].output) return std::nullopt;
    Program c = best_;
    c.tensors[t].output = false;
    return c;
  }

  // Per tensor: one partition, half the partitions, one element, half the elements.
  std::optional<Program> shapeCandidate(size_t k) {
    const TensorId t = TensorId(k / 4);
    if (t >= best_.tensors.size()) return std::nullopt;
    const Tensor& x = best_.tensors[t];
    switch (k % 4) {
      case 0: return reshaped(best_, t, 1, x.elements);
      case 1: return reshaped(best_, t, std::max(1u, x.partitions / 2), x.elements);
      case 2: return reshaped(best_, t, x.partitions, 1);
      default: return reshaped(best_, t, x.partitions, std::max(1u, x.elements / 2));
    }
  }

  // Per instruction: immediates to 0, affine_select to copy, no fused reduction, no second ts op, activation to
  // identity, ALU op to add, a matmul made its own accumulation group, or the whole instruction replaced by a memset
  // of its destination view or of the whole destination tensor (which cuts it loose from its sources and register
  // terms, so their writers can go too).
  static constexpr size_t kSimplifications = 6;
  std::optional<Program> simplerInstruction(size_t k) {
    const size_t target = k / kSimplifications, how = k % kSimplifications;
    const Program& p = best_;
    return editAt(best_, target, [&](std::vector<Instruction>& body, size_t at) {
      Instruction& i = body[at];
      switch (how) {
        case 0: {
          Immediate zero;
          bool changed = false;
          if ((i.op == Op::Memset || i.op == Op::Select || i.op == Op::Li || i.op == Op::Addi) && !(i.imm == zero))
            i.imm = zero, changed = true;
          if (i.op == Op::TS && i.scalar.kind == ScalarOperand::Kind::Imm && !(i.scalar.imm == zero))
            i.scalar.imm = zero, changed = true;
          return changed;
        }
        case 1:
          if (i.op == Op::Select) {  // affine_select without its mask: a copy (the same conversion of every element)
            Instruction c;
            c.op = Op::Copy;
            c.loc = i.loc;
            c.dst = i.dst;
            c.a = i.a;
            i = std::move(c);
            return true;
          }
          // Without a fused reduction, then ts without its second op (docs/format.md "Fused reduction", "Two-op ts").
          if (hasFusedReduce(i)) {
            i.rare.mut().reduce_dst = AccessPattern{};
            i.reduce_alu = AluOp::Add;
            return true;
          }
          if (hasSecondOp(i)) {
            i.rare.mut().scalar2 = ScalarOperand::absent();
            i.alu2 = AluOp::Add;
            return true;
          }
          if (hasScaleOrBias(i)) {  // act without its scale and bias first, then with the identity
            i.rare.mut().scale.kind = i.rare.mut().bias.kind = ScalarOperand::Kind::None;
            return true;
          }
          if (i.op != Op::Act || i.func == ActFunc::Identity) return false;
          i.func = ActFunc::Identity;
          return true;
        case 2:
          if ((i.op != Op::TT && i.op != Op::TS && i.op != Op::Reduce) || i.alu == AluOp::Add) return false;
          i.alu = AluOp::Add;
          return true;
        case 3:
          // A matmul that opens and closes its own accumulation group no longer ties its group together.
          if (i.op != Op::Matmul || (i.start == When::Always && i.stop == When::Always)) return false;
          i.start = i.stop = When::Always;
          return true;
        default: {
          // Every instruction that writes a destination tensor (not a register, a loop or an if), and a memset of a
          // view made whole.
          const bool writes = i.op == Op::Memset ? how == 5 : !hasBody(i.op) && i.dst.tensor != kNone;
          if (!writes || i.dst.tensor == kNone || p.tensors[i.dst.tensor].space == Space::Dram) return false;
          Instruction m;
          m.op = Op::Memset;
          m.loc = i.loc;
          m.dst = how == 4 ? i.dst : wholeTensor(p, i.dst.tensor);
          if (how == 5 && m.dst == i.dst && i.op == Op::Memset) return false;
          i = std::move(m);
          return true;
        }
      }
    });
  }

  Program best_;
  const std::function<bool(const Program&)>& still_fails_;
  ShrinkOptions opts_;
  std::chrono::steady_clock::time_point start_;
  uint32_t attempts_ = 0, accepted_ = 0, ill_formed_ = 0;
};

}  // namespace

size_t instructionCount(const Program& p) { return countBody(p.body); }

Program smallestProgram(const Arch& arch) {
  Program p;
  p.arch = arch;
  Tensor t;
  t.name = "t";
  t.space = Space::Sbuf;
  t.partitions = 1;
  t.elements = 1;
  t.dtype = DType::F32;
  p.tensors.push_back(t);
  Instruction m;
  m.op = Op::Memset;
  m.dst = wholeTensor(p, 0);
  p.body.push_back(m);
  p.renumber();
  return p;
}

ShrinkResult shrinkProgram(const Program& failing, const std::function<bool(const Program&)>& stillFails,
                           const ShrinkOptions& opts) {
  return Shrinker(failing, stillFails, opts).run();
}

}  // namespace allocsim
