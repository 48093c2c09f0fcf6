// The abstract execution (docs/format.md "Well-formedness", Execution): the program runs with concrete
// register values and no data, loops unrolled. Per tensor it keeps one "written" bit per element (and for
// PSUM one "in an open accumulation group" bit), updated with word-level range operations.
#include <algorithm>

#include "ir/check_internal.h"
#include "ir/check_known_values.h"
#include "ir/element_bits.h"
#include "ir/inline_list.h"

namespace allocsim::check {
namespace {

// Bounds on what one check may cost, whatever the program: memory for the per-element bits, and the
// number of word operations on them (a view costs about one per 64 elements plus one per segment).
constexpr uint64_t kMaxTrackedBytes = uint64_t(256) << 20;
constexpr uint64_t kMaxWordOps = uint64_t(1) << 31;
constexpr size_t kMaxOpeners = 4096;  // remembered matmuls that opened a still-open group, per PSUM tensor

struct RegState {
  uint64_t value = 0;
  bool written = false;
  bool unknown = false;  // loaded from memory, or computed from such a value: not usable as an address
};

struct Opener {
  uint32_t node;  // the matmul with start
  View view;
};

struct TensorState {
  bool allWritten = false;  // inputs are written before the program starts
  ElementBits written;
  ElementBits open;  // PSUM: the element is in an open accumulation group
  std::vector<Opener> openers;
  size_t pruneAt = 64;
};

struct LoopFrame {
  uint32_t node;
  bool first = true, last = false;
};

class Tracer {
 public:
  Tracer(const Program& p, const std::vector<Node>& nodes, DiagSink& sink, const CheckOptions& opts)
      : p_(p), nodes_(nodes), sink_(sink), opts_(opts), regs_(p.registers.size()), tensors_(p.tensors.size()) {
    for (TensorId t = 0; t < p.tensors.size(); ++t) {
      const Tensor& tensor = p.tensors[t];
      uint64_t size = uint64_t(tensor.partitions) * tensor.elements;
      tensors_[t].allWritten = tensor.input;
      tensors_[t].written = ElementBits(size);
      if (tensor.space == Space::Psum) tensors_[t].open = ElementBits(size);
    }
  }

  void run() {
    execRange(0, uint32_t(nodes_.size()));
    if (!stopped_) finish();
  }

 private:
  const Instruction& inst() const { return *nodes_[cur_].inst; }
  const Tensor& tensor(TensorId t) const { return p_.tensors[t]; }
  std::string tensorName(TensorId t) const { return quoted(p_.tensors[t].name); }
  std::string elementText(TensorId t, uint64_t flat) const {
    uint64_t e = tensor(t).elements;
    return shapeText(flat / e, flat % e);
  }
  uint64_t mask(RegId r) const { return p_.registers[r].width == 64 ? ~uint64_t(0) : 0xffffffffu; }

  // --- diagnostics and budgets ----------------------------------------------------------------------

