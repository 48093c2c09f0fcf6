#include "sim/sequencer.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/operand_table.h"
#include "sim/stream.h"
#include "sim/timing.h"

namespace allocsim::sim {

namespace {

bool holds(When w, bool first, bool last) {
  switch (w) {
    case When::Never: return false;
    case When::Always: return true;
    case When::First: return first;
    case When::Last: return last;
  }
  return false;
}

}  // namespace

Sequencer::Sequencer(sc_core::sc_module_name name, Shared& shared, Fifo* engine_fifos,
                     std::function<void(uint32_t)> ensure_queues)
    : sc_module(name), s_(shared), engine_fifos_(engine_fifos), ensure_queues_(std::move(ensure_queues)) {
  spawnUnit("thread", start, [this] { runJob(); });
}

void Sequencer::reset() {
  plans_.clear();  // keyed by address: another program's instructions may sit where this one's were
}

void Sequencer::runJob() {
  try {
    ensure_queues_(s_.p->arch.dma_queues);
    clock_ = s_.now();
    for (PortUser& u : port_users_) u = PortUser{};
    runBody(s_.p->body, nullptr);
    s_.last_cycle = std::max(s_.last_cycle, clock_);
  } catch (const Aborted&) {
  } catch (...) {
    s_.fail(std::current_exception());
  }
  s_.dispatch_done = true;
  for (uint32_t e = 0; e < kEngines; ++e) engine_fifos_[e].pushed.notifyWaiters();
}

void Sequencer::advance(uint64_t cycles) {
  clock_ += cycles;
  if (!s_.vcd) return;
  s_.busy[kEngines] = true;
  s_.syncTo(clock_);
  s_.busy[kEngines] = false;
}

void Sequencer::waitDeps(std::vector<Dependence>& deps, const Instruction* consumer) {
  if (deps.empty()) return;
  orderDependences(deps);  // the binding one among several ending together: the youngest, as for the engines
  s_.waitUntilDone(deps);  // their values first
  const Dependence* binding = nullptr;
  const uint64_t end = s_.endOfAll(deps, clock_, binding);
  if (!binding) return;  // all ended by the sequencer's clock: no stall
  s_.result.stats.addStall(stallCauseOf(binding->kind), binding->producer, consumer, end - clock_);
  clock_ = end;
}

void Sequencer::stepBeyondCount(const Instruction& inst) {
  SimResult& result = s_.result;
  if (result.exec.steps > s_.o->max_steps)
    throw InputError(inst.loc, "execution did not finish within " + std::to_string(s_.o->max_steps) + " steps");
  if (s_.o->progress && result.exec.steps % kProgressSteps == 0)
    (*s_.o->progress)("simulating", result.exec.steps, "steps");
}

void Sequencer::runBody(const std::vector<Instruction>& body, const LoopPos* loop) {
  for (const Instruction& inst : body) {
    if (inst.op == Op::Loop) runLoop(inst);
    else if (inst.op == Op::If) runIf(inst, loop);
    else dispatch(inst, loop);
  }
}

// Waits for the SP instructions writing the registers of an if's condition or a loop's register bound (RAW).
void Sequencer::waitForIndexRegisters(const Instruction& inst) {
  std::vector<Dependence>& deps = loop_deps_;
  deps.clear();
  for (const IndexTerm& t : inst.rare->mask.c.terms) {
    if (t.reg >= s_.p->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    const uint32_t lane = s_.layout->firstLane(t.reg);
    s_.board.sequencerRegisterAccess(lane, lane + s_.layout->lanes(t.reg), DepKind::RAW, deps);
  }
  waitDeps(deps, &inst);
  deps.clear();
}

// The sequencer decides an if itself, as it steps a loop: it waits for the SP instructions writing the condition's
// registers (RAW), reads them, spends the if's cycles (timing.cpp) and runs the body in the enclosing loop's iteration
// when the condition holds. The condition's value is the if's operand read, hashed as the interpreter hashes it.
void Sequencer::runIf(const Instruction& inst, const LoopPos* loop) {
  countStep(inst);
  waitForIndexRegisters(inst);
  OperandHasher h(s_.o->record_reads);
  const bool holds = conditionHolds(inst.rare->mask.cmp, evaluateIndex(*s_.p, *s_.phys, inst.rare->mask.c, inst.loc, h));
  if (s_.o->record_reads) s_.result.exec.reads.push_back({inst.id, h.digest()});
  const uint64_t cost = computeCycles(*s_.timing, inst, nullptr, nullptr, nullptr);
  const uint64_t t0 = clock_;
  advance(cost);
  s_.result.stats.sequencer_busy_cycles += cost;
  s_.slice(kSequencerTrack, t0, clock_, &inst);
  if (holds) runBody(inst.body, loop);
}

void Sequencer::runLoop(const Instruction& inst) {
  if (inst.rd >= s_.p->registers.size()) throw InputError(inst.loc, "loop names no register");
  if (inst.step <= 0) throw InputError(inst.loc, "loop step must be positive, got " + std::to_string(inst.step));
  const uint32_t lane = s_.layout->firstLane(inst.rd), lanes = s_.layout->lanes(inst.rd);
  auto setRegister = [&](uint64_t v) {  // after any SP instruction still writing it (WAW)
    std::vector<Dependence>& deps = loop_deps_;  // scratch: used and emptied before the body runs
    deps.clear();
    s_.board.sequencerRegisterAccess(lane, lane + lanes, DepKind::WAW, deps);
    waitDeps(deps, &inst);
    deps.clear();
    s_.phys->writeReg(inst.rd, v);
  };
  const uint64_t cost = computeCycles(*s_.timing, inst, nullptr, nullptr, nullptr);
  __int128 hi = inst.hi;
  if (hasRegisterBound(inst)) {
    // A register bound is read once, on entry, after the SP instructions writing its registers (RAW), in no
    // cycles of its own; as in the interpreter, it is no operand read.
    waitForIndexRegisters(inst);
    OperandHasher h(false);
    hi = std::min<__int128>(evaluateIndex(*s_.p, *s_.phys, inst.rare->mask.c, inst.loc, h), inst.hi);
  }
  __int128 v = inst.lo;  // as the interpreter: v + step cannot overflow
  for (; v < hi; v += inst.step) {
    countStep(inst);
    setRegister(uint64_t(int64_t(v)));
    const uint64_t t0 = clock_;
    advance(cost);
    s_.result.stats.sequencer_busy_cycles += cost;
    ++s_.result.stats.loop_iterations;
    s_.slice(kSequencerTrack, t0, clock_, &inst);
    LoopPos pos{v == inst.lo, v + inst.step >= hi};
    runBody(inst.body, &pos);
  }
  setRegister(uint64_t(int64_t(v)));
}

Sequencer::Plan& Sequencer::makePlan(const Instruction& inst) {
  if (inst.id >= plans_.size()) plans_.resize(size_t(inst.id) + 1);
  std::unique_ptr<Plan>& slot = plans_[inst.id];
  if (!slot) slot = std::make_unique<Plan>();
  Plan& plan = *slot;
  plan = Plan{};
  // The registers its operands read (ir/operand_table.h): the address terms of its views, the registers of an
  // index (affine_select's and iota's offset c) and the registers it reads as values (a scalar, an SP source).
  auto add = [&](RegId r) {
    if (r == kNone) return;
    if (r >= s_.p->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    if (std::find(plan.regs.begin(), plan.regs.end(), r) != plan.regs.end()) return;  // read once
    plan.regs.push_back(r);
    const uint32_t lane = s_.layout->firstLane(r);
    plan.lanes.emplace_back(lane, lane + s_.layout->lanes(r));
  };
  bool register_terms = false;
  for (const OperandUse* use : operandUses(inst)) {
    if (const AccessPattern* ap = operandView(inst, use->operand)) {
      for (const Index* index : {&ap->partition, &ap->offset})
        for (const IndexTerm& term : index->terms) add(term.reg), register_terms = true;
    } else if (use->operand == Operand::MaskC) {
      for (const IndexTerm& term : inst.rare->mask.c.terms) add(term.reg);
    } else if (use->role == Role::Read) {
      add(operandRegister(inst, use->operand));
    }
  }
  if (!register_terms) {
    resolveOperands(inst, plan.operands);  // throws as dispatch would, at the first execution
    plan.static_operands = true;
  }
  plan.data_skipped = s_.dataSkipped(inst);
  plan.inst = &inst;
  return plan;
}

void Sequencer::readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec) {
  // Read now, once every SP instruction that writes one of them has finished (a RAW stall of the sequencer).
  std::vector<Dependence>& deps = rec.deps;  // scratch until the operands are entered
  deps.clear();
  for (const auto& [lo, hi] : plan.lanes) s_.board.sequencerRegisterAccess(lo, hi, DepKind::RAW, deps);
  if (!deps.empty()) {
    waitDeps(deps, &inst);
    deps.clear();
  }
  for (RegId r : plan.regs) rec.regs.emplace_back(r, s_.phys->readReg(r));
}

void Sequencer::resolveOperands(const Instruction& inst, Operands& out, Shape* shape) {
  out.n = 0;
  out.latency = out.bytes = out.descriptors = out.fabric = 0;
  out.streams_over_itself = false;
  out.views.clear();
  if (shape) shape->overlap_pairs.clear();
  const TimingTable& t = *s_.timing;
  if (inst.op == Op::Loop || inst.op == Op::If) {  // the sequencer's own (runLoop, runIf): no operand entered
    out.latency = computeCycles(t, inst, nullptr, nullptr, nullptr);
    return;
  }
  // Its views in the order the instruction names them (ir/operand_table.h: the destination first), each resolved
  // into out.views (at most five: KnownViews::kMax is eight); `number` gives each use's view there, `view` each
  // operand's.
  const OperandUses uses = operandUses(inst);
  uint8_t number[KnownViews::kMax];  // an instruction has at most five operands (OperandUses)
  const ResolvedView* view[size_t(Operand::MaskC) + 1] = {};
  uint8_t dst_number = kNoView;
  OperandHasher unused(false);  // the hash is taken when the engine reads (startRecord)
  for (size_t k = 0; k < uses.size(); ++k) {
    number[k] = kNoView;
    if (const AccessPattern* ap = operandView(inst, uses[k]->operand)) {
      out.views.add(*ap, resolveView(*s_.p, *s_.phys, *ap, s_.max_view_bytes, unused));
      number[k] = uint8_t(out.views.n - 1);
      view[size_t(uses[k]->operand)] = &out.views.view[number[k]];
      if (uses[k]->operand == Operand::Dst) dst_number = number[k];
    }
  }
  auto enter = [&](const Footprint& fp, bool write, bool accumulate, uint8_t from) {
    if (shape) shape->access_view[out.n] = from;
    out.access[out.n++] = {fp, write, accumulate};
  };
  auto footprint = [&](uint8_t v) { return viewFootprint(*s_.layout, out.views.view[v]); };
  // The scoreboard sees its reads first, then matmul's read of the destination it accumulates into, then its
  // writes. ACT's and DVE's elementwise instructions stream (sim/stream.h): a source overlapping the destination
  // at an offset makes the instruction stream over itself.
  const ResolvedView* dst = view[size_t(Operand::Dst)];
  const bool streams = inst.op == Op::Copy || inst.op == Op::Act || inst.op == Op::TT || inst.op == Op::TS;
  for (size_t k = 0; k < uses.size(); ++k) {
    if (uses[k]->role != Role::Read || number[k] == kNoView) continue;
    enter(footprint(number[k]), false, false, number[k]);
    if (!streams) continue;
    out.streams_over_itself |= overlapsAtAnOffset(*s_.layout, *dst, out.views.view[number[k]]);
    if (shape) shape->overlap_pairs.emplace_back(dst_number, number[k]);
  }
  for (size_t k = 0; k < uses.size(); ++k)
    if (uses[k]->role == Role::Accumulate) enter(footprint(number[k]), false, true, number[k]);
  for (size_t k = 0; k < uses.size(); ++k) {
    if (uses[k]->role == Role::Read) continue;
    if (number[k] != kNoView) {
      enter(footprint(number[k]), true, false, number[k]);
      continue;
    }
    const RegId r = operandRegister(inst, uses[k]->operand);
    if (r >= s_.p->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    enter(registerFootprint(*s_.layout, r), true, false, kNoView);
  }
  const ResolvedView *a = view[size_t(Operand::A)], *b = view[size_t(Operand::B)];
  switch (inst.op) {
    case Op::Dma: {
      // A converting DMA moves the wider side's bytes (sim/timing/default.txt "dma.convert-fixed").
      out.bytes = std::max(a->bytes(), dst->bytes());
      const Space ds = s_.p->tensors[dst->tensor].space, as = s_.p->tensors[a->tensor].space;
      out.descriptors = dmaDescriptors(*dst, *a, ds, as);
      const DmaCost cost = dmaTransferCycles(t, out.bytes, out.descriptors, dmaPartitions(*dst, *a, ds),
                                             dmaDramContiguous(*s_.p, *dst, *a));
      out.latency = cost.span;
      out.fabric = cost.fabric;
      if (dst->dtype != a->dtype) out.latency += uint64_t(std::ceil(t.dma_convert_fixed));
      return;
    }
    case Op::Matmul: out.latency = computeCycles(t, inst, dst, a, b); return;
    case Op::Copy:
    case Op::Act:
    case Op::Reduce:
    case Op::TT:
    case Op::TS: out.latency = computeCycles(t, inst, dst, a, inst.op == Op::TT ? b : nullptr, s_.p); return;
    case Op::Memset:
    case Op::Iota: out.latency = computeCycles(t, inst, dst, nullptr, nullptr); return;
    // POOL, the PE moves and DVE's statistics do not stream (sim/stream.h): they read at their start and write at
    // their end. A scan's element depends on the one before, and bn_stats / bn_aggr write their results at the end.
    case Op::Select:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::TTScan: out.latency = computeCycles(t, inst, dst, a, nullptr); return;
    default: out.latency = computeCycles(t, inst, nullptr, nullptr, nullptr); return;
  }
}

void Sequencer::planViews(Plan& plan, const Shape& shape) {
  const Operands& o = plan.operands;
  std::copy(shape.access_view, shape.access_view + o.n, plan.access_view);
  plan.overlap_pairs = shape.overlap_pairs;
  plan.terms.clear();
  plan.views.clear();
  auto limit = [](__int128 v) { return int64_t(std::clamp<__int128>(v, -1, INT64_MAX)); };  // < 0: never in range
  auto addTerms = [&](const Index& index) {
    for (const IndexTerm& t : index.terms) {
      const uint32_t reg = uint32_t(std::find(plan.regs.begin(), plan.regs.end(), t.reg) - plan.regs.begin());
      plan.terms.push_back({reg, t.div, t.mod, t.scale});
    }
    return uint32_t(index.terms.size());
  };
  for (uint32_t a = o.n; a-- > 0;)
    if (plan.access_view[a] != kNoView) plan.view_access[plan.access_view[a]] = uint8_t(a);
  for (uint32_t i = 0; i < o.views.n; ++i) {
    const AccessPattern& ap = *o.views.ap[i];
    if (ap.partition.terms.empty() && ap.offset.terms.empty()) continue;  // resolved once for all
    const Tensor& t = s_.p->tensors[ap.tensor];
    const bool empty = ap.count == 0 || ap.count2 == 0 || ap.partitions == 0;
    const __int128 extent = empty ? 0 : __int128(ap.count2 - 1) * ap.step2 + ap.count - 1;  // last - first element
    PlannedView v;
    v.view = i;
    v.part_constant = ap.partition.constant;
    v.off_constant = ap.offset.constant;
    v.max_part = limit(__int128(t.partitions) - ap.partitions);
    v.max_off = limit(empty ? __int128(t.elements) : __int128(t.elements) - 1 - extent);
    v.first_term = uint32_t(plan.terms.size());
    v.part_terms = addTerms(ap.partition);
    v.off_terms = addTerms(ap.offset);
    v.accesses = 0;
    for (uint32_t a = 0; a < o.n; ++a)
      if (plan.access_view[a] == i) v.accesses |= 1u << a;
    v.footprint = ShapeFootprint(*s_.layout, o.views.view[i]);
    plan.views.push_back(v);
  }
}

bool Sequencer::recompute(Plan& plan, const Record& rec, bool executed) {
  Operands& o = plan.operands;
  const Term* term = plan.terms.data();
  // The index's exact value in 64 bits (resolveView's, which clamps only beyond 2^100); false on overflow.
  auto index = [&](int64_t sum, uint32_t n, int64_t& out) {
    for (const Term* end = term + n; term != end; ++term) {
      uint64_t r = rec.regs[term->reg].second;
      if (term->div != 1) r /= term->div;
      if (term->mod) r %= term->mod;
      int64_t product;
      if (r > uint64_t(INT64_MAX) || __builtin_mul_overflow(term->scale, int64_t(r), &product) ||
          __builtin_add_overflow(sum, product, &sum))
        return false;
    }
    out = sum;
    return true;
  };
  // Each view's footprint goes straight into the accesses that are its (a view without register terms keeps its
  // first resolution's).
  const PlannedView* views = plan.views.data();
  for (size_t i = 0, n = plan.views.size(); i < n; ++i) {
    const PlannedView& v = views[i];
    int64_t part, off;
    if (!index(v.part_constant, v.part_terms, part) || !index(v.off_constant, v.off_terms, off)) return false;
    if (part < 0 || part > v.max_part || off < 0 || off > v.max_off) return false;
    ResolvedView& view = o.views.view[v.view];
    view.partition = uint32_t(part);
    view.offset = uint64_t(off);
    const Footprint f = v.footprint.at(view.partition, view.offset);
    for (uint32_t m = v.accesses; m; m &= m - 1) o.access[__builtin_ctz(m)].fp = f;
  }
  // A destination apart from every source (most) does not stream over itself; one overlapping a source is asked
  // in full (in place is no overlap at an offset). Only an executed instruction's engine asks.
  o.streams_over_itself = false;
  if (executed) {
    auto fp = [&](uint8_t view) -> const Footprint& { return o.access[plan.view_access[view]].fp; };
    for (const auto& [d, src] : plan.overlap_pairs)
      o.streams_over_itself |=
          fp(d).overlaps(fp(src)) && overlapsAtAnOffset(*s_.layout, o.views.view[d], o.views.view[src]);
  }
  return true;
}

const Operands* Sequencer::resolveWithRegisters(Plan& plan, const Instruction& inst, Record& rec) {
  Operands& o = plan.operands;
  if (!plan.shaped || !recompute(plan, rec, !rec.data_skipped)) {
    // The first execution, or a view out of range (resolution throws its error) or an index beyond 64 bits.
    plan.shaped = false;
    Shape shape;
    resolveOperands(inst, o, &shape);
    planViews(plan, shape);
    plan.shaped = true;
  }
  // An instruction whose data is skipped has its operands read by dispatch alone: the plan's serve as they are.
  if (rec.data_skipped) return &o;
  rec.own_operands.assign(o);
  return &rec.own_operands;
}

void Sequencer::enterOperands(Plan& plan, const Instruction& inst, uint32_t slot, Record& rec) {
  rec.operands = plan.static_operands ? &plan.operands : resolveWithRegisters(plan, inst, rec);
  const Operands& ops = *rec.operands;
  const bool starts_sum = holds(inst.start, rec.first, rec.last);
  const Scoreboard::Recorder recorder = s_.board.recorder(slot, rec.seq, &inst);
  for (uint32_t i = 0; i < ops.n; ++i) {
    const Operands::Access& a = ops.access[i];
    if (a.accumulate && starts_sum) continue;
    s_.board.access(recorder, a.fp, a.write, rec.deps);
  }
  rec.latency = ops.latency;
  rec.fabric = ops.fabric;
  rec.bytes = ops.bytes;
  rec.descriptors = ops.descriptors;
  rec.streams_over_itself = ops.streams_over_itself;
}

void Sequencer::enterPorts(Plan& plan, const Instruction& inst, uint32_t slot, Record& rec) {
  const TimingTable& t = *s_.timing;
  const Engine e = engineOf(inst.op);
  // Which memories it accesses: each access's resource and whether it is empty follow from its view's tensor and
  // shape, which no register changes, so the first dispatch's answer holds for every later one.
  if (plan.memories < 0) {
    plan.memories = 0;
    const Operands& ops = *rec.operands;
    for (uint32_t i = 0; i < ops.n; ++i) {
      const Footprint& fp = ops.access[i].fp;
      if (fp.empty()) continue;
      if (fp.resource == Footprint::kSbuf) plan.memories |= 1;
      if (fp.resource == Footprint::kPsum) plan.memories |= 2;
    }
  }
  const bool sbuf = plan.memories & 1, psum = plan.memories & 2;
  // Waits for the other side's youngest user (ending after every older one: its engine runs in order), then
  // becomes its own side's youngest user.
  auto use = [&](PortSide own, PortSide other) {
    const PortUser& u = port_users_[other];
    if (u.seq != 0 && s_.record(u.slot).seq == u.seq)
      rec.deps.push_back(
          {u.seq, u.inst, Dependence::kEndUnknown, u.slot, DepKind::Port, false, uint8_t(engineOf(u.inst->op))});
    port_users_[own] = {slot, rec.seq, &inst};
  };
  if (sbuf && t.port_dve_pool_sbuf) {
    if (e == Engine::DVE) use(kSbufDve, kSbufPool);
    if (e == Engine::POOL) use(kSbufPool, kSbufDve);
  }
  if (psum && t.port_dve_act_psum) {
    if (e == Engine::DVE) use(kPsumDve, kPsumAct);
    if (e == Engine::ACT) use(kPsumAct, kPsumDve);
  }
}

void Sequencer::dispatch(const Instruction& inst, const LoopPos* loop) {
  countStep(inst);
  const uint32_t e = uint32_t(engineOf(inst.op));
  Fifo& fifo = engine_fifos_[e];
  // A full queue stalls the sequencer until the engine takes the oldest instruction in it (the stall's producer),
  // at that instruction's start; when the engine has not decided the start yet, the sequencer waits until it has.
  while (fifo.slots.size() + fifo.heldAt(clock_) >= s_.timing->engine_queue_depth) {
    if (fifo.held.empty()) {
      s_.waitEvent(fifo.popped);
      continue;
    }
    const Fifo::Held& oldest = fifo.held.front();  // starts after the sequencer's clock (heldAt)
    s_.result.stats.addStall(StallCause::EngineBusy, oldest.inst, &inst, oldest.start - clock_);
    clock_ = oldest.start;
  }
  s_.releaseEnded(clock_);
  const uint32_t slot = s_.takeRecord();
  Record& rec = s_.record(slot);
  rec.inst = &inst;
  Plan& plan = planOf(inst);
  rec.data_skipped = plan.data_skipped;
  rec.first = !loop || loop->first;
  rec.last = !loop || loop->last;
  readRegistersAtDispatch(plan, inst, rec);
  enterOperands(plan, inst, slot, rec);
  const Engine engine = Engine(e);
  if ((engine == Engine::DVE || engine == Engine::POOL || engine == Engine::ACT) &&
      (s_.timing->port_dve_pool_sbuf || s_.timing->port_dve_act_psum))
    enterPorts(plan, inst, slot, rec);
  if (rec.data_skipped) rec.operands = nullptr;  // possibly the plan's, recomputed at the next dispatch
  s_.noteProducers(rec.deps);
  if (s_.o->record_reads) {
    rec.read_index = s_.result.exec.reads.size();
    s_.result.exec.reads.push_back({inst.id, 0});
  }
  ++s_.result.stats.instructions;
  rec.dispatch_cycle = clock_;
  fifo.slots.push_back(slot);
  fifo.pushed.notifyWaiters();  // the engine starts it no earlier than its dispatch cycle (sim/engine.h)
  // With no_value_waits its unit takes it at once, on this thread (Unit): every older instruction was taken so, and
  // its producers are older, so their ends are decided. A job then runs on the sequencer's thread with no switch of
  // threads (the units' own threads take what is left only if an instruction was not ready).
  if (s_.no_value_waits) s_.units[e]->stepIfReady();
}

}  // namespace allocsim::sim
