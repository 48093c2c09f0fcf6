#include "sim/sequencer.h"

#include <algorithm>
#include <cmath>
#include <string>

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

// Of an instruction's dependences on instructions of one compute engine (PE, ACT, DVE, POOL, SP), only those on the
// youngest of them are kept: each of these engines runs its instructions in program order, so the youngest ends
// last and writes its values last, and it alone can bind (a binding dependence is the one ending last). The waits,
// the cycles and the stall attribution stay the same; a write behind deep engine queues no longer carries one
// dependence per queued reader. Transfers end out of order on their queues and are all kept.
void keepYoungestPerEngine(std::vector<Dependence>& deps) {
  if (deps.size() < 2) return;
  constexpr uint32_t kDma = uint32_t(Engine::DMA);
  uint64_t youngest[kEngines] = {};
  uint32_t compute = 0;
  for (const Dependence& d : deps) {
    const uint32_t e = uint32_t(engineOf(d.producer->op));
    if (e == kDma) continue;
    youngest[e] = std::max(youngest[e], d.seq);
    ++compute;
  }
  if (compute < 2) return;
  size_t kept = 0;
  for (const Dependence& d : deps) {
    const uint32_t e = uint32_t(engineOf(d.producer->op));
    if (e == kDma || d.seq == youngest[e]) deps[kept++] = d;
  }
  deps.resize(kept);
}

}  // namespace

Sequencer::Sequencer(sc_core::sc_module_name name, Shared& shared, Fifo* engine_fifos,
                     std::function<void(uint32_t)> ensure_queues)
    : sc_module(name), s_(shared), engine_fifos_(engine_fifos), ensure_queues_(std::move(ensure_queues)) {
  spawnUnit("thread", start, [this] { runJob(); });
}

