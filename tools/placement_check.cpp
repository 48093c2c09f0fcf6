#include "tools/placement_check.h"

#include <string>

#include "ir/diag.h"
#include "verify/placement.h"

namespace allocsim {

PlacementCheck placementOracleCheck() {
  return [](const Program& allocated) {
    // Registers on lane 0 for the oracle's static rules; what it says of them is not asked.
    Program p = allocated;
    for (Register& r : p.registers)
      if (!r.phys) r.phys = 0;
    PlacementVerdict v;
    try {
      for (const Finding& f : checkPlacement(p)) {
        if (f.kind == FindingKind::RegisterOverlap || f.kind == FindingKind::RegisterLanes) continue;
        if (v.finding.empty()) v.finding = "line " + std::to_string(f.loc.line) + ": " + f.message;
        if (f.kind == FindingKind::Overlap && f.region.items.size() == 2)
          v.live_together.push_back({f.region.items[0], f.region.items[1]});
      }
    } catch (const InputError& e) {
      v.finding = std::string("the program does not run: ") + e.what();
    }
    // The oracle follows one run. Where a register is loaded from tensor data, another input may take other paths
    // or addresses, so its acceptance says nothing of them (its pairs still prove: every input's placement must
    // keep apart what this run has live together).
    if (v.finding.empty()) {
      const Instruction* load = nullptr;
      forEachInstruction(p.body, [&](const Instruction& i) {
        if (load == nullptr && i.op == Op::RegLoad && i.origin != Origin::Reload) load = &i;
      });
      if (load != nullptr)
        v.finding = "line " + std::to_string(load->loc.line) +
                    ": a register is loaded from tensor data, so one run of the oracle does not decide which tensors "
                    "are live together on every input";
    }
    return v;
  };
}

}  // namespace allocsim