  // One diagnostic per instruction: after the first, the instruction only has its effects.
  // The message is built only when it is reported: a loop may hit the same error millions of times.
  template <typename MessageFn>
  void report(SourceLoc loc, MessageFn&& message) {
    if (quiet_) return;
    quiet_ = true;
    sink_.report(sink_.nodeKey(cur_), loc.known() ? loc : inst().loc, message());
    if (sink_.full()) stopped_ = true;
  }
  // Ends the execution. The reason is always reported: at the node, or if that already has a diagnostic
  // at the nearest enclosing loop that has none, or else at the program.
  void stopWith(uint32_t node, const std::string& message) {
    if (stopped_) return;  // already stopped (and said why)
    stopped_ = true;
    for (uint32_t n = node; n != kNone; n = nodes_[n].loop)
      if (!sink_.has(sink_.nodeKey(n))) return sink_.report(sink_.nodeKey(n), nodes_[n].inst->loc, message);
    sink_.report(sink_.programKey(), SourceLoc{}, message);
  }
  bool countStep(uint32_t node) {
    if (++steps_ <= opts_.max_steps) return true;
    stopWith(loops_.empty() ? node : loops_.back().node,
             "program executes more than " + std::to_string(opts_.max_steps) +
                 " instructions (loop trip counts too large)");
    return false;
  }
  bool charge(const View& v) {
    // About one unit per word and per range or segment the bit operations visit.
    bool periodic = v.step2 < 64 && v.count2 >= 16;
    return chargeUnits(Int(v.np) *
                       (v.oneRun() || periodic ? 2 + v.extent() / 64 : Int(v.count2) * (1 + v.count / 64)));
  }
  bool chargeUnits(Int units) {
    work_ += units;
    if (work_ <= Int(kMaxWordOps)) return true;
    stopWith(cur_, "program touches too many elements to check (more than " + std::to_string(kMaxWordOps) +
                       " word operations on per-element bits)");
    return false;
  }
  bool ensure(ElementBits& bits) {
    if (bits.allocated()) return true;
    if (trackedBytes_ + bits.bytes() <= kMaxTrackedBytes && bits.allocate()) {
      trackedBytes_ += bits.bytes();
      return true;
    }
    stopWith(cur_, "program's tensors are too large to check (more than " + std::to_string(kMaxTrackedBytes >> 20) +
                       " MiB of per-element bits)");
    return false;
  }

  // --- registers and views ----------------------------------------------------------------------------

  const RegState* readReg(RegId r, SourceLoc loc) {
    if (regs_[r].written) return &regs_[r];
    report(loc, [&] { return "register " + quoted(p_.registers[r].name) + " is read before it is written"; });
    return nullptr;
  }
  // The innermost enclosing loop that counts with r, if any.
  const LoopFrame* controllingLoop(RegId r) const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if (nodes_[it->node].inst->rd == r) return &*it;
    return nullptr;
  }
  void setReg(RegId r, uint64_t value, bool unknown = false) { regs_[r] = RegState{value & mask(r), true, unknown}; }

  // " (n = 3, k = 0)": the registers of the view, then the enclosing loops' registers.
  std::string registerValues(const AccessPattern& ap) const {
    std::vector<RegId> shown;
    auto add = [&](RegId r) {
      if (r != kNone && regs_[r].written && std::find(shown.begin(), shown.end(), r) == shown.end()) shown.push_back(r);
    };
    for (const IndexTerm& t : ap.partition.terms) add(t.reg);
    for (const IndexTerm& t : ap.offset.terms) add(t.reg);
    for (const LoopFrame& l : loops_) add(nodes_[l.node].inst->rd);
    if (shown.empty()) return "";
    std::string s = " (";
    for (size_t i = 0; i < shown.size(); ++i)
      s += (i ? ", " : "") + p_.registers[shown[i]].name + " = " + std::to_string(regs_[shown[i]].value);
    return s + ")";
  }

  bool evalIndex(const Index& ix, const AccessPattern& ap, Int& out) {
    out = ix.constant;
    for (const IndexTerm& t : ix.terms) {
      const RegState* r = readReg(t.reg, ap.loc);
      if (!r) return false;
      if (r->unknown) {
        report(ap.loc, [&] {
          return "view of " + tensorName(ap.tensor) + " is addressed by register " + quoted(p_.registers[t.reg].name) +
                 ", whose value was loaded from memory; only a value that reg_store put in that exact memory can be "
                 "reloaded and used in an address";
        });
        return false;
      }
      // Clamped like ir/view.cpp: exact wherever the result can name an element, never overflowing.
      const Int limit = Int(1) << 100;
      Int term = Int(t.scale) * Int(t.apply(r->value));
      term = term > limit ? limit : term < -limit ? -limit : term;
      out += term;
      out = out > limit ? limit : out < -limit ? -limit : out;
    }
    return true;
  }

