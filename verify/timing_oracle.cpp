#include "verify/timing_oracle.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <stdexcept>

#include "ir/diag.h"
#include "ir/interp.h"
#include "ir/machine_layout.h"
#include "ir/physical_storage.h"
#include "ir/view.h"

namespace allocsim::verify {
namespace {

using sim::TimingTable;

// ---- costs (docs/simulator.md "Clocks and units", "Instruction costs", "DMA") -----------------------------------

// R(c, f): reporting cycles of c cycles of an engine of clock f, at least 1.
uint64_t reportCycles(const TimingTable& t, double c, double f) {
  const double x = std::ceil(c * t.clock_ghz / f - 1e-9);
  return x < 1 ? 1 : uint64_t(x);
}

// Reporting cycles of a duration in ns, at least 1 (a DMA's span and fabric share).
uint64_t nsCycles(const TimingTable& t, double ns) {
  const double x = std::ceil(ns * t.clock_ghz - 1e-9);
  return x < 1 ? 1 : uint64_t(x);
}

double elements(const ResolvedView& v) { return double(uint64_t(v.count) * v.count2); }
// Single elements spaced more than `bytes` apart: the most-minor stride of a strided access.
bool spacedBeyond(const ResolvedView& v, double bytes) {
  return v.count == 1 && v.count2 > 1 && double(v.step2) * v.elem_size > bytes;
}
bool unitStride(const ResolvedView& v) { return v.count2 <= 1 || v.step2 == v.count; }
bool half(const ResolvedView& v) { return v.dtype == DType::BF16 || v.dtype == DType::F16; }

// The views an instruction's cost reads: its destination and its first and second sources (empty when it has none).
struct CostViews {
  ResolvedView d, a, b;
};

uint64_t instructionCost(const TimingTable& t, const Program& p, const Instruction& inst, const CostViews& view) {
  const double fused = hasFusedReduce(inst) ? t.fused_reduce_fixed : 0;
  // A strided access in any cost view multiplies every element count of the cost by the strided-access factor.
  const double th = t.access_stride_threshold_bytes;
  const bool strided = spacedBeyond(view.d, th) || spacedBeyond(view.a, th) || spacedBeyond(view.b, th);
  const double f = strided ? t.access_strided_factor : 1;
  const CostViews& v = view;
  auto n = [f](const ResolvedView& x) { return f * elements(x); };
  auto space = [&](const ResolvedView& x) { return p.tensors[x.tensor].space; };
  switch (inst.op) {
    case Op::Matmul: {
      double c = std::max(std::min(t.pe_fixed, n(v.a)), t.pe_per_column * n(v.b));
      if (v.a.dtype == DType::F32 || v.b.dtype == DType::F32) c *= t.pe_fp32_factor;
      return reportCycles(t, c, t.pe_clock_ghz);
    }
    case Op::Copy: return reportCycles(t, std::max(t.act_fixed, t.act_per_element * n(v.d)), t.act_clock_ghz);
    case Op::Act: return reportCycles(t, std::max(t.act_fixed, t.act_per_element * n(v.d)) + fused, t.act_clock_ghz);
    case Op::TS: {
      const double s = hasSecondOp(inst) ? t.dve_second_op_per_element : 0;
      // The Vector engine's performance mode: a ts (no fused reduction) on 16-bit floats.
      const double mode = !hasFusedReduce(inst) && half(v.d) && half(v.a) ? t.dve_perf_ts_factor : 1;
      return reportCycles(t, std::max(t.dve_fixed, mode * (t.dve_per_element + s) * n(v.a)) + fused, t.dve_clock_ghz);
    }
    case Op::TT: {
      const bool pa = space(v.a) == Space::Psum, pb = space(v.b) == Space::Psum;
      const bool sbuf = space(v.a) == Space::Sbuf && space(v.b) == Space::Sbuf;
      const bool bf16 = v.d.dtype == DType::BF16 && v.a.dtype == DType::BF16 && v.b.dtype == DType::BF16;
      const bool op = inst.alu == AluOp::Add || inst.alu == AluOp::Sub || inst.alu == AluOp::Mul;
      const bool fast = pa != pb || (sbuf && bf16 && op && unitStride(v.a) && unitStride(v.b));
      const double mode = half(v.d) && half(v.a) && half(v.b) ? t.dve_perf_tt_factor : 1;
      const double r = (fast ? t.dve_tt_fast_per_element : t.dve_tt_per_element) * mode;
      return reportCycles(t, std::max(t.dve_fixed, r * n(v.a)), t.dve_clock_ghz);
    }
    case Op::Reduce: {
      const bool half = v.d.dtype == DType::BF16 && v.a.dtype == DType::BF16 &&
                        (inst.alu == AluOp::Add || inst.alu == AluOp::Max);
      const double r = half ? t.dve_reduce_bf16_per_element : t.dve_reduce_per_element;
      return reportCycles(t, std::max(t.dve_fixed, r * n(v.a)), t.dve_clock_ghz);
    }
    case Op::Memset:
    case Op::Iota: return reportCycles(t, t.pool_fixed + t.pool_per_element * n(v.d), t.pool_clock_ghz);
    case Op::Select:
      return reportCycles(t, t.pool_select_fixed + t.pool_select_per_element * n(v.d), t.pool_clock_ghz);
    case Op::Transpose:
      return reportCycles(t, std::max(double(v.a.partitions), std::min(t.pe_fixed, n(v.a))), t.pe_clock_ghz);
    case Op::Broadcast: {
      double c = std::max(std::min(t.pe_fixed, double(v.d.partitions)), t.pe_per_column * n(v.a));
      if (v.a.dtype == DType::F32) c *= t.pe_fp32_factor;
      return reportCycles(t, c, t.pe_clock_ghz);
    }
    case Op::TTScan: return reportCycles(t, std::max(t.dve_fixed, t.dve_scan_per_element * n(v.a)), t.dve_clock_ghz);
    case Op::BnStats:
      return reportCycles(t, std::max(t.dve_fixed, t.dve_bn_stats_per_element * n(v.a)), t.dve_clock_ghz);
    case Op::BnAggr:
      return reportCycles(t, std::max(t.dve_fixed, t.dve_bn_aggr_per_tuple * (n(v.a) / 3)), t.dve_clock_ghz);
    case Op::Li:
    case Op::Addi:
    case Op::Add:
    case Op::Mov:
    case Op::If: return reportCycles(t, t.sp_scalar, t.sp_clock_ghz);
    case Op::RegLoad:
    case Op::RegStore: return reportCycles(t, t.sp_memory, t.sp_clock_ghz);
    case Op::Loop: return reportCycles(t, t.sp_loop_iteration, t.sp_clock_ghz);
    case Op::Dma: break;
  }
  throw std::logic_error("timing oracle: a DMA has no engine cost");
}

struct DmaFigures {
  uint64_t bytes, descriptors, span, fabric;
};

DmaFigures dmaFigures(const TimingTable& t, const Program& p, const ResolvedView& d, const ResolvedView& a) {
  DmaFigures f;
  f.bytes = std::max(d.bytes(), a.bytes());
  auto runs = [](const ResolvedView& v) { return uint64_t(v.partitions) * (unitStride(v) ? 1 : v.count2); };
  const bool d_chip = p.tensors[d.tensor].space != Space::Dram, a_chip = p.tensors[a.tensor].space != Space::Dram;
  f.descriptors = std::max<uint64_t>(1, d_chip ? runs(d) : a_chip ? runs(a) : a.partitions);
  // One engine per dma.partitions-per-engine partitions of the on-chip side (DRAM to DRAM: the source's).
  const double partitions = std::max(1.0, double(d_chip ? d.partitions : a.partitions));
  const double e = std::min(t.dma_engines, std::ceil(partitions / t.dma_partitions_per_engine));
  // A contiguous transfer: its DRAM side is whole rows of its tensor, or one run of one row. Its descriptors
  // (equally long) each cost at least dma.contiguous-min-bytes, and it moves at dma.contiguous-efficiency.
  auto whole = [&](const ResolvedView& v) {
    return unitStride(v) && (v.partitions <= 1 || elements(v) == double(p.tensors[v.tensor].elements));
  };
  const bool contiguous = (!d_chip || !a_chip) && (d_chip || whole(d)) && (a_chip || whole(a));
  const double n = double(f.descriptors);
  const double moved = contiguous ? std::max(double(f.bytes), n * t.dma_contiguous_min_bytes) : double(f.bytes);
  const double b = moved + n * t.dma_descriptor_overhead_bytes;
  const double rate = t.dma_engine_bytes_per_ns * (contiguous ? t.dma_contiguous_efficiency : t.dma_efficiency);
  f.span = nsCycles(t, b / (e * rate));
  f.fabric = nsCycles(t, b / (t.dma_engines * rate));
  if (d.dtype != a.dtype) f.span += uint64_t(std::ceil(t.dma_convert_fixed));
  return f;
}

// ---- what each step touches (docs/simulator.md "When an instruction starts": physical footprints) ----------------

struct Rect {
  uint32_t resource;  // 0 SBUF, 1 PSUM, 2 shared DRAM, 3 + t the own DRAM buffer of tensor t
  uint32_t row_lo, row_hi;
  uint64_t lo, hi;
  bool write;
  bool overlaps(const Rect& o) const {
    return resource == o.resource && row_lo < o.row_hi && o.row_lo < row_hi && lo < o.hi && o.lo < hi;
  }
};

bool rectOf(const MachineLayout& layout, const ResolvedView& v, bool write, Rect& r) {
  if (v.elements() == 0) return false;
  const uint64_t first = v.offset * v.elem_size;
  const uint64_t span = (uint64_t(v.count2 - 1) * v.step2 + v.count) * v.elem_size;
  const PhysicalByte b = layout.locate(v.tensor, v.partition, first);
  switch (b.region) {
    case PhysRegion::Sbuf:
      r = {0, b.row, b.row + v.partitions, b.byte, b.byte + span, write};
      return true;
    case PhysRegion::Psum: {
      const uint64_t bank = layout.arch().psum_bank_bytes;
      r = {1, 0, 1, b.byte / bank * bank, (b.byte + span + bank - 1) / bank * bank, write};
      return true;
    }
    case PhysRegion::Dram:
    case PhysRegion::OwnDram: {
      const PhysicalByte last = layout.locate(v.tensor, v.partition + v.partitions - 1, first + span - 1);
      r = {b.region == PhysRegion::Dram ? 2u : 3u + v.tensor, 0, 1, b.byte, last.byte + 1, write};
      return true;
    }
  }
  return false;
}

// One step of the interpreter's run, reduced to what timing needs.
struct Event {
  const Instruction* inst = nullptr;
  std::vector<Rect> rects;
  std::vector<uint32_t> lanes_read, lanes_written;
  uint64_t cost = 0;                  // compute, SP, loop iteration, if
  DmaFigures dma{0, 0, 0, 0};
  bool held = false;                  // if: its body runs
};

// Reduces each step of the interpreter's run to an Event as it runs and hands it on at once (one Event is reused:
// nothing is kept per step).
class Recorder : public ExecObserver {
 public:
  Recorder(const Program& p, const TimingTable& t, Storage& s, const MachineLayout& layout, uint64_t max_view_bytes,
           std::function<void(const Event&)> next)
      : p_(p), t_(t), s_(s), layout_(layout), max_view_bytes_(max_view_bytes), next_(std::move(next)) {}

