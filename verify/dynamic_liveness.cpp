#include "verify/dynamic_liveness.h"

#include <algorithm>
#include <limits>
#include <string>

#include "ir/interp.h"
#include "verify/loop_nest.h"

namespace allocsim {
namespace {

// Per-element "last write" is stored as step + 1 in 32 bits, 0 meaning never written, so runs are capped below
// 2^32 steps.
constexpr uint64_t kMaxTrackedSteps = std::numeric_limits<uint32_t>::max() - 2;

class LivenessWalk : public ExecObserver {
 public:
  LivenessWalk(const Program& p, const LivenessOptions& opts) : p_(p), opts_(opts), nest_(p) {
    out_.tensors.resize(p.tensors.size());
    out_.registers.resize(p.registers.size());
    last_write_.resize(p.tensors.size());
    reg_last_write_.assign(p.registers.size(), 0);
    tracked_.resize(p.tensors.size());
    for (TensorId t = 0; t < p.tensors.size(); ++t) {
      tracked_[t] = !opts.placed_only || p.tensors[t].placement.has_value();
      if (tracked_[t] && p.tensors[t].input) out_.tensors[t].add(0, 0);
    }
  }

  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) override {
    bool next_iteration = nest_.advance(inst, [&](const Instruction& loop) { leaveLoop(loop, step - 1); });
    if (inst.op == Op::Loop && next_iteration && inst.rd < p_.registers.size()) readReg(inst.rd, step);
    for (const ResolvedView& v : access.reads) readView(v, step);
    for (RegId r : access.reg_reads) readReg(r, step);
    for (const ResolvedView& v : access.writes) writeView(v, step);
    for (RegId r : access.reg_writes) writeReg(r, step);
    if (inst.op == Op::Mov && sameLanes(inst.rd, inst.rs)) out_.copies.push_back({step, inst.rd, inst.rs});
  }

  // Tensor t is dead (ir/release_schedule.h): its per-element stamps are no longer needed (outputs, whose
  // stamps finish() reads, are never released).
  void onRelease(TensorId t) override {
    if (t >= last_write_.size() || last_write_[t].empty()) return;
    tracked_bytes_ -= last_write_[t].size() * sizeof(uint32_t);
    std::vector<uint32_t>().swap(last_write_[t]);
  }

  // Output t is written no more: the earliest of its elements' last writes is known now, and its stamps can go.
  void onOutputFinal(TensorId t) override {
    if (t >= last_write_.size() || last_write_[t].empty()) return;
    final_write_.resize(p_.tensors.size(), 0);
    final_write_[t] = earliestStamp(last_write_[t]);
    onRelease(t);
  }

  DynamicLiveness finish(uint64_t steps) {
    out_.steps = steps;
    nest_.leaveAll([&](const Instruction& loop) { leaveLoop(loop, steps); });
    for (TensorId t = 0; t < p_.tensors.size(); ++t) {
      if (!p_.tensors[t].output) continue;
      const uint32_t earliest = !last_write_[t].empty() ? earliestStamp(last_write_[t])
                                : t < final_write_.size() ? final_write_[t] : 0;
      if (earliest != 0) out_.tensors[t].add(earliest - 1, steps);
    }
    return std::move(out_);
  }

 private:
  static uint32_t earliestStamp(const std::vector<uint32_t>& stamps) {  // 0: nothing written
    uint32_t earliest = 0;
    for (uint32_t w : stamps)
      if (w != 0 && (earliest == 0 || w < earliest)) earliest = w;
    return earliest;
  }

  bool sameLanes(RegId a, RegId b) const {
    if (a == b || a >= p_.registers.size() || b >= p_.registers.size()) return false;
    const Register& x = p_.registers[a];
    const Register& y = p_.registers[b];
    return x.phys && y.phys && *x.phys == *y.phys && x.lanes() == y.lanes();
  }

  // The loop tests (reads) its register when it ends and leaves the exit value in it.
  void leaveLoop(const Instruction& loop, uint64_t last_step) {
    if (loop.rd >= p_.registers.size()) return;
    readReg(loop.rd, last_step);
    writeReg(loop.rd, last_step);
  }