  std::optional<View> evalView(const AccessPattern& ap) {
    Int p0, off;
    if (!evalIndex(ap.partition, ap, p0) || !evalIndex(ap.offset, ap, off)) return std::nullopt;
    // A tile view is checked against its tile first: the more specific message (it also covers a tile past the
    // last one, which is out of the tensor's bounds too).
    Int tile;
    if (ap.tile && evalIndex(*ap.tile, ap, tile)) {
      std::string problem = tileProblem(p_, ap, p0, tile, off);
      if (!problem.empty()) {
        report(ap.loc, [&] { return problem + registerValues(ap); });
        return std::nullopt;
      }
    }
    std::optional<View> v = viewAt(p_, ap, p0, off);
    if (!v)
      report(ap.loc, [&] {
        const Tensor& t = tensor(ap.tensor);
        return sliceText(p_, ap, p0, off) + " is out of bounds of tensor " + quoted(t.name) + " " +
               shapeText(t.partitions, t.elements) + registerValues(ap);
      });
    return v;
  }

  // Calls range(begin, end) for each maximal flat range the view covers (whole rows of consecutive
  // partitions are one range), or strided(start) for each partition of a strided view, in order, until
  // one returns false.
  template <typename Range, typename Strided>
  void forEachPart(const View& v, Range&& range, Strided&& strided) const {
    const uint64_t elements = tensor(v.tensor).elements;
    if (v.oneRun() && v.off == 0 && v.extent() == elements) {
      range(v.p0 * elements, (v.p0 + v.np) * elements);
      return;
    }
    for (uint64_t p = v.p0; p < v.p0 + v.np; ++p) {
      uint64_t base = p * elements + v.off;
      if (!(v.oneRun() ? range(base, base + v.extent()) : strided(base))) return;
    }
  }

  // The first flat element of `v` whose bit in `bits` is (clear ? clear : set); nullopt if none.
  std::optional<uint64_t> findIn(const View& v, const ElementBits& bits, bool clear) const {
    std::optional<uint64_t> found;
    forEachPart(
        v,
        [&](uint64_t b, uint64_t e) {
          uint64_t x = clear ? bits.findClear(b, e) : bits.findSet(b, e);
          if (x != e) found = x;
          return !found;
        },
        [&](uint64_t start) {
          uint64_t x = clear ? bits.findClearStrided(start, v.count, v.step2, v.count2)
                             : bits.findSetStrided(start, v.count, v.step2, v.count2);
          if (x != ElementBits::kNotFound) found = x;
          return !found;
        });
    return found;
  }
  void setIn(const View& v, ElementBits& bits, bool value) {
    forEachPart(
        v,
        [&](uint64_t b, uint64_t e) {
          value ? bits.set(b, e) : bits.clear(b, e);
          return true;
        },
        [&](uint64_t start) {
          value ? bits.setStrided(start, v.count, v.step2, v.count2)
                : bits.clearStrided(start, v.count, v.step2, v.count2);
          return true;
        });
  }

  // --- memory effects -------------------------------------------------------------------------------

  void readCheck(const View& v, const AccessPattern& ap) {
    if (quiet_ || !charge(v)) return;
    TensorState& ts = tensors_[v.tensor];
    if (!ts.allWritten)
      if (auto x = findIn(v, ts.written, true))
        return report(ap.loc, [&] {
          return "reads never-written element " + elementText(v.tensor, *x) + " of " + tensorName(v.tensor);
        });
    if (ts.open.allocated())
      if (auto x = findIn(v, ts.open, false))
        report(ap.loc, [&] {
          return std::string(opName(inst().op)) + " reads " + tensorName(v.tensor) + " element " +
                 elementText(v.tensor, *x) + " while its accumulation group is open (no matmul with stop has closed it)";
        });
  }

