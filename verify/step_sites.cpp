#include "verify/step_sites.h"

#include <algorithm>
#include <map>

#include "ir/interp.h"
#include "ir/print.h"
#include "ir/storage.h"
#include "verify/loop_nest.h"

namespace allocsim {
namespace {

struct AllFound {};  // thrown by the observer to end the run early

class SiteFinder : public ExecObserver {
 public:
  SiteFinder(const Program& p, Storage& storage, std::map<uint64_t, StepSite>& wanted)
      : p_(p), storage_(storage), nest_(p), wanted_(wanted), next_(wanted.begin()) {
    while (next_ != wanted_.end() && next_->first == 0) ++next_;  // step 0 is before the run
  }

  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess&) override {
    nest_.advance(inst, [](const Instruction&) {});
    if (next_ == wanted_.end()) throw AllFound{};
    if (step != next_->first) return;
    StepSite& site = next_->second;
    site.inst_id = inst.id;
    site.loc = inst.loc;
    site.text = printInstruction(p_, inst);
    for (const Instruction* loop : nest_.active()) {
      if (loop->rd >= p_.registers.size()) continue;
      if (!site.loop_values.empty()) site.loop_values += ", ";
      site.loop_values += p_.registers[loop->rd].name + " = " + std::to_string(storage_.readReg(loop->rd));
    }
    if (++next_ == wanted_.end()) throw AllFound{};
  }

 private:
  const Program& p_;
  Storage& storage_;
  LoopNest nest_;
  std::map<uint64_t, StepSite>& wanted_;
  std::map<uint64_t, StepSite>::iterator next_;
};

}  // namespace

std::vector<StepSite> locateSteps(const Program& program, const std::vector<uint64_t>& steps, uint64_t input_seed,
                                  uint64_t max_steps) {
  std::map<uint64_t, StepSite> wanted;
  for (uint64_t s : steps) wanted[s].step = s;
  bool any_run_step = std::any_of(steps.begin(), steps.end(), [](uint64_t s) { return s != 0; });
  if (any_run_step) {
    Program scratch;
    const Program& p = withPreorderIds(program, scratch);
    InterpOptions io;
    io.input_seed = input_seed;
    io.max_steps = max_steps;
    io.record_reads = false;
    PrivateStorage storage(p);
    SiteFinder finder(p, storage, wanted);
    io.observer = &finder;
    try {
      interpret(p, storage, io);
    } catch (const AllFound&) {
    }
  }
  std::vector<StepSite> out;
  out.reserve(steps.size());
  for (uint64_t s : steps) out.push_back(wanted[s]);
  return out;
}

}  // namespace allocsim
