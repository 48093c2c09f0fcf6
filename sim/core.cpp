#include "sim/core.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "ir/inputs.h"
#include "ir/plant.h"
#include "sim/footprint.h"
#include "sim/stream.h"

namespace allocsim::sim {

using sc_core::sc_event;
using sc_core::sc_time;

namespace {

constexpr uint64_t kPsPerCycle = 1000;  // model time: one cycle = 1 ns of SystemC time (default 1 ps resolution)
constexpr uint32_t kSequencerTrack = 6, kFirstQueueTrack = 7;
const char* const kEngineThreadNames[kEngines] = {"PE", "ACT", "DVE", "POOL", "SP", "DMA"};

// The interpreter's code and diagnostics run on these threads' stacks (also under ASan): larger than the default.
constexpr int kThreadStackBytes = 1 << 20;

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

uint64_t Core::SnapshotStorage::readReg(RegId r) {
  if (snapshot)
    for (const auto& [reg, v] : *snapshot)
      if (reg == r) return v;
  return phys_.readReg(r);
}

Core::Core(sc_core::sc_module_name name, const std::string& vcd_path, uint32_t queues)
    : sc_module(name), context_(sc_core::sc_get_curr_simcontext()), vcd_path_(vcd_path) {
  if (!vcd_path.empty()) {
    vcd_ = sc_core::sc_create_vcd_trace_file((vcd_path + ".partial").c_str());  // SystemC appends ".vcd"
    vcd_->set_time_unit(1, sc_core::SC_NS);  // one cycle
    for (uint32_t e = 0; e < kEngines; ++e)
      sc_core::sc_trace(vcd_, busy_[e], std::string(kEngineThreadNames[e]) + (e == kEngines - 1 ? "_issue" : "_busy"));
    sc_core::sc_trace(vcd_, busy_[kEngines], "SEQ_loop");
    for (uint32_t q = 0; q < queues && q < 256; ++q)
      sc_core::sc_trace(vcd_, ring_used_[q], "q" + std::to_string(q) + "_ring_slots");
  }
  sc_core::sc_spawn_options o;
  o.set_stack_size(kThreadStackBytes);
  sc_core::sc_spawn([this] { sequencerThread(); }, "sequencer", &o);
  for (uint32_t e = 0; e < kEngines; ++e) sc_core::sc_spawn([this, e] { engineThread(e); }, kEngineThreadNames[e], &o);
}

void Core::closeVcd() {
  if (!vcd_) return;
  sc_core::sc_close_vcd_trace_file(vcd_);
  vcd_ = nullptr;
  // The same run must give the same bytes: replace the wall-clock date SystemC writes.
  const std::string partial = vcd_path_ + ".partial.vcd";
  std::ifstream in(partial, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  std::string text = ss.str();
  const size_t date = text.find("$date");
  const size_t end = date == std::string::npos ? date : text.find("$end", date);
  if (end != std::string::npos) text.replace(date, end - date, "$date\n     (not recorded: allocsim traces are reproducible)\n");
  std::ofstream(vcd_path_, std::ios::binary) << text;
  std::remove(partial.c_str());
}

// ---- time and waiting -----------------------------------------------------------------------------------------

// The kernel's clock read inline (sc_time_stamp() is a library call, and the model asks several times an instruction).
uint64_t Core::now() const {
  return context_->time_stamp().value() / kPsPerCycle - base_ps_ / kPsPerCycle;
}

void Core::waitCycles(uint64_t n) {
  if (n) wait(sc_time::from_value(n * kPsPerCycle));
  if (abort_) throw Aborted{};
}

void Core::waitEvent(sc_event& ev, uint32_t& waiting) {
  if (abort_) throw Aborted{};
  ++waiting;
  wait(ev);
  --waiting;
  if (abort_) throw Aborted{};
}

void Core::syncTo(uint64_t cycle) {
  if (cycle > now()) waitCycles(cycle - now());
}

void Core::keepQuantum(uint64_t clock) {
  if (clock > now() + quantum_) waitCycles(clock - now());
}

uint64_t Core::endOfAll(const std::vector<Dependence>& deps, uint64_t from, const Dependence*& binding) {
  binding = nullptr;
  uint64_t end = from;
  for (const Dependence& d : deps) {
    uint64_t e = d.end;
    if (e == Dependence::kEndUnknown) {
      Record& producer = (*records_[d.slot]);
      // A released record ended at or before the sequencer's clock when it was released, and no counted consumer
      // was left (releaseEnded): it cannot bind.
      if (producer.seq != d.seq) continue;
      while (!producer.end_known) waitEvent(producer.known_ev, producer.known_waiting);
      e = producer.end_cycle;
      if (d.counted && --producer.consumers == 0 && producer.release_when_unread) freeRecord(d.slot);
    }
    if (e > from && e >= end) end = e, binding = &d;
  }
  return end;
}

void Core::takeHead(Fifo& fifo, uint64_t start) {
  fifo.held.push_back({start, (*records_[fifo.slots.front()]).inst});
  fifo.slots.pop_front();
  fifo.popped.notifyWaiters();
}

void Core::advanceSequencer(uint64_t cycles) {
  sequencer_cycle_ += cycles;
  if (!vcd_) return;
  busy_[kEngines] = true;
  syncTo(sequencer_cycle_);
  busy_[kEngines] = false;
}

void Core::waitUntilDone(const std::vector<Dependence>& deps) {
  for (const Dependence& d : deps)
    for (Record* r = records_[d.slot].get(); r->seq == d.seq && !r->done;) waitEvent(r->done_ev, r->done_waiting);
}

void Core::sequencerWaitDeps(std::vector<Dependence>& deps, const Instruction* consumer) {
  if (deps.empty()) return;
  orderDependences(deps);  // the binding one among several ending together: the youngest, as for the engines
  waitUntilDone(deps);     // their values first
  const Dependence* binding = nullptr;
  const uint64_t end = endOfAll(deps, sequencer_cycle_, binding);
  if (!binding) return;  // all ended by the sequencer's clock: no stall
  result_.stats.addStall(StallCause(binding->kind), binding->producer, consumer, end - sequencer_cycle_);
  sequencer_cycle_ = end;
}

void Core::fail(std::exception_ptr e) {
  if (!error_) error_ = e;
  abort_ = true;
  wakeEveryone();
}

void Core::wakeEveryone() {
  for (auto& r : records_) r->done_ev.notify(), r->known_ev.notify();
  for (Fifo& f : engine_fifo_) f.pushed.ev.notify(), f.popped.ev.notify();
  for (Fifo& f : rings_) f.pushed.ev.notify(), f.popped.ev.notify();
}

void Core::slice(uint32_t track, uint64_t start, uint64_t end, const Instruction* inst) {
  if (o_->trace) o_->trace->slices.push_back({track, start, end, inst});
}

// ---- records ----------------------------------------------------------------------------------------------------

uint32_t Core::takeRecord() {
  if (free_.empty()) {
    records_.push_back(std::make_unique<Record>());
    free_.push_back(uint32_t(records_.size() - 1));
  }
  uint32_t slot = free_.back();
  free_.pop_back();
  (*records_[slot]).seq = ++seq_;
  return slot;
}

void Core::freeRecord(uint32_t slot) {
  Record& r = (*records_[slot]);
  board_.retire(slot);
  r.seq = 0;
  r.done = r.streams_over_itself = r.end_known = r.release_when_unread = false;
  r.consumers = 0;
  r.deps.clear();
  r.regs.clear();
  free_.push_back(slot);
}

void Core::startRecord(uint32_t slot) {
  Record& r = (*records_[slot]);
  snap_->snapshot = &r.regs;
  uint64_t hash;
  if (r.streams_over_itself) {  // sim/stream.h: only here does streaming change the result
    bool differs = false;
    hash = streamInstruction(*stepper_, *snap_, *r.inst, r.first, r.last, o_->timing.stream_chunk_elements, r.writes,
                             differs);
    result_.stats.addSelfOverlap(r.inst, differs);
  } else {
    hash = stepper_->begin(*r.inst, r.first, r.last, r.writes, o_->record_reads, &r.operands->views);
  }
  snap_->snapshot = nullptr;
  if (o_->record_reads) result_.exec.reads[r.read_index].hash = hash;
}

void Core::executeRecord(uint32_t slot) {
  Record& r = (*records_[slot]);
  r.writes.clear();
  snap_->snapshot = &r.regs;
  const uint64_t hash = stepper_->step(*r.inst, r.first, r.last, o_->record_reads, &r.operands->views);
  snap_->snapshot = nullptr;
  if (o_->record_reads) result_.exec.reads[r.read_index].hash = hash;
}

void Core::finishRecord(uint32_t slot) {
  Record& r = (*records_[slot]);
  r.writes.commit(*phys_);
  r.done = true;
  if (r.done_waiting) r.done_ev.notify();
  last_cycle_ = std::max(last_cycle_, r.end_cycle);
  // It stays on the scoreboard until its end is at or before the sequencer's clock (releaseEnded).
  finished_.push_back(slot);
  finished_min_end_ = std::min(finished_min_end_, r.end_cycle);
}

void Core::releaseEnded() {
  if (finished_min_end_ > sequencer_cycle_) return;
  // Every instruction dispatched from now on starts at or after the sequencer's clock: a record ending by then is
  // no dependence of theirs. Consumers that have not read its end yet keep it (the last one releases it).
  uint64_t min_end = UINT64_MAX;
  for (size_t i = 0; i < finished_.size();) {
    const uint32_t slot = finished_[i];
    Record& r = (*records_[slot]);
    if (r.end_cycle <= sequencer_cycle_) {
      if (r.consumers == 0) {
        freeRecord(slot);
      } else {
        board_.retire(slot);  // no longer a dependence of anything dispatched
        r.release_when_unread = true;
      }
      finished_[i] = finished_.back();
      finished_.pop_back();
    } else {
      min_end = std::min(min_end, r.end_cycle);
      ++i;
    }
  }
  finished_min_end_ = min_end;
}

// Decided ends are copied into the dependences; a consumer of an undecided one is counted on its producer.
void Core::noteProducers(std::vector<Dependence>& deps) {
  for (Dependence& d : deps) {
    Record& producer = (*records_[d.slot]);
    if (producer.end_known) {
      d.end = producer.end_cycle;
    } else {
      d.counted = true;
      ++producer.consumers;
    }
  }
}

// ---- the SP sequencer -------------------------------------------------------------------------------------------

void Core::sequencerThread() {
  for (;;) {
    wait(sequencer_start_);
    if (bare_) {
      ensureQueues(uint32_t(bare_->size() > kFirstQueueTrack ? bare_->size() - kFirstQueueTrack : 0));
      serveBare(kSequencerTrack);
      continue;
    }
    try {
      ensureQueues(p_->arch.dma_queues);
      sequencer_cycle_ = now();
      runBody(p_->body, nullptr);
      last_cycle_ = std::max(last_cycle_, sequencer_cycle_);
    } catch (const Aborted&) {
    } catch (...) {
      fail(std::current_exception());
    }
    dispatch_done_ = true;
    for (Fifo& f : engine_fifo_) f.pushed.notifyWaiters();
  }
}

void Core::startJob() {
  // Delta notifications trigger in the order they were made, and a triggered thread runs in trigger order.
  sequencer_start_.notify(sc_core::SC_ZERO_TIME);
  for (sc_core::sc_event& e : engine_start_) e.notify(sc_core::SC_ZERO_TIME);
  for (sc_core::sc_event& e : queue_start_) e.notify(sc_core::SC_ZERO_TIME);
}

void Core::ensureQueues(uint32_t n) {
  while (rings_.size() < n) rings_.emplace_back();
  while (issued_.size() < n) issued_.emplace_back();
  while (queue_start_.size() < n) queue_start_.emplace_back();
  while (queue_threads_ < n) {
    const uint32_t q = queue_threads_++;
    sc_core::sc_spawn_options o;
    o.set_stack_size(kThreadStackBytes);
    sc_core::sc_spawn([this, q] { queueThread(q, true); }, ("queue" + std::to_string(q)).c_str(), &o);
  }
}

void Core::countStep(const Instruction& inst) {
  if (++result_.exec.steps > o_->max_steps)
    throw InputError(inst.loc, "execution did not finish within " + std::to_string(o_->max_steps) + " steps");
  if (o_->progress && result_.exec.steps % kProgressSteps == 0) (*o_->progress)("simulating", result_.exec.steps, "steps");
}

void Core::runBody(const std::vector<Instruction>& body, const LoopPos* loop) {
  for (const Instruction& inst : body) {
    if (inst.op == Op::Loop) runLoop(inst);
    else dispatch(inst, loop);
  }
}

void Core::runLoop(const Instruction& inst) {
  if (inst.rd >= p_->registers.size()) throw InputError(inst.loc, "loop names no register");
  if (inst.step <= 0) throw InputError(inst.loc, "loop step must be positive, got " + std::to_string(inst.step));
  const uint32_t lane = layout_->firstLane(inst.rd), lanes = layout_->lanes(inst.rd);
  auto setRegister = [&](uint64_t v) {  // after any SP instruction still writing it (WAW)
    std::vector<Dependence>& deps = loop_deps_;  // scratch: used and emptied before the body runs
    deps.clear();
    board_.sequencerRegisterAccess(lane, lane + lanes, DepKind::WAW, deps);
    sequencerWaitDeps(deps, &inst);
    deps.clear();
    phys_->writeReg(inst.rd, v);
  };
  const uint64_t cost = computeCycles(o_->timing, inst, nullptr, nullptr, nullptr);
  __int128 v = inst.lo;  // as the interpreter: v + step cannot overflow
  for (; v < inst.hi; v += inst.step) {
    countStep(inst);
    setRegister(uint64_t(int64_t(v)));
    const uint64_t t0 = sequencer_cycle_;
    advanceSequencer(cost);
    result_.stats.sequencer_busy_cycles += cost;
    ++result_.stats.loop_iterations;
    slice(kSequencerTrack, t0, sequencer_cycle_, &inst);
    LoopPos pos{v == inst.lo, v + inst.step >= inst.hi};
    runBody(inst.body, &pos);
  }
  setRegister(uint64_t(int64_t(v)));
}

const Core::Plan& Core::planOf(const Instruction& inst) {
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
    if (r >= p_->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    plan.regs.push_back(r);
    const uint32_t lane = layout_->firstLane(r);
    plan.lanes.emplace_back(lane, lane + layout_->lanes(r));
  };
  bool register_terms = false;
  for (const AccessPattern* ap : {&inst.dst, &inst.a, &inst.b, &inst.scalar.ap.get(), &inst.scalar2.ap.get(), &inst.scale.ap.get(),
                                  &inst.bias.ap.get(), &inst.reduce_dst})
    for (const Index* index : {&ap->partition, &ap->offset})
      for (const IndexTerm& term : index->terms) add(term.reg), register_terms = true;
  for (const IndexTerm& term : inst.mask.c.terms) add(term.reg);  // empty but for affine_select
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

void Core::readRegistersAtDispatch(const Plan& plan, const Instruction& inst, Record& rec) {
  // Read now, once every SP instruction that writes one of them has finished (a RAW stall of the sequencer).
  std::vector<Dependence>& deps = rec.deps;  // scratch until the operands are entered
  deps.clear();
  for (const auto& [lo, hi] : plan.lanes) board_.sequencerRegisterAccess(lo, hi, DepKind::RAW, deps);
  sequencerWaitDeps(deps, &inst);
  deps.clear();
  for (RegId r : plan.regs) rec.regs.emplace_back(r, phys_->readReg(r));
}

void Core::resolveOperands(const Instruction& inst, Operands& out) {
  out.n = 0;
  out.latency = out.bytes = out.descriptors = 0;
  out.streams_over_itself = false;
  out.views.clear();
  OperandHasher unused(false);  // the hash is taken when the engine reads (startRecord)
  auto view = [&](const AccessPattern& ap) {
    ResolvedView v = resolveView(*p_, *phys_, ap, max_view_bytes_, unused);
    out.views.add(ap, v);
    return v;
  };
  auto enter = [&](const Footprint& fp, bool write, bool accumulate = false) {
    out.access[out.n++] = {fp, write, accumulate};
  };
  auto read = [&](const ResolvedView& v) { enter(viewFootprint(*layout_, v), false); };
  auto write = [&](const ResolvedView& v) { enter(viewFootprint(*layout_, v), true); };
  auto writeReg = [&](RegId r) {
    if (r >= p_->registers.size()) throw InputError(inst.loc, std::string(opName(inst.op)) + " names no register");
    enter(registerFootprint(*layout_, r), true);
  };
  const TimingTable& t = o_->timing;
  switch (inst.op) {
    case Op::Dma: {
      ResolvedView d = view(inst.dst), a = view(inst.a);
      read(a);
      write(d);
      // A converting DMA moves the wider side's bytes (sim/timing/default.txt "dma.convert-fixed").
      out.bytes = std::max(a.bytes(), d.bytes());
      out.descriptors = dmaDescriptors(d, a, p_->tensors[d.tensor].space, p_->tensors[a.tensor].space);
      out.latency = dmaTransferCycles(t, out.bytes, out.descriptors);
      if (d.dtype != a.dtype) out.latency += uint64_t(std::ceil(t.dma_convert_fixed));
      return;
    }
    case Op::Matmul: {
      ResolvedView d = view(inst.dst), a = view(inst.a), b = view(inst.b);
      read(a);
      read(b);
      enter(viewFootprint(*layout_, d), false, true);  // accumulating into d reads it
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
        out.streams_over_itself |= streams && overlapsAtAnOffset(*layout_, d, v);
      };
      source(a);
      if (inst.op == Op::TT) source(view(inst.b));
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor) source(view(sc->ap));
      write(d);
      if (hasFusedReduce(inst)) write(view(inst.reduce_dst));  // the same engine pass writes R (docs/format.md)
      out.latency = computeCycles(t, inst, &d, &a, nullptr);
      return;
    }
    case Op::Memset: {
      ResolvedView d = view(inst.dst);
      write(d);
      out.latency = computeCycles(t, inst, &d, nullptr, nullptr);
      return;
    }
    case Op::Select: {  // POOL does not stream (sim/stream.h): it reads at its start and writes at its end
      ResolvedView d = view(inst.dst), a = view(inst.a);
      read(a);
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
    case Op::Loop: break;
  }
  out.latency = computeCycles(t, inst, nullptr, nullptr, nullptr);
  return;
}

void Core::resolveWithRegisters(const Instruction& inst, Record& rec) {
  const size_t n = rec.regs.size();
  if (n > CachedOperands::kMaxRegs) return resolveOperands(inst, rec.own_operands);
  uint64_t h = uint64_t(inst.id) * 0x9e3779b97f4a7c15ULL;
  for (const auto& [reg, v] : rec.regs) h = (h ^ v) * 0x100000001b3ULL;
  CachedOperands& c = operand_cache_[(h ^ (h >> 29)) & (kOperandCacheEntries - 1)];
  bool hit = c.inst == &inst && c.n == n;
  for (size_t i = 0; hit && i < n; ++i) hit = c.regs[i] == rec.regs[i].second;
  if (hit) {
    rec.own_operands = c.operands;
    return;
  }
  resolveOperands(inst, rec.own_operands);  // throws as before; nothing is cached then
  c.inst = &inst;
  c.n = uint32_t(n);
  for (size_t i = 0; i < n; ++i) c.regs[i] = rec.regs[i].second;
  c.operands = rec.own_operands;
}

void Core::enterOperands(const Plan& plan, const Instruction& inst, uint32_t slot, Record& rec) {
  if (!plan.static_operands) resolveWithRegisters(inst, rec);
  rec.operands = plan.static_operands ? &plan.operands : &rec.own_operands;
  const Operands& ops = *rec.operands;
  const bool starts_sum = holds(inst.start, rec.first, rec.last);
  for (uint32_t i = 0; i < ops.n; ++i) {
    const Operands::Access& a = ops.access[i];
    if (a.accumulate && starts_sum) continue;
    board_.access(a.fp, a.write, slot, rec.seq, &inst, true, rec.deps);
  }
  rec.latency = ops.latency;
  rec.bytes = ops.bytes;
  rec.descriptors = ops.descriptors;
  rec.streams_over_itself = ops.streams_over_itself;
}

void Core::dispatch(const Instruction& inst, const LoopPos* loop) {
  countStep(inst);
  const uint32_t e = uint32_t(engineOf(inst.op));
  Fifo& fifo = engine_fifo_[e];
  // A full queue stalls the sequencer until the engine takes the oldest instruction in it (the stall's producer),
  // at that instruction's start; when the engine has not decided the start yet, the sequencer waits until it has.
  while (fifo.slots.size() + fifo.heldAt(sequencer_cycle_) >= o_->timing.engine_queue_depth) {
    if (fifo.held.empty()) {
      waitEvent(fifo.popped);
      continue;
    }
    const Fifo::Held& oldest = fifo.held.front();  // starts after the sequencer's clock (heldAt)
    result_.stats.addStall(StallCause::EngineBusy, oldest.inst, &inst, oldest.start - sequencer_cycle_);
    sequencer_cycle_ = oldest.start;
  }
  releaseEnded();
  const uint32_t slot = takeRecord();
  Record& rec = (*records_[slot]);
  rec.inst = &inst;
  rec.first = !loop || loop->first;
  rec.last = !loop || loop->last;
  const Plan& plan = planOf(inst);
  readRegistersAtDispatch(plan, inst, rec);
  enterOperands(plan, inst, slot, rec);
  orderDependences(rec.deps);
  noteProducers(rec.deps);
  if (o_->record_reads) {
    rec.read_index = result_.exec.reads.size();
    result_.exec.reads.push_back({inst.id, 0});
  }
  ++result_.stats.instructions;
  rec.dispatch_cycle = sequencer_cycle_;
  fifo.slots.push_back(slot);
  fifo.pushed.notifyWaiters();  // the engine starts it no earlier than its dispatch cycle (serveEngine)
}

// ---- engines ----------------------------------------------------------------------------------------------------

void Core::engineThread(uint32_t e) {
  for (;;) {
    wait(engine_start_[e]);
    if (bare_) serveBare(e);
    else if (e == uint32_t(Engine::DMA)) serveIssuer();
    else serveEngine(e);
  }
}

void Core::serveEngine(uint32_t e) {
  Fifo& fifo = engine_fifo_[e];
  EngineStats& stats = result_.stats.engines[e];
  uint64_t clock = now();  // the engine's own clock: the end of its last instruction
  try {
    for (;;) {
      while (fifo.slots.empty() && !dispatch_done_) waitEvent(fifo.pushed);
      if (fifo.slots.empty() || abort_) break;
      const uint32_t slot = fifo.slots.front();
      Record& r = (*records_[slot]);
      // It starts when the engine is free, it is queued and the last of its producers has ended.
      const uint64_t from =
          ALLOCSIM_PLANT("sim_engine_ignores_own_clock") ? r.dispatch_cycle : std::max(clock, r.dispatch_cycle);
      const Dependence* binding = nullptr;
      const uint64_t start = endOfAll(r.deps, from, binding);
      if (binding) result_.stats.addStall(StallCause(binding->kind), binding->producer, r.inst, start - from);
      takeHead(fifo, start);
      ++stats.instructions;
      r.end_cycle = start + r.latency;
      r.end_known = true;
      if (r.known_waiting) r.known_ev.notify();
      // It reads and writes at once, once its producers have written and its sources' older readers have read
      // (this is the order of the values; their times are the cycles above).
      waitUntilDone(r.deps);
      if (vcd_) {
        syncTo(start);
        busy_[e] = true;
      }
      clock = r.end_cycle;
      if (quantum_ == 0) syncTo(clock);  // values move at their cycle (see SimOptions::quantum)
      if (r.streams_over_itself) startRecord(slot);
      else executeRecord(slot);
      if (vcd_) busy_[e] = false;
      stats.busy_cycles += r.latency;
      slice(e, start, clock, r.inst);
      finishRecord(slot);  // the record may be released at the next wait
      keepQuantum(clock);
    }
  } catch (const Aborted&) {
  } catch (...) {
    fail(std::current_exception());
  }
}

// The DMA issuer takes dma instructions in program order and puts each on the next queue's ring, round robin. It
// issues a transfer when its dependences have ended (a DMA's are real: transfers end out of order on the queues) and
// its ring has a free slot, and books the shared fabric for it then: the first window of its length that starts
// at least dma.fixed cycles after the issue and no earlier than the end of the transfer before it on its queue
// (a ring is served in order). So every transfer's end is decided when it is issued.
//
// Everything the issuer decides on is a cycle decided before (its producers' ends, the ends of the transfers on
// the ring), so it runs ahead of model time on its own clock, as the sequencer does, and waits only for a producer
// whose end is not decided yet or for the sequencer to queue the next transfer. It never touches data: the queue
// thread moves a transfer's bytes at its end. Requests reach the fabric in issue order, which is model-time order
// (the issuer is in order), so the calendar grants them as a fabric that takes requests first come, first served
// would, whatever order the host runs threads in. A ring slot freed in a cycle is free for a transfer issued in
// that cycle. With a VCD the issuer waits in model time, so DMA_issue is high from a transfer's dispatch until its
// issue and the ring counters change when the rings do.
void Core::serveIssuer() {
  const uint32_t e = uint32_t(Engine::DMA);
  Fifo& fifo = engine_fifo_[e];
  EngineStats& stats = result_.stats.engines[e];
  const uint64_t fixed = uint64_t(o_->timing.dma_fixed);
  const uint32_t ring_slots = p_->arch.dma_ring_slots;
  uint64_t clock = now();
  try {
    for (;;) {
      while (fifo.slots.empty() && !dispatch_done_) waitEvent(fifo.pushed);
      if (fifo.slots.empty() || abort_) break;
      const uint32_t slot = fifo.slots.front();
      Record& r = (*records_[slot]);
      const uint64_t from = std::max(clock, r.dispatch_cycle);
      if (vcd_) {
        syncTo(from);
        busy_[e] = true;
      }
      const Dependence* binding = nullptr;
      const uint64_t ready = endOfAll(r.deps, from, binding);
      if (binding) result_.stats.addStall(StallCause(binding->kind), binding->producer, r.inst, ready - from);
      takeHead(fifo, ready);
      ++stats.instructions;
      const uint32_t q = uint32_t(dma_issued_++ % (ALLOCSIM_PLANT("sim_dma_one_queue") ? 1 : p_->arch.dma_queues));
      RingFifo<RingEntry>& ring = issued_[q];
      const uint64_t early = ALLOCSIM_PLANT("sim_ring_slot_freed_early") ? 1 : 0;
      while (!ring.empty() && ring.front().end <= ready + early) ring.pop_front();
      uint64_t issue = ready;
      if (ring.size() >= ring_slots) {  // full: the oldest transfer's end frees a slot
        issue = ring.front().end;
        result_.stats.addStall(StallCause::RingFull, ring.front().inst, r.inst, issue - ready);
        while (!ring.empty() && ring.front().end <= issue) ring.pop_front();
      }
      const uint64_t earliest = std::max(issue + fixed, ring.empty() ? 0 : ring.back().end);
      const uint64_t window = fabric_.reserve(issue, earliest, r.latency);
      r.issue_cycle = issue;
      r.end_cycle = window + r.latency;
      r.end_known = true;
      if (r.known_waiting) r.known_ev.notify();
      ring.push_back({r.end_cycle, r.inst});
      clock = issue;
      QueueStats& qs = result_.stats.queues[q];
      qs.peak_occupancy = std::max<uint32_t>(qs.peak_occupancy, uint32_t(ring.size()));
      if (o_->trace) ring_changes_.push_back({issue, q, +1});
      if (vcd_) {
        syncTo(issue);
        busy_[e] = false;
        ring_used_[q % 256] = uint32_t(ring.size());
      }
      Fifo& queue = rings_[q];
      queue.slots.push_back(slot);
      queue.pushed.notifyWaiters();
      keepQuantum(clock);
    }
  } catch (const Aborted&) {
  } catch (...) {
    fail(std::current_exception());
  }
  dma_issue_done_ = true;
  for (Fifo& ring : rings_) ring.pushed.notifyWaiters();
}

// ---- DMA queues -------------------------------------------------------------------------------------------------

void Core::queueThread(uint32_t q, bool joined_running) {
  bool serve = joined_running;
  for (;;) {
    if (serve) {
      if (bare_) serveBare(kFirstQueueTrack + q);
      else serveQueue(q);
    }
    wait(queue_start_[q]);
    serve = true;
  }
}

void Core::serveBare(uint32_t track) {
  if (track >= bare_->size()) return;
  for (uint64_t latency : (*bare_)[track]) wait(sc_time::from_value(latency * kPsPerCycle));
}

uint64_t Core::runBare(const std::vector<std::vector<uint64_t>>& tracks) {
  bare_ = &tracks;
  startJob();
  sc_core::sc_start();
  bare_ = nullptr;
  uint64_t n = 0;
  for (const auto& t : tracks) n += t.size();
  return n;
}

void Core::serveQueue(uint32_t q) {
  if (q >= p_->arch.dma_queues) return;
  Fifo& ring = rings_[q];
  QueueStats& stats = result_.stats.queues[q];
  try {
    for (;;) {
      while (ring.slots.empty() && !dma_issue_done_) waitEvent(ring.pushed);
      if (ring.slots.empty() || abort_) break;
      const uint32_t slot = ring.slots.front();
      Record& r = (*records_[slot]);
      // The issuer decided the transfer's window when it issued it (serveIssuer). Its bytes move once its producers
      // have written them and its destination's older readers and writers are done (the order of the values; their
      // times are the window).
      waitUntilDone(r.deps);
      if (quantum_ == 0) syncTo(r.end_cycle);
      executeRecord(slot);
      stats.bytes += r.bytes;
      stats.descriptors += r.descriptors;
      stats.busy_cycles += r.latency;
      ++stats.transfers;
      const uint64_t end = r.end_cycle;
      slice(kFirstQueueTrack + q, end - r.latency, end, r.inst);
      ring.slots.pop_front();
      if (vcd_) ring_used_[q % 256] = uint32_t(ring.slots.size());
      if (o_->trace) ring_changes_.push_back({end, q, -1});
      finishRecord(slot);  // the record may be released at the next wait
      keepQuantum(end);
    }
  } catch (const Aborted&) {
  } catch (...) {
    fail(std::current_exception());
  }
}

// The ring changes in time order, a slot freed in a cycle before one taken in it (as the issuer counts them), with
// the occupancy after each change.
void Core::traceRingOccupancy() {
  std::sort(ring_changes_.begin(), ring_changes_.end(), [](const RingChange& a, const RingChange& b) {
    if (a.cycle != b.cycle) return a.cycle < b.cycle;
    if (a.delta != b.delta) return a.delta < b.delta;
    return a.queue < b.queue;
  });
  std::vector<uint32_t> used(p_->arch.dma_queues, 0);
  for (const RingChange& c : ring_changes_) {
    used[c.queue] = uint32_t(int64_t(used[c.queue]) + c.delta);
    o_->trace->ring_occupancy.push_back({c.queue, c.cycle, used[c.queue]});
  }
  ring_changes_.clear();
}

// ---- one job ----------------------------------------------------------------------------------------------------

SimResult Core::run(const Program& p, const SimOptions& opts) {
  if (std::string err = validateArch(p.arch); !err.empty()) throw InputError(SourceLoc{}, err);
  p_ = &p;
  o_ = &opts;
  layout_.emplace(p);
  max_view_bytes_ = largestTensorBytes(p, opts.max_storage_bytes);
  phys_ = std::make_unique<PhysicalStorage>(p, opts.poison_seed, opts.max_storage_bytes);
  snap_ = std::make_unique<SnapshotStorage>(*phys_);
  stepper_ = std::make_unique<InstructionStepper>(p, *snap_, max_view_bytes_);
  board_.reset(opts.drop);
  fabric_.clear();
  plans_.clear();  // keyed by address: another program's instructions may sit where this one's were
  operand_cache_.resize(kOperandCacheEntries);
  for (CachedOperands& c : operand_cache_) c.inst = nullptr;  // keyed by address too
  result_ = SimResult{};
  result_.stats.queues.resize(p.arch.dma_queues);
  seq_ = dma_issued_ = last_cycle_ = 0;
  dispatch_done_ = dma_issue_done_ = abort_ = false;
  error_ = nullptr;
  free_.clear();
  finished_.clear();
  finished_min_end_ = UINT64_MAX;
  quantum_ = vcd_ || opts.drop != DropDependency::None ? 0 : opts.quantum;
  for (uint32_t i = uint32_t(records_.size()); i-- > 0;) freeRecord(i);  // a failed job may have left some taken
  for (Fifo& f : engine_fifo_) f.slots.clear(), f.held.clear();
  for (Fifo& f : rings_) f.slots.clear();
  for (auto& ring : issued_) ring.clear();
  ring_changes_.clear();
  std::fill(std::begin(busy_), std::end(busy_), false);
  std::fill(std::begin(ring_used_), std::end(ring_used_), 0u);

  // Inputs, as the interpreter loads them.
  std::vector<std::vector<uint8_t>> inputs = makeInputs(p, opts.input_seed);
  for (TensorId t = 0; t < inputs.size(); ++t) {
    if (inputs[t].empty()) continue;
    const uint64_t bpp = p.tensors[t].bytesPerPartition();
    for (uint32_t q = 0; q < p.tensors[t].partitions; ++q)
      std::copy_n(inputs[t].data() + q * bpp, bpp, phys_->row(t, q));
  }

  const size_t first_slice = opts.trace ? opts.trace->slices.size() : 0;
  base_ps_ = sc_core::sc_time_stamp().value();
  startJob();
  sc_core::sc_start();
  for (uint32_t slot = 0; slot < records_.size(); ++slot)
    if ((*records_[slot]).seq != 0 && (*records_[slot]).done) freeRecord(slot);
  finished_.clear();
  if (!error_ && (!dispatch_done_ || !dma_issue_done_ || free_.size() != records_.size()))
    error_ = std::make_exception_ptr(std::logic_error("simulator: the model stopped with instructions in flight"));
  // A failed job may leave time bookings and records behind; the next job starts from a clean state anyway.
  std::exception_ptr error = error_;
  stepper_.reset();
  snap_.reset();
  if (error) {
    phys_.reset();
    std::rethrow_exception(error);
  }

  result_.exec.outputs.resize(p.tensors.size());
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& tensor = p.tensors[t];
    if (!tensor.output) continue;
    const uint64_t bpp = tensor.bytesPerPartition();
    std::vector<uint8_t>& out = result_.exec.outputs[t];
    out.resize(tensor.partitions * bpp);
    for (uint32_t q = 0; q < tensor.partitions; ++q) std::copy_n(phys_->row(t, q), bpp, out.data() + q * bpp);
  }
  phys_.reset();
  result_.stats.cycles = last_cycle_;
  if (o_->trace) {
    // Units run ahead of each other by different amounts (SimOptions::quantum): slices are put in time order, so
    // that a trace does not depend on the order the host ran them in. Each track's own slices keep their order.
    std::stable_sort(o_->trace->slices.begin() + ptrdiff_t(first_slice), o_->trace->slices.end(),
                     [](const TraceSlice& a, const TraceSlice& b) {
                       return a.start != b.start ? a.start < b.start : a.track < b.track;
                     });
    traceRingOccupancy();
  }
  return std::move(result_);
}

}  // namespace allocsim::sim