  void write(const View& v, const AccessPattern& ap) {
    if (!charge(v)) return;
    TensorState& ts = tensors_[v.tensor];
    if (!quiet_ && ts.open.allocated())
      if (auto x = findIn(v, ts.open, false))
        report(ap.loc, [&] {
          return std::string(opName(inst().op)) + " writes " + tensorName(v.tensor) + " element " +
                 elementText(v.tensor, *x) + " while its accumulation group is open (only matmul may add to it)";
        });
    if (!ts.allWritten && ensure(ts.written)) setIn(v, ts.written, true);
    if (tensor(v.tensor).space != Space::Psum) chargeUnits(known_.invalidate(v));
  }

  // --- instructions ---------------------------------------------------------------------------------

  bool holds(When w) const {
    switch (w) {
      case When::Never: return false;
      case When::Always: return true;
      case When::First: return loops_.empty() || loops_.back().first;
      case When::Last: return loops_.empty() || loops_.back().last;
    }
    return false;
  }

  void addOpener(TensorState& ts, const View& v) {
    if (!ts.openers.empty() && ts.openers.back().node == cur_ && ts.openers.back().view == v) return;
    ts.openers.push_back({cur_, v});
    if (ts.openers.size() <= ts.pruneAt) return;
    // Forget groups that have been closed since; keeps the list as small as the open groups. Past
    // kMaxOpeners the oldest are forgotten too: a group they opened is then reported at its tensor.
    std::erase_if(ts.openers, [&](const Opener& o) { return !findIn(o.view, ts.open, false); });
    if (ts.openers.size() > kMaxOpeners)
      ts.openers.erase(ts.openers.begin(), ts.openers.end() - kMaxOpeners / 2);
    ts.pruneAt = std::max<size_t>(64, 2 * ts.openers.size());
  }

  void matmul() {
    const Instruction& in = inst();
    std::optional<View> st = evalView(in.a), mv = evalView(in.b), d = evalView(in.dst);
    if (st) readCheck(*st, in.a);
    if (mv) readCheck(*mv, in.b);
    if (!d || stopped_) return;
    TensorState& dst = tensors_[d->tensor];
    if (p_.tensors[d->tensor].space != Space::Psum) {
      // Already reported by the static rules ("matmul destination must be PSUM"): no accumulation state to
      // track (and no `open` bits to index), only the write.
      if (charge(*d) && ensure(dst.written)) setIn(*d, dst.written, true);
      return;
    }
    // Not a structured binding: clang 14 cannot capture those in the lambda.
    if (auto span = bankSpan(p_, in.dst, d->off); span.first != span.second)
      report(in.dst.loc, [&] { return bankMessage(p_, in.dst, span.first, span.second) + registerValues(in.dst); });
    TensorState& ts = dst;
    if (!charge(*d) || !ensure(ts.open) || !ensure(ts.written)) return;
    if (holds(in.start)) {
      if (!quiet_)
        if (auto x = findIn(*d, ts.open, false))
          report(in.dst.loc, [&] {
            return "matmul start on " + tensorName(d->tensor) + " element " + elementText(d->tensor, *x) +
                   ", whose accumulation group is already open (a matmul with stop must close it first)";
          });
      setIn(*d, ts.open, true);
      addOpener(ts, *d);
    } else if (!quiet_) {
      if (auto x = findIn(*d, ts.open, true))
        report(in.dst.loc, [&] {
          return "matmul without start accumulates into " + tensorName(d->tensor) + " element " +
                 elementText(d->tensor, *x) +
                 ", which is not in an open accumulation group (the group's first matmul needs start)";
        });
    }
    setIn(*d, ts.written, true);
    if (holds(in.stop)) setIn(*d, ts.open, false);
  }