  void onExecute(const Instruction& inst, uint64_t, const ExecAccess& acc) override {
    Event& e = e_;
    e.inst = &inst;
    e.rects.clear();
    e.lanes_read.clear();
    e.lanes_written.clear();
    e.cost = 0;
    e.dma = {0, 0, 0, 0};
    e.held = false;
    for (const ResolvedView& v : acc.reads) add(e, v, false);
    for (const ResolvedView& v : acc.writes) add(e, v, true);
    lanes(acc.reg_reads, e.lanes_read);
    lanes(acc.reg_writes, e.lanes_written);
    // The instruction has run: registers it does not write hold what they held when it ran, so its views resolve
    // again to what it touched (only SP instructions write registers, and their costs name no view).
    CostViews v;
    auto view = [&](const AccessPattern& ap) {
      OperandHasher h(false);
      return resolveView(p_, s_, ap, max_view_bytes_, h);
    };
    switch (inst.op) {
      case Op::Dma: e.dma = dmaFigures(t_, p_, view(inst.dst), view(inst.a)); break;
      // The destination and the first source (every one a strided access may be in), and the second source of
      // matmul and tt.
      case Op::Matmul:
      case Op::TT: v.d = view(inst.dst), v.a = view(inst.a), v.b = view(inst.b); break;
      case Op::Memset:
      case Op::Iota: v.d = view(inst.dst); break;
      case Op::Copy:
      case Op::Act:
      case Op::Select:
      case Op::Reduce:
      case Op::TS:  // its destination's type: the performance mode
      case Op::Broadcast:
      case Op::Transpose:
      case Op::TTScan:
      case Op::BnStats:
      case Op::BnAggr: v.d = view(inst.dst), v.a = view(inst.a); break;
      case Op::If: {
        OperandHasher h(false);
        e.held = conditionHolds(inst.rare->mask.cmp, evaluateIndex(p_, s_, inst.rare->mask.c, inst.loc, h));
        break;
      }
      default: break;
    }
    if (inst.op != Op::Dma) e.cost = instructionCost(t_, p_, inst, v);
    next_(e);
  }

