// An example allocator written against the installed allocsim package (README "Fuzz your own allocator"):
// interval-based first fit. Each tensor and register is live from its first to its last reference in program
// order, and over the whole outermost loop around any reference (a value used in a loop may be needed in the
// next iteration); items whose intervals intersect get disjoint storage, first fit in order of first reference.
//
// `LiveEnd::Inclusive` is correct. `LiveEnd::Exclusive` has the classic bug the harness is meant to catch: live
// ranges half-open at the last use, so an instruction's result may be placed over a source that dies at that
// same instruction (`tt c, a, b, add` with c on a's bytes) — harmless when the result overwrites its source
// element by element, wrong as soon as it does not (a matmul, a reduction, a shifted view).
#pragma once

#include "harness/allocator.h"

namespace example {

enum class LiveEnd { Inclusive, Exclusive };

class IntervalFirstFit : public allocsim::Allocator {
 public:
  explicit IntervalFirstFit(LiveEnd end) : end_(end) {}
  allocsim::Program allocate(const allocsim::Program& input) override;

 private:
  LiveEnd end_;
};

}  // namespace example