  void dataOp() {
    const Instruction& in = inst();
    Sources sources;  // inline: this runs on every executed step
    if (in.op != Op::Memset && in.op != Op::Iota) sources.push_back(&in.a);
    if (in.op == Op::TT || in.op == Op::TTScan) sources.push_back(&in.b);
    for (const ScalarOperand* sc : scalarOperands(in)) {
      if (sc->kind == ScalarOperand::Kind::Tensor) sources.push_back(&sc->ap.get());
      if (sc->kind == ScalarOperand::Kind::Reg) readReg(sc->reg, in.loc);
    }
    // affine_select's and iota's offset c: its registers are read (their values decide which elements are kept, or
    // the values written).
    for (const IndexTerm& t : in.rare->mask.c.terms) readReg(t.reg, in.loc);
    for (const AccessPattern* src : sources)
      if (std::optional<View> v = evalView(*src); v && !stopped_) readCheck(*v, *src);
    if (stopped_) return;
    std::optional<View> d = evalView(in.dst);
    // A PE destination stays inside one PSUM bank (transpose, broadcast), as a matmul's does.
    if (d && (in.op == Op::Transpose || in.op == Op::Broadcast) && p_.tensors[d->tensor].space == Space::Psum)
      if (auto span = bankSpan(p_, in.dst, d->off); span.first != span.second)
        report(in.dst.loc, [&] { return bankMessage(p_, in.dst, span.first, span.second) + registerValues(in.dst); });
    if (stopped_) return;
    if (d) write(*d, in.dst);
    if (hasFusedReduce(in) && !stopped_) fusedReduce(in, d, sources);
  }

  // The fused reduction's destination R (docs/format.md "Fused reduction"): a second write, which may overlap
  // neither DST nor a source (the engine reads every source and writes DST while it folds into R).
  // A data operation's tensor sources: a, b (tt) and up to two scalar operands (act's scale and bias, ts's scalars).
  using Sources = InlineList<const AccessPattern*, 4>;

  void fusedReduce(const Instruction& in, const std::optional<View>& d, const Sources& sources) {
    std::optional<View> r = evalView(in.rare->reduce_dst);
    if (!r || stopped_) return;
    auto overlaps = [&](const View& v) {
      if (v.tensor != r->tensor || r->p0 + r->np <= v.p0 || v.p0 + v.np <= r->p0) return false;
      return v.containsElement(r->off);  // R is [pc, 1]: one element per partition
    };
    InlineList<std::pair<const AccessPattern*, const char*>, 5> others;
    if (d) others.push_back({&in.dst, "destination"});
    for (const AccessPattern* src : sources) others.push_back({src, "source"});
    for (const auto& other : others) {  // not a structured binding: clang 14 cannot capture those in the lambda
      const AccessPattern* ap = other.first;
      const char* role = other.second;
      std::optional<View> v = ap == &in.dst ? d : evalView(*ap);
      if (!v || stopped_ || !overlaps(*v)) continue;
      report(in.rare->reduce_dst.loc, [&] {
        return "reduction destination " + sliceText(p_, in.rare->reduce_dst, r->p0, r->off) + " overlaps the " + role +
               " " + tensorName(v->tensor) + "; it must be a tensor range of its own" + registerValues(in.rare->reduce_dst);
      });
      break;
    }
    write(*r, in.rare->reduce_dst);
  }

