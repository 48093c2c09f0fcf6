// Properties of the allocation pipeline against the oracles: every allocation the placers produce passes
// all three (no false alarm, and no placer bug), placing is deterministic, and a program too big for the
// machine gets a clean AllocError / InputError. A failing case is saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/no_reuse.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "props/require_correct.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

using Placer = Program (*)(const Program&);

// The tiny machine, or tiny with 16 SP registers: neither placer spills, and generated programs usually need
// more than tiny's 4 registers, so without the wider variant most cases would be discarded.
rc::Gen<Program> genTinyProgram() {
  return rc::gen::exec([] {
    Arch arch = *archPreset("tiny");
    arch.sp_registers = *rc::gen::element<uint32_t>(4, 16);
    return *genProgramOn(arch);
  });
}
const std::pair<const char*, Placer> kPlacers[] = {{"greedy", placeGreedy}, {"no_reuse", placeNoReuse}};

// Places `p` (discarding the case when it does not fit) and requires all three oracles to pass.
void placeAndVerify(const char* name, Placer place, const Program& p) {
  Program allocated;
  try {
    allocated = place(p);
  } catch (const AllocError&) {
    RC_DISCARD("does not fit");
  }
  const Verdict v = requireCorrectAllocation(name, p, allocated, *rc::gen::inRange<uint64_t>(1, UINT64_MAX));
  const VerifyReport& r = v.report;
  RC_TAG(r.oracles[0].ran && r.oracles[1].ran && r.oracles[2].ran ? "verified" : "not run");
}

RC_GTEST_PROP(Allocation, PlaceGreedyPassesAllOracles, ()) {
  placeAndVerify("place_greedy_finding", placeGreedy, *genTinyProgram());
}

RC_GTEST_PROP(Allocation, PlaceNoReusePassesAllOracles, ()) {
  placeAndVerify("place_no_reuse_finding", placeNoReuse, *genTinyProgram());
}

// The same input placed twice, or placed after a print/parse round trip, prints byte-identically.
RC_GTEST_PROP(Allocation, PlacingIsDeterministic, ()) {
  const Program p = *genTinyProgram();
  for (auto [name, place] : kPlacers) {
    std::string first, second;
    try {
      first = printProgram(place(p));
    } catch (const AllocError& e) {
      first = std::string("AllocError: ") + e.what();
    }
    try {
      second = printProgram(place(p));
    } catch (const AllocError& e) {
      second = std::string("AllocError: ") + e.what();
    }
    if (first != second) {
      saveRegression(std::string("nondeterministic_") + name, p,
                     std::string(name) + " placed the same program differently twice");
      RC_FAIL(std::string(name) + " is not deterministic:\n" + first + "---\n" + second);
    }
  }
}

// The program on a machine shrunk in one dimension: too big for it, usually. The well-formedness checker
// rejects it cleanly (InputError with a location), or each placer either throws AllocError with a message or
// returns an allocation that passes all three oracles. Placers also get the rejected programs: on any input
// they must fail cleanly, never crash.
RC_GTEST_PROP(Allocation, CapacityGuardsFailCleanly, ()) {
  Program p = *genTinyProgram();
  Arch& a = p.arch;
  switch (*rc::gen::inRange(0, 4)) {
    case 0: a.sbuf_bytes = *rc::gen::element<uint32_t>(64, 256, 1024, 2048); break;
    case 1: a.psum_banks = *rc::gen::inRange<uint32_t>(1, 4); break;
    case 2: a.sp_registers = *rc::gen::inRange<uint32_t>(1, 4); break;
    default: a.sbuf_partitions = *rc::gen::element<uint32_t>(1, 2, 4); break;
  }
  p = parseProgram(printProgram(p));  // as a user would hand it in: with source locations
  std::vector<Diagnostic> diags = checkProgram(p);
  if (!diags.empty()) {
    RC_ASSERT(diags.front().loc.known());
    RC_TAG("rejected by the checker");
  }
  for (auto [name, place] : kPlacers) {
    Program allocated;
    try {
      allocated = place(p);
    } catch (const AllocError& e) {
      RC_ASSERT(!std::string(e.what()).empty());
      RC_TAG(std::string(name) + ": AllocError");
      continue;
    } catch (const InputError& e) {
      RC_ASSERT(!e.diagnostics().empty());
      RC_TAG(std::string(name) + ": InputError");
      continue;
    } catch (const std::exception& e) {
      saveRegression(std::string("capacity_crash_") + name, p, e.what());
      RC_FAIL(std::string(name) + " threw " + e.what());
    }
    if (!diags.empty()) continue;  // placed a program the checker rejects: nothing the oracles may run
    requireCorrectAllocation(std::string("capacity_") + name, p, allocated, 1);
    RC_TAG(std::string(name) + ": fits");
  }
}

}  // namespace
}  // namespace allocsim