 private:
  void add(Event& e, const ResolvedView& v, bool write) {
    Rect r;
    if (rectOf(layout_, v, write, r)) e.rects.push_back(r);
  }
  void lanes(const std::vector<RegId>& regs, std::vector<uint32_t>& out) {
    for (RegId r : regs)
      for (uint32_t l = layout_.firstLane(r), end = l + layout_.lanes(r); l < end; ++l) out.push_back(l);
  }
  const Program& p_;
  const TimingTable& t_;
  Storage& s_;
  const MachineLayout& layout_;
  const uint64_t max_view_bytes_;
  std::function<void(const Event&)> next_;
  Event e_;
};

// ---- the schedule ----------------------------------------------------------------------------------------------

constexpr uint32_t kSequencerTrack = 6, kFirstQueueTrack = 7;

// The youngest instruction of one engine touching a memory through a shared port (docs/simulator.md "Shared ports").
struct PortUser {
  bool used = false;
  uint32_t step = 0;
  uint64_t end = 0;
  uint64_t tag = 0;  // the sink's tag of its step
};

class Scheduler {
 public:
  Scheduler(const Program& p, const TimingTable& t, const TimingOracleOptions& o, TimingStepSink& sink,
            TimingSchedule& out)
      : p_(p), t_(t), o_(o), sink_(sink), out_(out) {
    out_.queues.assign(p.arch.dma_queues, {});
    queues_.resize(p.arch.dma_queues);
    used_.assign(p.arch.dma_queues, 0);
    fixed_ = uint64_t(std::max(0.0, std::ceil(t.dma_fixed_ns * t.clock_ghz - 1e-9)));
    walk_.push_back({&p.body});
  }