  void scalarOp() {
    const Instruction& in = inst();
    // After a read of an unwritten register the result is a made-up 0, so that one mistake is reported once.
    auto source = [&](RegId r) {
      const RegState* s = readReg(r, in.loc);
      return s ? *s : RegState{0, true, false};
    };
    switch (in.op) {
      case Op::Li: return setReg(in.rd, uint64_t(in.imm.i));
      case Op::Addi: {
        RegState s = source(in.rs);
        return setReg(in.rd, s.value + uint64_t(in.imm.i), s.unknown);
      }
      case Op::Add: {
        RegState s = source(in.rs), t = source(in.rt);
        return setReg(in.rd, s.value + t.value, s.unknown || t.unknown);
      }
      case Op::Mov: {
        RegState s = source(in.rs);
        return setReg(in.rd, s.value, s.unknown);
      }
      case Op::RegLoad: {
        RegState out{0, true, true};
        if (std::optional<View> v = evalView(in.a)) {
          readCheck(*v, in.a);
          if (auto k = known_.load(*v)) out = RegState{k->bits, true, k->unknown};
        }
        if (stopped_) return;
        if (const LoopFrame* l = controllingLoop(in.rd); l && (out.unknown || out.value != regs_[in.rd].value))
          report(in.a.loc, [&] {
            const Instruction& loop = *nodes_[l->node].inst;
            return "register " + quoted(p_.registers[in.rd].name) + " is written inside the loop it controls (loop at " +
                   std::to_string(loop.loc.line) + ":" + std::to_string(loop.loc.col) +
                   "): a reload may give it back only the value it holds (" + std::to_string(regs_[in.rd].value) +
                   "), and " + tensorName(in.a.tensor) + " does not hold that value here";
          });
        return setReg(in.rd, out.value, out.unknown);
      }
      case Op::RegStore: {
        std::optional<View> v = evalView(in.dst);
        RegState s = source(in.rs);
        if (!v || stopped_) return;
        write(*v, in.dst);
        known_.store(*v, KnownValues::Value{s.value, s.unknown});
        return;
      }
      default: return;
    }
  }

  void exec(uint32_t node) {
    if (!countStep(node)) return;
    cur_ = node;
    quiet_ = sink_.has(sink_.nodeKey(node));
    switch (inst().op) {
      case Op::Matmul: matmul(); break;
      case Op::Dma:
      case Op::Copy:
      case Op::Act:
      case Op::TT:
      case Op::TS:
      case Op::Reduce:
      case Op::Memset:
      case Op::Select:
      case Op::Iota:
      case Op::Transpose:
      case Op::Broadcast:
      case Op::TTScan:
      case Op::BnStats:
      case Op::BnAggr: dataOp(); break;
      default: scalarOp(); break;
    }
  }

  // A loop's upper bound on this entry: hi, or its register bound evaluated (the enclosing loops' registers, which
  // the static rules require; at most hi, the bound's largest value).
  Int upperBound(const Instruction& in) {
    if (!hasRegisterBound(in)) return in.hi;
    Int c = in.rare->mask.c.constant;
    for (const IndexTerm& t : in.rare->mask.c.terms) {
      const RegState* r = readReg(t.reg, in.loc);
      if (!r) return in.lo;  // reported: the body does not run
      c += Int(t.scale) * Int(t.apply(r->value));
    }
    return std::min(c, Int(in.hi));
  }

  // The register takes LO, LO+STEP, ... while < HI, and afterwards the first value >= HI. A loop with a
  // static error runs its body at most once, so that its body is still checked without running away.
  void execLoop(uint32_t node) {
    if (!countStep(node)) return;
    const Instruction& in = *nodes_[node].inst;
    const bool bad = sink_.has(sink_.nodeKey(node));
    const Int step = std::max<int64_t>(in.step, 1);
    const Int hi = bad ? Int(in.hi) : upperBound(in);
    Int v = in.lo;
    setReg(in.rd, uint64_t(v));
    loops_.push_back({node});
    for (bool firstTrip = true; v < hi && !stopped_; firstTrip = false) {
      if (!firstTrip && !countStep(node)) break;
      loops_.back().first = firstTrip;
      loops_.back().last = v + step >= hi;
      setReg(in.rd, uint64_t(v));
      execRange(node + 1, nodes_[node].end);
      v += step;
      if (bad) break;
    }
    loops_.pop_back();
    if (!stopped_) setReg(in.rd, uint64_t(v));
  }

