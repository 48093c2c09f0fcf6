#include "verify/last_writer.h"

namespace allocsim {
namespace {

class LastWriterObserver : public ExecObserver {
 public:
  LastWriterObserver(const MachineLayout& layout, const WriteTargets& targets, LastWrites& out)
      : layout_(layout), targets_(targets), out_(out) {
    out_.bytes.assign(targets.bytes.size(), {});
    out_.lanes.assign(targets.lanes.size(), {});
  }

  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) override {
    for (const ResolvedView& w : access.writes)
      for (size_t i = 0; i < targets_.bytes.size(); ++i)
        if (layout_.covers(w, targets_.bytes[i])) out_.bytes[i] = {&inst, step, w.tensor, kNone};
    for (RegId r : access.reg_writes) {
      const uint32_t first = layout_.firstLane(r), n = layout_.lanes(r);
      for (size_t i = 0; i < targets_.lanes.size(); ++i)
        if (targets_.lanes[i] >= first && targets_.lanes[i] < first + n) out_.lanes[i] = {&inst, step, kNone, r};
    }
  }

 private:
  const MachineLayout& layout_;
  const WriteTargets& targets_;
  LastWrites& out_;
};

}  // namespace

LastWrite LastWrites::latest() const {
  LastWrite best;
  for (const std::vector<LastWrite>* v : {&bytes, &lanes})
    for (const LastWrite& w : *v)
      if (w.inst && (!best.inst || w.step > best.step)) best = w;
  return best;
}

LastWrites findLastWrites(const Program& allocated, const MachineLayout& layout, const StorageFactory& make,
                          const InterpOptions& opts, const WriteTargets& targets, uint64_t before_step) {
  LastWrites out;
  LastWriterObserver observer(layout, targets, out);
  InterpOptions o = opts;
  o.observer = &observer;
  o.record_reads = false;
  if (before_step != UINT64_MAX) o.max_steps = before_step == 0 ? 0 : before_step - 1;
  try {
    std::unique_ptr<Storage> s = make();
    interpret(allocated, *s, o);
  } catch (const InputError&) {
    // The step limit, or the failure the first run met at that step: everything before it was observed.
  }
  return out;
}

}  // namespace allocsim