  // The interpreter's next step.
  void step(const Event& e) {
    if (!advance(&e)) throw std::logic_error("timing oracle: the interpreter ran steps the walk did not");
  }

  // After the interpreter's last step: the walk leaves what it is in (loops end, their registers set once more).
  void finish() {
    advance(nullptr);
    out_.cycles = std::max(out_.cycles, clock_);
    flushRing(UINT64_MAX);
  }

 private:
  // The sequencer's walk, in program order: where it stands in each body it is in, outermost first.
  struct Frame {
    const std::vector<Instruction>* body;
    size_t pc = 0;
    bool entered = false;  // the instruction at pc is a loop the walk has entered
  };

  // Walks on until the instruction of `e` (the interpreter's next step, the walk's only look-ahead) consumes it;
  // false when the program ends first. Without `e` (the run is over) it walks to the end.
  bool advance(const Event* e) {
    while (!walk_.empty()) {
      Frame& f = walk_.back();
      if (f.pc == f.body->size()) {  // a body ends: a loop's goes back to its loop, an if's or the program's goes on
        walk_.pop_back();
        continue;
      }
      const Instruction& inst = (*f.body)[f.pc];
      if (inst.op == Op::Loop) {
        if (!f.entered) {
          f.entered = true;
          if (hasRegisterBound(inst)) {  // the bound is read on entry: after the SP writers of its registers (RAW)
            scratch_lanes_.clear();
            for (const IndexTerm& t : inst.rare->mask.c.terms) addLanes(t.reg, scratch_lanes_);
            waitRegisterWriters(scratch_lanes_);
          }
        }
        if (e && e->inst == &inst) {  // an iteration
          waitRegisterWriters(e->lanes_written);  // the induction register: WAW with SP writers
          sequencerStep(*e);
          ++out_.loop_iterations;
          walk_.push_back({&inst.body});
          return true;
        }
        // Leaving the loop sets the register once more (to its first value >= hi): the same wait, no cost.
        scratch_lanes_.clear();
        addLanes(inst.rd, scratch_lanes_);
        waitRegisterWriters(scratch_lanes_);
        f.entered = false;
        ++f.pc;
        continue;
      }
      if (!e || e->inst != &inst) throw std::logic_error("timing oracle: the walk and the interpreter's steps disagree");
      ++f.pc;
      if (inst.op == Op::If) {
        waitRegisterWriters(e->lanes_read);
        sequencerStep(*e);
        if (e->held) walk_.push_back({&inst.body});
        return true;
      }
      dispatch(*e);
      return true;
    }
    return e == nullptr;
  }

