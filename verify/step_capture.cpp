#include "verify/step_capture.h"

#include "ir/view.h"
#include "verify/operands.h"

namespace allocsim {
namespace {

struct StopRun {};  // thrown by an observer to end a replay early

class FindExecution : public ExecObserver {
 public:
  explicit FindExecution(uint64_t ordinal) : ordinal_(ordinal) {}
  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) override {
    if (inst.op == Op::Loop) return;
    if (seen_++ < ordinal_) return;
    found = StepCapture{&inst, step, access, {}, {}};
    throw StopRun{};
  }
  std::optional<StepCapture> found;

 private:
  uint64_t ordinal_;
  uint64_t seen_ = 0;
};

}  // namespace

std::unique_ptr<Storage> stateBefore(const Program& p, const StorageFactory& make, InterpOptions opts, uint64_t step) {
  std::unique_ptr<Storage> s = make();
  opts.max_steps = step == 0 ? 0 : step - 1;
  opts.observer = nullptr;
  opts.record_reads = false;
  try {
    interpret(p, *s, opts);
  } catch (const InputError&) {
    // The step limit (or the error the first run also met later): the storage holds the state we want.
  }
  return s;
}

std::optional<StepCapture> captureExecution(const Program& p, const StorageFactory& make, const InterpOptions& opts,
                                            uint64_t ordinal, const std::vector<RegId>* term_order) {
  FindExecution finder(ordinal);
  replayObserved<StopRun>(p, make, opts, finder);
  if (!finder.found) return std::nullopt;
  StepCapture c = std::move(*finder.found);
  std::unique_ptr<Storage> before = stateBefore(p, make, opts, c.step);
  for (const ResolvedView& v : c.access.reads) {
    std::vector<uint8_t> bytes(v.bytes());
    gatherView(*before, v, bytes.data());
    c.views.push_back(std::move(bytes));
  }
  for (const RegisterOperand& r : registerOperands(p, *c.inst, term_order)) c.registers.push_back(before->readReg(r.reg));
  return c;
}

}  // namespace allocsim
