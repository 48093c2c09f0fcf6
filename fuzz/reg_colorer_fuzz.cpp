// Fuzz target for the REG colorer (alloc/reg/, the production allocator's REG_Allocator) on the real tiny register
// file: bytes -> well-formed tiny program -> allocate at O0 (no reuse: REG does all the interesting work) or O1
// (chosen by the input) with 2, 3 or 4 SP registers -> well-formedness + the three oracles. At O0 the program runs on
// a machine with 3x tiny's SBUF and 2x its PSUM banks, so that memory rarely ends a case (3x and not 4x: see
// fuzz/psum_colorer_fuzz.cpp); at O1 on tiny itself, where the generator's pressure makes the SBUF colorer spill. The
// REG FATAL is a legal outcome only when the allocator-independent bound (verify/register_demand.h: some instruction
// names more lanes than the machine has; loop registers can spill) says nothing fits; any other AllocError must be
// about memory.
#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "fuzz/fuzz_program.h"
#include "verify/register_demand.h"

using namespace allocsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ExecutionHeap heap;  // first: it spans the whole execution, as libFuzzer's leak check does
  static const Arch roomy = fuzz::fuzzArch({{"sbuf-bytes", "12288"}, {"psum-banks", "8"}});
  fuzz::FuzzProgram in;
  if (!fuzz::decodeNewCase(data, size, in)) return 0;  // a repeat of a case this process ran
  const ReportsOff quiet(!in.reports());  // no report is read here (fuzz/fuzz_program.h)
  DriverOptions o;
  // O1: the SBUF colorer's one heuristic, not O2's best of seven (coloring_driver's business): REG sees colored,
  // spilled programs either way, at 1.33x the executions per CPU second.
  o.optlevel = (in.knob / 4) % 2 == 0 ? 0 : 1;
  // Programs are generated for tiny and O0's run on the roomy machine (fuzz::runOn). Generated for the roomy one,
  // as before, the tensors were 3x larger, and with them the oracles' work per element, which REG does not depend
  // on; O1 keeps tiny, so that its pressure against the SBUF (and the spills REG then sees) is what the roomy
  // machine's was.
  if (o.optlevel == 0) fuzz::runOn(in, roomy);
  static const uint32_t kRegisters[] = {4, 4, 3, 2};
  in.program.arch.sp_registers = kRegisters[in.knob % 4];
  // The SBUF colorer's exact packing candidate (coloring_driver's business too) on one input in four: it was a third
  // of this target's CPU time, and REG sees colored, spilled programs without it.
  o.sbuf_packing = (in.knob / 8) % 4 == 0;
  // At O1, any of the 16 SBUF heuristics (and 4 PSUM orders) on half of the inputs (FuzzProgram::sbufHeuristic),
  // not only O1's one: the spills REG sees differ with the heuristic, and the cost is the same.
  if (o.optlevel == 1 && (o.sbuf_heuristic = in.sbufHeuristic())) o.psum_heuristic = in.psumHeuristic();
  DriverResult r;
  try {
    r = allocate(in.program, o);
  } catch (const AllocError& e) {
    const std::string what = e.what();
    if (what.rfind("cannot allocate registers since spilling candidates are not enough", 0) != 0) return 0;
    const RegisterDemand d = registerDemand(in.program);
    if (d.confined && d.unavoidable_lanes <= in.program.arch.sp_registers)
      fuzz::reportBug("reg_colorer", "REG refused a program whose every instruction's registers fit", in.program,
                      nullptr, what + "\n(bound " + std::to_string(d.unavoidable_lanes) + " lanes)");
    return 0;
  }
  fuzz::requireCorrect("reg_colorer", in.program, r.program, in.poison_seed);
  return 0;
}