  const MachineLayout& layout() {
    if (!layout_) layout_.emplace(p_);
    return *layout_;
  }
  void addLanes(RegId r, std::vector<uint32_t>& out) {
    for (uint32_t l = layout().firstLane(r), end = l + layout().lanes(r); l < end; ++l) out.push_back(l);
  }

  // The sequencer waits for the end of the last SP instruction writing any of these lanes.
  void waitRegisterWriters(const std::vector<uint32_t>& lanes) {
    const uint64_t before = clock_;
    for (uint32_t l : lanes)
      if (l < lane_end_.size()) clock_ = std::max(clock_, lane_end_[l]);
    out_.dependence_stall_cycles += clock_ - before;
  }

  // A loop iteration or an if: on the sequencer, its cost from the sequencer's clock.
  void sequencerStep(const Event& e) {
    TimedStep& s = fresh(e);
    s.track = kSequencerTrack;
    s.dispatch = s.start = clock_;
    s.end = s.done = clock_ + e.cost;
    clock_ = s.end;
    out_.sequencer_busy_cycles += e.cost;
    out_.cycles = std::max(out_.cycles, s.end);
    placed(s);
  }

  // The step being placed (one TimedStep is reused: the sink copies what it keeps).
  TimedStep& fresh(const Event& e) {
    step_.inst = e.inst;
    step_.track = 0;
    step_.dispatch = step_.ready = step_.issue = step_.start = step_.end = step_.done = 0;
    step_.producers.clear();
    named_.clear();
    return step_;
  }

  // Hands a placed step to the sink, its producers (named_: in index order, each once) with their tags; returns the
  // step's tag.
  uint64_t placed(TimedStep& s) {
    tags_.clear();
    for (const auto& [step, tag] : named_) s.producers.push_back(step), tags_.push_back(tag);
    return sink_.onStep(uint32_t(placed_++), s, tags_);
  }

