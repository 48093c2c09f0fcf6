#include "alloc/liveness_report.h"

#include <string>

namespace allocsim {

AllocReport livenessReport(const LivenessStats& s) {
  AllocReport r;
  const uint32_t asked = s.per_iteration + s.carried + s.undecidable;
  r.line(std::to_string(asked) + " (tensor, loop) back-edge questions decided from the views: " +
         std::to_string(s.per_iteration) + " per iteration, " + std::to_string(s.carried) + " loop-carried, " +
         std::to_string(s.undecidable) + " undecidable (kept live over the loop: the conservative rule)");
  r.set("liveness.per_iteration", int64_t(s.per_iteration));
  r.set("liveness.carried", int64_t(s.carried));
  r.set("liveness.undecidable", int64_t(s.undecidable));
  return r;
}

}  // namespace allocsim
