// Properties of the linear-scan allocator (alloc/lsa/lsa_allocator.h) through the driver at O8 and -O6
// --allocator lsa, on generated programs under pressure on the tiny machine: every allocation is well-formed and
// passes all three oracles; the same input gives byte-identical output; and a refusal is allowed only where the
// allocator may refuse — a program that fits without any reuse (the sum of all its SBUF widths fits a partition,
// the sum of all its PSUM banks fits PSUM, the lanes of all its registers fit the SP file) is always placed, and
// without a spill. (Why that bound suffices for
// best fit with lower-left corners: every placement that reaches beyond the highest byte used so far starts at
// or below it, so the untouched bytes above it stay one free block of at least the remaining demand.)
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_bank_model.h"
#include "ir/check.h"
#include "ir/print.h"
#include "props/rc_program.h"
#include "props/regression_file.h"
#include "props/require_correct.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// The real tiny machine, its 4 SP registers included (the REG colorer spills registers).
Arch pressuredArch() { return *archPreset("tiny"); }

DriverOptions lsaAt(int optlevel) {
  DriverOptions o;
  o.optlevel = optlevel;
  if (optlevel == 6) o.allocator = "lsa";
  return o;
}

int genLevel() { return *rc::gen::element(6, 8); }

RC_GTEST_PROP(LinearScan, AllocationsAreWellFormedAndPassAllOracles, ()) {
  const Program p = *genProgramOn(pressuredArch(), 30);
  const int level = genLevel();
  DriverResult r;
  try {
    r = allocate(p, lsaAt(level));
  } catch (const AllocError&) {
    RC_DISCARD("allocation impossible");
  }
  const std::string name = "lsa_O" + std::to_string(level);
  requireCorrectAllocation(name + "_finding", p, r.program, *rc::gen::inRange<uint64_t>(1, UINT64_MAX));
  tagTensorSpills(r.program);
}

RC_GTEST_PROP(LinearScan, AllocationIsDeterministic, ()) {
  const Program p = *genProgramOn(pressuredArch(), 30);
  const int level = genLevel();
  auto run = [&]() -> std::pair<std::string, std::vector<StepStats>> {
    try {
      DriverResult r = allocate(p, lsaAt(level));
      return {printProgram(r.program), r.steps};
    } catch (const AllocError& e) {
      return {std::string("AllocError: ") + e.what(), {}};
    }
  };
  RC_ASSERT(run() == run());
}

RC_GTEST_PROP(LinearScan, NeverRefusesNorSpillsWhatFitsWithoutReuse, ()) {
  Arch arch = pressuredArch();
  arch.sbuf_bytes = *rc::gen::element<uint32_t>(4096, 16384, 65536);
  arch.psum_banks = *rc::gen::element<uint32_t>(4, 8, 16);
  arch.sp_registers = 64;  // the property is about SBUF and PSUM; registers must merely not be the limit
  const Program p = *genProgramOn(arch, 20);
  uint64_t widths = 0, banks = 0;
  const uint64_t align = std::max<uint32_t>(arch.sbuf_align, 1);
  for (const Tensor& t : p.tensors) {
    if (t.space == Space::Sbuf) widths += (t.bytesPerPartition() + align - 1) / align * align;
    if (t.space == Space::Psum) banks += psumBanksOf(arch, t);
  }
  // Registers too: the REG colorer runs at these levels, and lowest-free-run placement never fails when the
  // lanes of all registers fit the SP file (each register starts below the lanes placed before it).
  uint64_t lanes = 0;
  for (const Register& reg : p.registers) lanes += reg.lanes();
  RC_PRE(widths <= arch.sbuf_bytes && banks <= arch.psum_banks && lanes <= arch.sp_registers);
  const int level = genLevel();
  DriverResult r;
  try {
    r = allocate(p, lsaAt(level));
  } catch (const AllocError& e) {
    saveRegression("lsa_refused_fitting_program", p, e.what());
    RC_FAIL(std::string("refused a program that fits without reuse: ") + e.what());
  }
  // No spill code: a tensor per value of a reused one (Origin::Copy, alloc/value_split.h) is not a spill.
  for (const Tensor& t : r.program.tensors) RC_ASSERT(t.origin == Origin::Source || t.origin == Origin::Copy);
  const LsaStats& lsa = std::get<LsaStats>(r.steps.at(0));
  RC_ASSERT(lsa.sbuf.spilled == 0u);
  RC_ASSERT(lsa.psum.spilled == 0u);
  RC_CLASSIFY(p.tensors.size() >= 8, "8+ tensors");
}

}  // namespace
}  // namespace allocsim