  void dispatch(const Event& e) {
    const uint32_t engine = uint32_t(engineOf(e.inst->op));
    // (a) A free slot in the engine's queue: the instruction `depth` places ahead of it on this engine has left.
    std::deque<uint64_t>& left = leave_[engine];
    if (left.size() >= t_.engine_queue_depth) {
      const uint64_t leaves = left[left.size() - t_.engine_queue_depth];
      if (leaves > clock_) out_.engine_busy_stall_cycles += leaves - clock_, clock_ = leaves;
    }
    // (b) The registers it reads have been written.
    waitRegisterWriters(e.lanes_read);
    prune(*e.inst);
    TimedStep& s = fresh(e);
    s.dispatch = clock_;
    const uint32_t index = uint32_t(placed_);
    uint64_t deps_end = 0;
    // Every older access not complete by its dispatch that conflicts: a read with writes (RAW), a write with reads
    // (WAR) and writes (WAW), whatever their engine. It waits for their results to be complete, except for a WAR or
    // WAW on an older instruction of its own compute engine, which its engine's program order covers (that one's
    // cost has ended when it starts).
    // inflight_ is in step order, so the producers are found in index order.
    for (const Access& a : inflight_) {
      if (a.done <= s.dispatch) continue;
      for (const Rect& r : e.rects) {
        if (!(r.write || a.rect.write) || !r.overlaps(a.rect)) continue;
        if (named_.empty() || named_.back().first != a.step) named_.emplace_back(a.step, a.tag);
        const bool raw = !r.write, own = a.engine == engine && engine != uint32_t(Engine::DMA);
        deps_end = std::max(deps_end, own && !raw ? a.end : a.done);
      }
    }
    PortUser* ports_used[2] = {nullptr, nullptr};
    if (e.inst->op != Op::Dma) sharedPorts(e, engine, s, deps_end, ports_used);
    ++out_.instructions[engine];
    if (e.inst->op == Op::Dma) {
      transfer(e, s, deps_end);
    } else {
      uint64_t& engine_clock = engine_clock_[engine];
      s.track = engine;
      s.start = std::max({engine_clock, s.dispatch, deps_end});
      out_.dependence_stall_cycles += s.start - std::max(engine_clock, s.dispatch);
      s.end = s.start + e.cost;
      s.done = s.start + std::max(e.cost, t_.dependentInterval(Engine(engine)));
      engine_clock = s.end;
      out_.busy_cycles[engine] += e.cost;
      left.push_back(s.start);
    }
    if (left.size() > t_.engine_queue_depth) left.pop_front();
    if (e.inst->op != Op::Dma && !e.lanes_written.empty()) {  // SP: its register writes end with it
      for (uint32_t l : e.lanes_written) {
        if (l >= lane_end_.size()) lane_end_.resize(l + 1, 0);
        lane_end_[l] = s.done;
      }
    }
    out_.cycles = std::max(out_.cycles, s.done);
    const uint64_t tag = placed(s);
    for (PortUser* u : ports_used)
      if (u) *u = {true, index, s.done, tag};
    for (const Rect& r : e.rects) inflight_.push_back({r, s.end, s.done, index, engine, tag});
    out_.peak_inflight_accesses = std::max<uint64_t>(out_.peak_inflight_accesses, inflight_.size());
  }

