// Fuzz target for the exact allocator (alloc/exact/, `allocsim alloc --allocator exact`): bytes -> well-formed tiny
// program (some tensors pinned, fuzz/fuzz_program.h) -> the complete placement search for PSUM, then SBUF (at -O7
// keeping the input's placements and placing the rest), then the REG colorer -> well-formedness + the three oracles.
// The search gives up after a node budget per space instead of a time limit, so that the outcome depends on the
// input only and a finding reproduces from its file.
// AllocError is a legal outcome but for one claim that can be checked: a proof that no placement fits ("proved by
// ...") of a program the greedy placer fits (alloc/greedy_placer.h: the same live ranges, alignment and partition
// quantum, no spilling), with registers to spare so that only the tensors decide. The search's lower bounds and
// the canonical timeline (alloc/exact/canonical_timeline.h: a run of instructions that only end live ranges, or only
// start them, is one position) are what such a proof rests on.
#include <cstdio>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/greedy_placer.h"
#include "fuzz/fuzz_program.h"

using namespace allocsim;

namespace {

// Enough for the search to finish on most of these small programs, and a bound on the slow ones (a node is
// microseconds under the sanitizers).
constexpr uint64_t kNodeBudget = 5000;

bool greedyFits(Program p) {
  p.arch.sp_registers = 64;  // registers are the REG colorer's business, not the search's
  try {
    placeGreedy(p);
    return true;
  } catch (const AllocError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  DriverOptions o;
  o.allocator = "exact";
  o.optlevel = in.knob % 2 ? 7 : 2;
  o.node_budget = kNodeBudget;
  o.time_limit_s = 1e9;  // the node budget decides
  char target[96];
  std::snprintf(target, sizeof target, "exact_driver (allocsim alloc --allocator exact -O%d --node-budget %llu)",
                o.optlevel, static_cast<unsigned long long>(kNodeBudget));
  DriverResult r;
  try {
    r = allocate(in.program, o);
  } catch (const AllocError& e) {
    const std::string what = e.what();
    if (what.find("exact: no placement of") != std::string::npos && what.find("(proved by") != std::string::npos &&
        greedyFits(in.program))
      fuzz::reportBug(target, "the exact search proves impossible a placement the greedy placer finds", in.program,
                      nullptr, what);
    return 0;
  }
  fuzz::requireCorrect(target, in.program, r.program, in.poison_seed);
  return 0;
}
