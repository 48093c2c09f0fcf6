// Properties of the graph-coloring allocators through the optlevel driver: on generated programs
// under pressure (spills happen), every allocation at O1/O2/O3/O6 is well-formed and passes all three oracles
// (no overlap of live items, equivalence, value flow), re-allocating the result at O7 reproduces it, the same
// input gives byte-identical output, and the capacity guards give their seed diagnostics. A failing case is
// saved to corpus/regressions/.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/check.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "props/require_correct.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// The real tiny machine, 4 SP registers included: the REG colorer spills registers (props/reg_props.cpp).
rc::Gen<Program> genPressuredProgram() { return genProgramOn(*archPreset("tiny"), 30); }

int genOptlevel() { return *rc::gen::element(1, 2, 3, 6); }

DriverResult allocateOrDiscard(const Program& p, int optlevel) {
  DriverOptions o;
  o.optlevel = optlevel;
  try {
    return allocate(p, o);
  } catch (const AllocError&) {
    RC_DISCARD("allocation impossible");
  }
}

// What allocating `p` at `level` throws, an allocation error or a rejection of the input; "" when it allocates.
std::string refusalAt(const Program& p, int level) {
  DriverOptions o;
  o.optlevel = level;
  try {
    allocate(p, o);
  } catch (const AllocError& e) {
    return e.what();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RC_GTEST_PROP(Coloring, AllocationsAreWellFormedAndPassAllOracles, ()) {
  const Program p = *genPressuredProgram();
  const int level = genOptlevel();
  DriverResult r = allocateOrDiscard(p, level);
  const std::string name = "coloring_O" + std::to_string(level);
  requireCorrectAllocation(name + "_finding", p, r.program, *rc::gen::inRange<uint64_t>(1, UINT64_MAX));
  tagTensorSpills(r.program);
}

RC_GTEST_PROP(Coloring, FixedAssignmentReproducesAnAllocation, ()) {
  const Program p = *genPressuredProgram();
  DriverResult r = allocateOrDiscard(p, genOptlevel());
  requireFixedAssignmentReproduces("coloring_O7_rejects", p, r.program);
}

RC_GTEST_PROP(Coloring, AllocationIsDeterministic, ()) {
  const Program p = *genPressuredProgram();
  const int level = genOptlevel();
  auto run = [&] {
    DriverOptions o;
    o.optlevel = level;
    try {
      return printProgram(allocate(p, o).program);
    } catch (const AllocError& e) {
      return std::string("AllocError: ") + e.what();
    }
  };
  RC_ASSERT(run() == run());
}

// A PSUM tensor wider than the machine's PSUM: the production allocator's capacity guard, verbatim, at every coloring
// optlevel.
RC_GTEST_PROP(Coloring, PsumCapacityGuardQuotesTheProductionAllocator, ()) {
  Arch arch = *archPreset("tiny");
  const uint32_t banks = *rc::gen::inRange<uint32_t>(arch.psum_banks + 1, 4 * arch.psum_banks);
  Program p;
  p.arch = arch;
  Tensor t;
  t.name = "acc";
  t.space = Space::Psum;
  t.partitions = *rc::gen::inRange<uint32_t>(1, arch.sbuf_partitions + 1);
  t.elements = banks * arch.psum_bank_bytes / 4;
  t.dtype = DType::F32;
  p.tensors.push_back(t);
  const std::string message = refusalAt(p, genOptlevel());
  RC_ASSERT(message.find("acc is too big for PSUM, requires " + std::to_string(banks) +
                         " banks with PSUM size " + std::to_string(arch.psum_banks)) != std::string::npos);
}

// An SBUF tensor wider than a partition: a clean error naming the tensor and its demand against the capacity.
RC_GTEST_PROP(Coloring, SbufCapacityGuardNamesTheTensorAndDemand, ()) {
  Arch arch = *archPreset("tiny");
  const uint32_t elements = *rc::gen::inRange<uint32_t>(arch.sbuf_bytes / 4 + 1, 4 * arch.sbuf_bytes / 4);
  Program p;
  p.arch = arch;
  Tensor t;
  t.name = "wide";
  t.partitions = *rc::gen::inRange<uint32_t>(1, arch.sbuf_partitions + 1);
  t.elements = elements;
  t.dtype = DType::F32;
  p.tensors.push_back(t);
  const std::string message = refusalAt(p, genOptlevel());
  RC_ASSERT(message == "sbuf tensor 'wide' needs " + std::to_string(uint64_t(elements) * 4) +
                           " bytes per partition; SBUF has " + std::to_string(arch.sbuf_bytes));
}

}  // namespace
}  // namespace allocsim