  std::vector<uint32_t>& shadow(TensorId t) {
    std::vector<uint32_t>& s = last_write_[t];
    if (!s.empty()) return s;
    const Tensor& tensor = p_.tensors[t];
    uint64_t elements = uint64_t(tensor.partitions) * tensor.elements;
    tracked_bytes_ += elements * sizeof(uint32_t);
    if (tracked_bytes_ > opts_.max_tracking_bytes)
      throw InputError(tensor.loc, "dynamic liveness needs more than " + std::to_string(opts_.max_tracking_bytes) +
                                       " bytes of per-element bookkeeping (at tensor '" + tensor.name + "')");
    s.assign(elements, tensor.input ? 1 : 0);  // inputs are written at step 0
    return s;
  }

  // Calls f(first, last) for each contiguous run of the view's elements in the tensor's shadow.
  template <typename F>
  void forEachRun(const ResolvedView& v, std::vector<uint32_t>& s, F&& f) {
    uint64_t row = p_.tensors[v.tensor].elements;
    for (uint32_t q = 0; q < v.partitions; ++q)
      for (uint32_t j = 0; j < v.count2; ++j) {
        uint64_t begin = (uint64_t(v.partition) + q) * row + v.offset + uint64_t(j) * v.step2;
        f(s.begin() + begin, s.begin() + begin + v.count);
      }
  }

  void readView(const ResolvedView& v, uint64_t step) {
    if (v.tensor >= p_.tensors.size() || !tracked_[v.tensor] || v.elements() == 0) return;
    std::vector<uint32_t>& s = shadow(v.tensor);
    // stamp - 1 wraps "never written" (0) to the largest value, so a plain (vectorizable) min skips it.
    uint32_t earliest = std::numeric_limits<uint32_t>::max();
    forEachRun(v, s, [&](auto first, auto last) {
      for (auto it = first; it != last; ++it) earliest = std::min(earliest, uint32_t(*it - 1));
    });
    // An element never written reads garbage "written" now, as far as liveness goes.
    out_.tensors[v.tensor].add(std::min<uint64_t>(earliest, step), step);
  }

  void writeView(const ResolvedView& v, uint64_t step) {
    if (v.tensor >= p_.tensors.size() || !tracked_[v.tensor] || v.elements() == 0) return;
    std::vector<uint32_t>& s = shadow(v.tensor);
    uint32_t stamp = uint32_t(step + 1);
    forEachRun(v, s, [&](auto first, auto last) { std::fill(first, last, stamp); });
    out_.tensors[v.tensor].add(step, step);
  }

  void readReg(RegId r, uint64_t step) {
    if (r >= reg_last_write_.size()) return;
    uint64_t w = reg_last_write_[r];
    out_.registers[r].add(w == 0 ? step : w - 1, step);
  }

  void writeReg(RegId r, uint64_t step) {
    if (r >= reg_last_write_.size()) return;
    reg_last_write_[r] = step + 1;
    out_.registers[r].add(step, step);
  }

  const Program& p_;
  const LivenessOptions& opts_;
  LoopNest nest_;
  DynamicLiveness out_;
  std::vector<std::vector<uint32_t>> last_write_;  // by tensor, row-major elements: step + 1, 0 = never; lazy
  std::vector<uint64_t> reg_last_write_;           // step + 1, 0 = never
  std::vector<uint32_t> final_write_;              // by output made final early: earliestStamp of its stamps
  std::vector<bool> tracked_;                      // by tensor
  uint64_t tracked_bytes_ = 0;
};

}  // namespace

DynamicLiveness computeDynamicLiveness(const Program& program, const LivenessOptions& opts) {
  Program scratch;
  const Program& p = withPreorderIds(program, scratch);
  LivenessWalk walk(p, opts);
  InterpOptions io;
  io.input_seed = opts.input_seed;
  io.max_steps = std::min(opts.max_steps, kMaxTrackedSteps);
  io.observer = &walk;
  io.record_reads = false;
  io.release_dead = true;
  io.values = false;  // the walk looks at which bytes each step touches, not at their values
  io.progress = opts.progress;
  io.progress_phase = opts.progress_phase;
  InterpResult run = interpret(p, io);
  return walk.finish(run.steps);
}

}  // namespace allocsim