  // The body runs when the condition holds. Its registers must be written and their values known (not loaded from
  // memory), as an address's must: every pass decides statically which iterations run the body. An if with a static
  // error runs its body once, so that the body is still checked.
  void execIf(uint32_t node) {
    if (!countStep(node)) return;
    cur_ = node;
    quiet_ = sink_.has(sink_.nodeKey(node));
    const Instruction& in = *nodes_[node].inst;
    bool runs = quiet_;
    if (!quiet_) {
      Int c = in.rare->mask.c.constant;
      bool known = true;
      for (const IndexTerm& t : in.rare->mask.c.terms) {
        const RegState* r = readReg(t.reg, in.loc);
        if (!r) {
          known = false;
          continue;
        }
        if (r->unknown) {
          report(in.loc, [&] {
            return "if condition uses register " + quoted(p_.registers[t.reg].name) +
                   ", whose value was loaded from memory; a condition is on loop registers and values computed from "
                   "them";
          });
          known = false;
          continue;
        }
        const Int limit = Int(1) << 100;  // clamped like ir/view.cpp
        Int term = Int(t.scale) * Int(t.apply(r->value));
        c += term > limit ? limit : term < -limit ? -limit : term;
        c = c > limit ? limit : c < -limit ? -limit : c;
      }
      runs = known ? conditionHolds(in.rare->mask.cmp, c) : false;
    }
    if (runs) execRange(node + 1, nodes_[node].end);
  }

  void execRange(uint32_t begin, uint32_t end) {
    for (uint32_t i = begin; i < end && !stopped_;) {
      if (nodes_[i].inst->op == Op::If) {
        execIf(i);
        i = nodes_[i].end;
      } else if (nodes_[i].inst->op == Op::Loop) {
        execLoop(i);
        i = nodes_[i].end;
      } else {
        exec(i++);
      }
    }
  }

  // --- the end of the program -----------------------------------------------------------------------

  void finish() {
    for (TensorId t = 0; t < tensors_.size() && !sink_.full(); ++t) {
      TensorState& ts = tensors_[t];
      if (!ts.open.allocated()) continue;
      uint64_t x = ts.open.findSet(0, ts.open.size());
      if (x == ts.open.size()) continue;
      uint64_t e = tensor(t).elements;
      auto opener = std::find_if(ts.openers.rbegin(), ts.openers.rend(), [&](const Opener& o) {
        return x / e >= o.view.p0 && x / e < o.view.p0 + o.view.np && o.view.containsElement(x % e);
      });
      std::string where = " is still open at the end of the program (element " + elementText(t, x) +
                          "); close it with stop";
      if (opener == ts.openers.rend())  // its matmul was forgotten (kMaxOpeners)
        sink_.report(sink_.tensorKey(t), tensor(t).loc, "an accumulation group on " + tensorName(t) + where);
      else
        sink_.report(sink_.nodeKey(opener->node), nodes_[opener->node].inst->loc,
                     "accumulation group on " + tensorName(t) + " opened by this matmul" + where);
    }
    for (TensorId t = 0; t < tensors_.size() && !sink_.full(); ++t) {
      const TensorState& ts = tensors_[t];
      if (!tensor(t).output || ts.allWritten) continue;
      uint64_t x = ts.written.findClear(0, ts.written.size());
      if (x == ts.written.size()) continue;
      sink_.report(sink_.tensorKey(t), tensor(t).loc,
                   "output tensor " + quoted(tensor(t).name) + " is not fully written: element " + elementText(t, x) +
                       " is never written");
    }
  }

  const Program& p_;
  const std::vector<Node>& nodes_;
  DiagSink& sink_;
  const CheckOptions& opts_;
  std::vector<RegState> regs_;
  std::vector<TensorState> tensors_;
  KnownValues known_;
  std::vector<LoopFrame> loops_;
  uint64_t steps_ = 0, trackedBytes_ = 0;
  Int work_ = 0;
  bool stopped_ = false;
  uint32_t cur_ = 0;     // the node being executed
  bool quiet_ = false;  // it already has its diagnostic
};

}  // namespace

void traceProgram(const Program& p, const std::vector<Node>& nodes, DiagSink& sink, const CheckOptions& opts) {
  Tracer(p, nodes, sink, opts).run();
}

}  // namespace allocsim::check