void Sequencer::reset() {
  plans_.clear();  // keyed by address: another program's instructions may sit where this one's were
  operand_cache_.resize(kOperandCacheEntries);
  for (CachedOperands& c : operand_cache_) c.inst = nullptr;  // keyed by address too
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

void Sequencer::countStep(const Instruction& inst) {
  SimResult& result = s_.result;
  if (++result.exec.steps > s_.o->max_steps)
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
  for (const IndexTerm& t : inst.mask.c.terms) {
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
  const bool holds = conditionHolds(inst.mask.cmp, evaluateIndex(*s_.p, *s_.phys, inst.mask.c, inst.loc, h));
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
    hi = std::min<__int128>(evaluateIndex(*s_.p, *s_.phys, inst.mask.c, inst.loc, h), inst.hi);
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

const Sequencer::Plan& Sequencer::planOf(const Instruction& inst) {
  if (inst.id >= plans_.size()) plans_.resize(size_t(inst.id) + 1);
  std::unique_ptr<Plan>& slot = plans_[inst.id];
  if (slot && slot->inst == &inst) return *slot;
  if (!slot) slot = std::make_unique<Plan>();
  Plan& plan = *slot;
  plan = Plan{};
  // Address terms, the ts scalar register and scalar sources (8 views x 2 indices x kMaxIndexTerms terms +
  // affine_select's offset c + the scalar registers (ts's two; act's scale and bias) and two scalar sources).
  auto add = [&](RegId r) {
    if (r == kNone) return;
    if (r >= s_.p->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    plan.regs.push_back(r);
    const uint32_t lane = s_.layout->firstLane(r);
    plan.lanes.emplace_back(lane, lane + s_.layout->lanes(r));
  };
  bool register_terms = false;
  for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b, &inst.scalar.ap.get(), &inst.scalar2.ap.get(), &inst.scale.ap.get(),
                                  &inst.bias.ap.get(), &inst.reduce_dst})
    for (const Index* index : {&ap->partition, &ap->offset})
      for (const IndexTerm& term : index->terms) add(term.reg), register_terms = true;
  for (const IndexTerm& term : inst.mask.c.terms) add(term.reg);  // empty but for affine_select and iota
  for (const ScalarOperand* sc : scalarOperands(inst))
    if (sc->kind == ScalarOperand::Kind::Reg) add(sc->reg);
  if (inst.op == Op::Addi || inst.op == Op::Add || inst.op == Op::Mov || inst.op == Op::RegStore) add(inst.rs);
  if (inst.op == Op::Add) add(inst.rt);
  if (!register_terms) {
    resolveOperands(inst, plan.operands);  // throws as dispatch would, at the first execution
    plan.static_operands = true;
  }
  plan.inst = &inst;
  return plan;
}

void Sequencer::readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec) {
  // Read now, once every SP instruction that writes one of them has finished (a RAW stall of the sequencer).
  std::vector<Dependence>& deps = rec.deps;  // scratch until the operands are entered
  deps.clear();
  for (const auto& [lo, hi] : plan.lanes) s_.board.sequencerRegisterAccess(lo, hi, DepKind::RAW, deps);
  waitDeps(deps, &inst);
  deps.clear();
  for (RegId r : plan.regs) rec.regs.emplace_back(r, s_.phys->readReg(r));
}

void Sequencer::resolveOperands(const Instruction& inst, Operands& out) {
  out.n = 0;
  out.latency = out.bytes = out.descriptors = out.fabric = 0;
  out.streams_over_itself = false;
  out.views.clear();
  OperandHasher unused(false);  // the hash is taken when the engine reads (startRecord)
  auto view = [&](const AccessPattern& ap) {
    ResolvedView v = resolveView(*s_.p, *s_.phys, ap, s_.max_view_bytes, unused);
    out.views.add(ap, v);
    return v;
  };
  auto enter = [&](const Footprint& fp, bool write, bool accumulate = false) {
    out.access[out.n++] = {fp, write, accumulate};
  };
  auto read = [&](const ResolvedView& v) { enter(viewFootprint(*s_.layout, v), false); };
  auto write = [&](const ResolvedView& v) { enter(viewFootprint(*s_.layout, v), true); };
  auto writeReg = [&](RegId r) {
    if (r >= s_.p->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    enter(registerFootprint(*s_.layout, r), true);
  };
  const TimingTable& t = *s_.timing;
  switch (inst.op) {
    case Op::Dma: {
      ResolvedView d = view(inst.dst), a = view(inst.a);
      read(a);
      write(d);
      // A converting DMA moves the wider side's bytes (sim/timing/default.txt "dma.convert-fixed").
      out.bytes = std::max(a.bytes(), d.bytes());
      out.descriptors = dmaDescriptors(d, a, s_.p->tensors[d.tensor].space, s_.p->tensors[a.tensor].space);
      const DmaCost cost = dmaTransferCycles(t, out.bytes, out.descriptors);
      out.latency = cost.span;
      out.fabric = cost.fabric;
      if (d.dtype != a.dtype) out.latency += uint64_t(std::ceil(t.dma_convert_fixed));
      return;
    }
    case Op::Matmul: {
      ResolvedView d = view(inst.dst), a = view(inst.a), b = view(inst.b);
      read(a);
      read(b);
      enter(viewFootprint(*s_.layout, d), false, true);  // accumulating into d reads it
      write(d);
      out.latency = computeCycles(t, inst, &d, &a, &b);
      return;
    }
    case Op::Copy:
    case Op::Act:
    case Op::Reduce:
    case Op::TT:
    case Op::TS: {
      ResolvedView d = view(inst.dst), a = view(inst.a);
      const bool streams = inst.op != Op::Reduce;  // sim/stream.h
      auto source = [&](const ResolvedView& v) {
        read(v);
        out.streams_over_itself |= streams && overlapsAtAnOffset(*s_.layout, d, v);
      };
      source(a);
      ResolvedView second;
      if (inst.op == Op::TT) source(second = view(inst.b));
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor) source(view(sc->ap));
      write(d);
      if (hasFusedReduce(inst)) write(view(inst.reduce_dst));  // the same engine pass writes R (docs/format.md)
      out.latency = computeCycles(t, inst, &d, &a, inst.op == Op::TT ? &second : nullptr, s_.p);
      return;
    }
    case Op::Memset:
    case Op::Iota: {
      ResolvedView d = view(inst.dst);
      write(d);
      out.latency = computeCycles(t, inst, &d, nullptr, nullptr);
      return;
    }
    // POOL, the PE moves and DVE's statistics do not stream (sim/stream.h): they read at their start and write at
    // their end. A scan's element depends on the one before, and bn_stats / bn_aggr write their results at the end.
    case Op::Select:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::TTScan: {
      ResolvedView d = view(inst.dst), a = view(inst.a);
      read(a);
      if (inst.op == Op::TTScan) {
        read(view(inst.b));
        if (inst.scalar.kind == ScalarOperand::Kind::Tensor) read(view(inst.scalar.ap));
      }
      write(d);
      out.latency = computeCycles(t, inst, &d, &a, nullptr);
      return;
    }
    case Op::RegLoad: read(view(inst.a)), writeReg(inst.rd); break;
    case Op::RegStore: write(view(inst.dst)); break;
    case Op::Li:
    case Op::Addi:
    case Op::Add:
    case Op::Mov: writeReg(inst.rd); break;
    case Op::Loop:
    case Op::If: break;
  }
  out.latency = computeCycles(t, inst, nullptr, nullptr, nullptr);
  return;
}

const Operands* Sequencer::resolveWithRegisters(const Instruction& inst, Record& rec) {
  const size_t n = rec.regs.size();
  if (n > CachedOperands::kMaxRegs) {
    resolveOperands(inst, rec.own_operands);
    return &rec.own_operands;
  }
  uint64_t h = uint64_t(inst.id) * 0x9e3779b97f4a7c15ULL;
  for (const auto& [reg, v] : rec.regs) h = (h ^ v) * 0x100000001b3ULL;
  CachedOperands& c = operand_cache_[(h ^ (h >> 29)) & (kOperandCacheEntries - 1)];
  bool hit = c.inst == &inst && c.n == n;
  for (size_t i = 0; hit && i < n; ++i) hit = c.regs[i] == rec.regs[i].second;
  if (!hit) {
    c.inst = nullptr;
    resolveOperands(inst, c.operands);  // throws as before; nothing is cached then
    c.inst = &inst;
    c.n = uint32_t(n);
    for (size_t i = 0; i < n; ++i) c.regs[i] = rec.regs[i].second;
  }
  // An instruction whose data is skipped has its operands read by dispatch alone: the entry serves as it is.
  if (s_.dataSkipped(inst)) return &c.operands;
  rec.own_operands.assign(c.operands);
  return &rec.own_operands;
}

void Sequencer::enterOperands(const Plan& plan, const Instruction& inst, uint32_t slot, Record& rec) {
  rec.operands = plan.static_operands ? &plan.operands : resolveWithRegisters(inst, rec);
  const Operands& ops = *rec.operands;
  const bool starts_sum = holds(inst.start, rec.first, rec.last);
  for (uint32_t i = 0; i < ops.n; ++i) {
    const Operands::Access& a = ops.access[i];
    if (a.accumulate && starts_sum) continue;
    s_.board.access(a.fp, a.write, slot, rec.seq, &inst, true, rec.deps);
  }
  rec.latency = ops.latency;
  rec.fabric = ops.fabric;
  rec.bytes = ops.bytes;
  rec.descriptors = ops.descriptors;
  rec.streams_over_itself = ops.streams_over_itself;
}

void Sequencer::enterPorts(const Instruction& inst, uint32_t slot, Record& rec) {
  const TimingTable& t = *s_.timing;
  if (!t.port_dve_pool_sbuf && !t.port_dve_act_psum) return;
  const Engine e = engineOf(inst.op);
  if (e != Engine::DVE && e != Engine::POOL && e != Engine::ACT) return;
  bool sbuf = false, psum = false;
  const Operands& ops = *rec.operands;
  for (uint32_t i = 0; i < ops.n; ++i) {
    const Footprint& fp = ops.access[i].fp;
    if (fp.empty()) continue;
    sbuf |= fp.resource == Footprint::kSbuf;
    psum |= fp.resource == Footprint::kPsum;
  }
  // Waits for the other side's youngest user (ending after every older one: its engine runs in order), then
  // becomes its own side's youngest user.
  auto use = [&](PortSide own, PortSide other) {
    const PortUser& u = port_users_[other];
    if (u.seq != 0 && s_.record(u.slot).seq == u.seq)
      rec.deps.push_back({u.slot, u.seq, DepKind::Port, u.inst, Dependence::kEndUnknown, false});
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
  rec.first = !loop || loop->first;
  rec.last = !loop || loop->last;
  const Plan& plan = planOf(inst);
  readRegistersAtDispatch(plan, inst, rec);
  enterOperands(plan, inst, slot, rec);
  enterPorts(inst, slot, rec);
  if (s_.dataSkipped(inst)) rec.operands = nullptr;  // possibly the operand cache's entry, replaced by a later miss
  keepYoungestPerEngine(rec.deps);
  orderDependences(rec.deps);
  s_.noteProducers(rec.deps);
  if (s_.o->record_reads) {
    rec.read_index = s_.result.exec.reads.size();
    s_.result.exec.reads.push_back({inst.id, 0});
  }
  ++s_.result.stats.instructions;
  rec.dispatch_cycle = clock_;
  fifo.slots.push_back(slot);
  fifo.pushed.notifyWaiters();  // the engine starts it no earlier than its dispatch cycle (sim/engine.h)
}

}  // namespace allocsim::sim