  // docs/simulator.md "Shared ports": a DVE or POOL instruction touching SBUF depends on the youngest older one of the
  // other engine touching SBUF (port.dve-pool-sbuf), a DVE or ACT one touching PSUM likewise (port.dve-act-psum).
  // `used` gets the sides this instruction becomes the youngest user of (filled in once its end is known).
  void sharedPorts(const Event& e, uint32_t engine, TimedStep& s, uint64_t& deps_end, PortUser* used[2]) {
    const bool dve = engine == uint32_t(Engine::DVE), pool = engine == uint32_t(Engine::POOL),
               act = engine == uint32_t(Engine::ACT);
    bool sbuf = false, psum = false;
    for (const Rect& r : e.rects) sbuf |= r.resource == 0, psum |= r.resource == 1;
    auto use = [&](int side, PortUser& own, const PortUser& other) {
      if (other.used && other.end > s.dispatch) {
        const auto at = std::lower_bound(named_.begin(), named_.end(), std::make_pair(other.step, uint64_t(0)),
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
        if (at == named_.end() || at->first != other.step) named_.insert(at, {other.step, other.tag});
        deps_end = std::max(deps_end, other.end);
      }
      used[side] = &own;
    };
    if (sbuf && t_.port_dve_pool_sbuf && (dve || pool))
      use(0, dve ? sbuf_dve_ : sbuf_pool_, dve ? sbuf_pool_ : sbuf_dve_);
    if (psum && t_.port_dve_act_psum && (dve || act))
      use(1, dve ? psum_dve_ : psum_act_, dve ? psum_act_ : psum_dve_);
  }

  // docs/simulator.md "DMA": the issuer, the ring, the fabric.
  void transfer(const Event& e, TimedStep& s, uint64_t deps_end) {
    s.ready = std::max({issuer_clock_, s.dispatch, deps_end});
    out_.dependence_stall_cycles += s.ready - std::max(issuer_clock_, s.dispatch);
    leave_[uint32_t(Engine::DMA)].push_back(s.ready);
    const uint32_t q = uint32_t(dmas_++ % p_.arch.dma_queues);
    Queue& queue = queues_[q];
    // Transfers on the ring not ended by the ready cycle; when they fill it, it waits for the oldest one's end.
    while (!queue.ring.empty() && queue.ring.front() <= s.ready) queue.ring.pop_front();
    s.issue = s.ready;
    if (queue.ring.size() >= p_.arch.dma_ring_slots) {
      s.issue = queue.ring.front();
      out_.ring_full_stall_cycles += s.issue - s.ready;
      while (!queue.ring.empty() && queue.ring.front() <= s.issue) queue.ring.pop_front();
    }
    const uint64_t earliest = std::max(s.issue + fixed_, queue.last_end);
    s.start = book(s.issue, earliest, e.dma.fabric);
    s.end = s.done = s.start + e.dma.span;
    s.track = kFirstQueueTrack + q;
    queue.ring.push_back(s.end);
    queue.last_end = s.end;
    issuer_clock_ = s.issue;
    TimingSchedule::Queue& qs = out_.queues[q];
    ++qs.transfers;
    qs.bytes += e.dma.bytes;
    qs.descriptors += e.dma.descriptors;
    qs.busy_cycles += e.dma.span;
    qs.peak_occupancy = std::max<uint32_t>(qs.peak_occupancy, uint32_t(queue.ring.size()));
    ring_changes_.push({s.issue, q, +1});
    ring_changes_.push({s.end, q, -1});
    // Every later change is at or after the issuer's clock: a later transfer is taken no earlier, and a slot is
    // freed no earlier than it was taken. The changes before it are final.
    flushRing(issuer_clock_);
  }

  // The earliest window of `length` cycles from `earliest` on that overlaps no window booked before.
  uint64_t book(uint64_t now, uint64_t earliest, uint64_t length) {
    while (!fabric_.empty() && fabric_.begin()->second <= now) fabric_.erase(fabric_.begin());
    uint64_t start = earliest;
    auto it = fabric_.upper_bound(start);
    if (it != fabric_.begin() && std::prev(it)->second > start) start = std::prev(it)->second;
    for (it = fabric_.lower_bound(start); it != fabric_.end() && it->first < start + length; ++it)
      start = std::max(start, it->second);
    if (length > 0) fabric_.emplace(start, start + length);
    return start;
  }

  // Accesses of steps complete at or before the sequencer's clock hold nothing back any more. What is left is
  // bounded by the machine (instructions queued or running on each engine, transfers on the rings), not by the
  // run's length; o.max_state_bytes bounds it all the same.
  void prune(const Instruction& at) {
    if (inflight_.size() < prune_at_) return;
    std::erase_if(inflight_, [&](const Access& a) { return a.done <= clock_; });
    prune_at_ = std::max<size_t>(64, inflight_.size() * 2);
    const uint64_t bytes = uint64_t(inflight_.size()) * sizeof(Access);
    if (bytes > o_.max_state_bytes)
      throw InputError(at.loc, "the timing oracle's accesses in flight need more than " +
                                   std::to_string(o_.max_state_bytes) + " bytes (" +
                                   std::to_string(inflight_.size()) + " accesses of instructions not yet complete)");
  }

  // Hands on, in time order, the ring changes before cycle `before` (a slot freed in a cycle before one taken in it,
  // then by queue), with each queue's occupancy after it.
  void flushRing(uint64_t before) {
    while (!ring_changes_.empty() && ring_changes_.top().cycle < before) {
      const RingChange c = ring_changes_.top();
      ring_changes_.pop();
      used_[c.queue] += c.delta;
      sink_.onRingChange({c.queue, c.cycle, uint32_t(used_[c.queue])});
    }
  }

  struct Access {
    Rect rect;
    uint64_t end, done;  // its step's end and completion (TimedStep)
    uint32_t step;
    uint32_t engine;  // its step's (ir/program.h Engine)
    uint64_t tag;     // the sink's tag of its step
  };
  struct Queue {
    std::deque<uint64_t> ring;  // ends of the transfers holding its slots, oldest first
    uint64_t last_end = 0;
  };
  struct RingChange {
    uint64_t cycle;
    uint32_t queue;
    int32_t delta;
    // Later in the order above: the priority queue's top is the earliest.
    bool operator<(const RingChange& o) const {
      if (cycle != o.cycle) return cycle > o.cycle;
      if (delta != o.delta) return delta > o.delta;
      return queue > o.queue;
    }
  };

  const Program& p_;
  const TimingTable& t_;
  const TimingOracleOptions& o_;
  TimingStepSink& sink_;
  TimingSchedule& out_;
  std::optional<MachineLayout> layout_;
  std::vector<Frame> walk_;
  std::vector<uint32_t> scratch_lanes_;
  TimedStep step_;
  std::vector<std::pair<uint32_t, uint64_t>> named_;  // the step's producers: index, tag
  std::vector<uint64_t> tags_;
  uint64_t placed_ = 0;  // steps handed to the sink
  uint64_t clock_ = 0;   // the sequencer's
  std::array<uint64_t, 5> engine_clock_{};
  std::array<std::deque<uint64_t>, 6> leave_;  // per engine: when its last `depth` instructions left its queue
  std::vector<uint64_t> lane_end_;             // per register lane: the end of its last SP writer
  std::vector<Access> inflight_;
  PortUser sbuf_dve_, sbuf_pool_, psum_dve_, psum_act_;  // each side's youngest user of a shared port
  size_t prune_at_ = 64;
  uint64_t fixed_ = 0, issuer_clock_ = 0, dmas_ = 0;
  std::vector<Queue> queues_;
  std::map<uint64_t, uint64_t> fabric_;  // booked windows: start -> end
  std::priority_queue<RingChange> ring_changes_;  // not yet handed on: at or after the issuer's clock
  std::vector<int64_t> used_;                      // per queue: its occupancy after the changes handed on
};

// The sink of timingSchedule() without one: keeps every step and ring change, within o.max_state_bytes.
class Collector : public TimingStepSink {
 public:
  Collector(TimingSchedule& out, uint64_t max_bytes) : out_(out), max_bytes_(max_bytes) {}
  uint64_t onStep(uint32_t, const TimedStep& s, const std::vector<uint64_t>&) override {
    bytes_ += sizeof(TimedStep) + s.producers.size() * sizeof(uint32_t);
    if (bytes_ > max_bytes_)
      throw InputError(s.inst->loc, "the timing oracle's schedule needs more than " + std::to_string(max_bytes_) +
                                        " bytes (" + std::to_string(out_.steps.size()) + " steps placed)");
    out_.steps.push_back(s);
    return 0;
  }
  void onRingChange(const TimingSchedule::RingChange& c) override { out_.ring_occupancy.push_back(c); }

