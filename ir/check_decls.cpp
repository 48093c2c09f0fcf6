// Declaration rules (docs/format.md "Well-formedness", Declarations): sizes fit the machine, flags and
// placements make sense for the tensor's space, registers are 32 or 64 bits.
#include "ir/check_internal.h"

namespace allocsim::check {
namespace {

// The first rule a declaration breaks. Size problems block the abstract execution, which allocates per
// element; flag and placement problems do not.
struct Problem {
  std::string message;
  bool blocksExecution = false;
};

Problem sizeProblem(std::string message) { return {std::move(message), true}; }
Problem otherProblem(std::string message) { return {std::move(message), false}; }

Problem placementProblem(const Arch& arch, const Tensor& t) {
  const Placement& pl = *t.placement;
  const std::string name = quoted(t.name);
  const uint64_t bpp = t.bytesPerPartition();
  switch (t.space) {
    case Space::Sbuf:
      if (Int(pl.partition) + t.partitions > Int(arch.sbuf_partitions) || Int(pl.offset) + bpp > Int(arch.sbuf_bytes))
        return otherProblem("placement @p" + std::to_string(pl.partition) + "+" + std::to_string(pl.offset) + " of " +
                            name + " " + shapeText(t.partitions, t.elements) + " (" + std::to_string(bpp) +
                            " bytes per partition) exceeds SBUF (" + std::to_string(arch.sbuf_partitions) +
                            " partitions, " + std::to_string(arch.sbuf_bytes) + " bytes)");
      break;
    case Space::Psum:
      if (Int(pl.bank) + psumBankCount(arch, t) > Int(arch.psum_banks))
        return otherProblem("placement @bank" + std::to_string(pl.bank) + " of " + name + " (" +
                            std::to_string(psumBankCount(arch, t)) + " banks) exceeds PSUM (" +
                            std::to_string(arch.psum_banks) + " banks)");
      break;
    case Space::Dram:
      if (Int(pl.offset) + Int(t.totalBytes()) > Int(arch.dram_limit))
        return otherProblem("placement @" + std::to_string(pl.offset) + " of " + name + " (" +
                            std::to_string(t.totalBytes()) + " bytes) exceeds dram-limit " +
                            std::to_string(arch.dram_limit));
      break;
  }
  return {};
}

Problem tensorProblem(const Arch& arch, const Tensor& t) {
  const std::string name = quoted(t.name);
  const std::string space = spaceName(t.space);
  if (t.partitions < 1 || t.elements < 1)
    return sizeProblem("tensor " + name + " has shape " + shapeText(t.partitions, t.elements) +
                       "; both dimensions must be >= 1");
  const uint64_t bpp = t.bytesPerPartition();
  if (t.space != Space::Dram && t.partitions > arch.sbuf_partitions)
    return sizeProblem(space + " tensor " + name + " has " + std::to_string(t.partitions) +
                       " partitions; the machine has " + std::to_string(arch.sbuf_partitions));
  if (t.space == Space::Sbuf && bpp > arch.sbuf_bytes)
    return sizeProblem("sbuf tensor " + name + " needs " + std::to_string(bpp) + " bytes per partition; SBUF has " +
                       std::to_string(arch.sbuf_bytes));
  if (t.space == Space::Psum) {
    if (dtypeSize(t.dtype) != 4)
      return otherProblem("psum tensor " + name + " has dtype " + dtypeName(t.dtype) +
                          "; PSUM holds f32, i32 or u32");
    if (psumBankCount(arch, t) > arch.psum_banks)  // the production allocator's capacity guard, verbatim
      return sizeProblem(t.name + " is too big for PSUM, requires " + std::to_string(psumBankCount(arch, t)) +
                         " banks with PSUM size " + std::to_string(arch.psum_banks));
  }
  if ((t.input || t.output) && t.space != Space::Dram)
    return otherProblem("tensor " + name + " is marked " + (t.input ? "input" : "output") + " but is in " + space +
                        "; inputs and outputs live in DRAM");
  if (t.pinned && !t.placement) return otherProblem("pinned tensor " + name + " has no placement");
  if (t.placement) return placementProblem(arch, t);
  return {};
}

Problem registerProblem(const Arch& arch, const Register& r) {
  if (r.width != 32 && r.width != 64)
    return sizeProblem("register " + quoted(r.name) + " has width " + std::to_string(r.width) +
                       "; it must be 32 or 64");
  if (r.phys && uint64_t(*r.phys) + r.lanes() > arch.sp_registers)
    return otherProblem("placement @r" + std::to_string(*r.phys) + " of register " + quoted(r.name) + " (" +
                        std::to_string(r.lanes()) + (r.lanes() == 1 ? " lane" : " lanes") + ") exceeds the " +
                        std::to_string(arch.sp_registers) + " SP registers");
  return {};
}

}  // namespace

bool checkDeclarations(const Program& p, DiagSink& sink) {
  bool usable = true;
  Int dramBytes = 0;  // shapes are < 2^32 each, so the sum cannot overflow 128 bits
  bool dramReported = false;
  for (TensorId i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    Problem problem = tensorProblem(p.arch, t);
    if (t.space == Space::Dram) {
      dramBytes += Int(t.partitions) * t.elements * dtypeSize(t.dtype);
      if (dramBytes > Int(p.arch.dram_limit) && !dramReported && problem.message.empty()) {
        dramReported = true;
        problem = sizeProblem("DRAM tensors need " + intText(dramBytes) + " bytes in total (through " +
                              quoted(t.name) + "); dram-limit is " + std::to_string(p.arch.dram_limit));
      }
    }
    if (problem.message.empty()) continue;
    usable = usable && !problem.blocksExecution;
    sink.report(sink.tensorKey(i), t.loc, problem.message);
  }
  // A total that goes over the limit at a tensor with its own problem still blocks the execution.
  if (dramBytes > Int(p.arch.dram_limit)) usable = false;
  for (RegId i = 0; i < p.registers.size(); ++i) {
    Problem problem = registerProblem(p.arch, p.registers[i]);
    if (problem.message.empty()) continue;
    usable = usable && !problem.blocksExecution;
    sink.report(sink.registerKey(i), p.registers[i].loc, problem.message);
  }
  return usable;
}

}  // namespace allocsim::check
