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
    return v;
  };
}

}  // namespace allocsim