 private:
  TimingSchedule& out_;
  const uint64_t max_bytes_;
  uint64_t bytes_ = 0;
};

}  // namespace

TimingSchedule timingSchedule(const Program& allocated, const TimingTable& t, TimingStepSink& sink,
                              const TimingOracleOptions& o) {
  if (std::string err = validateArch(allocated.arch); !err.empty()) throw InputError(SourceLoc{}, err);
  const MachineLayout layout(allocated);
  PhysicalStorage storage(allocated, 0, o.max_storage_bytes);
  const uint64_t max_view_bytes = largestTensorBytes(allocated, o.max_storage_bytes);
  TimingSchedule out;
  Scheduler scheduler(allocated, t, o, sink, out);
  Recorder recorder(allocated, t, storage, layout, max_view_bytes, [&](const Event& e) { scheduler.step(e); });
  InterpOptions io;
  io.max_steps = o.max_steps;
  io.max_storage_bytes = o.max_storage_bytes;
  io.observer = &recorder;
  io.record_reads = false;
  io.values = false;  // which views and registers each step touches; a reg_load still runs with values
  interpret(allocated, storage, io);
  scheduler.finish();
  return out;
}

TimingSchedule timingSchedule(const Program& allocated, const TimingTable& t, const TimingOracleOptions& o) {
  TimingSchedule out;
  Collector collector(out, o.max_state_bytes);
  TimingSchedule summary = timingSchedule(allocated, t, collector, o);
  summary.steps = std::move(out.steps);
  summary.ring_occupancy = std::move(out.ring_occupancy);
  return summary;
}

}  // namespace allocsim::verify
