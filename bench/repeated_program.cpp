#include "bench/repeated_program.h"

#include <exception>
#include <string>
#include <utility>

#include "alloc/driver.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

struct Shift {
  TensorId tensors = 0;
  RegId registers = 0;
};

TensorId shifted(TensorId t, const Shift& s) { return t == kNone ? t : t + s.tensors; }
RegId shiftedReg(RegId r, const Shift& s) { return r == kNone ? r : r + s.registers; }

void shiftView(AccessPattern& ap, const Shift& s) {
  ap.tensor = shifted(ap.tensor, s);
  for (Index* ix : {&ap.partition, &ap.offset, ap.tile ? &*ap.tile : nullptr})  // the tile: `q{i}[...]`
    if (ix)
      for (IndexTerm& t : ix->terms) t.reg = shiftedReg(t.reg, s);  // same order: every id moves by the same amount
}

void shiftBody(std::vector<Instruction>& body, const Shift& s) {
  for (Instruction& inst : body) {
    for (AccessPattern* ap : storedViews(inst))
      if (ap) shiftView(*ap, s);  // null: an operand left at its default, which names nothing
    inst.scalar.reg = shiftedReg(inst.scalar.reg, s);
    if (RareOperands* r = inst.rare.ifStored()) {
      for (ScalarOperand* sc : {&r->scalar2, &r->scale, &r->bias}) sc->reg = shiftedReg(sc->reg, s);
      for (IndexTerm& t : r->mask.c.terms) t.reg = shiftedReg(t.reg, s);  // affine_select's offset c
    }
    inst.rd = shiftedReg(inst.rd, s);
    inst.rs = shiftedReg(inst.rs, s);
    inst.rt = shiftedReg(inst.rt, s);
    shiftBody(inst.body, s);
  }
}

}  // namespace

Program repeatProgram(const Program& p, uint32_t copies) {
  Program out;
  out.arch = p.arch;
  for (uint32_t k = 0; k < copies; ++k) {
    const Shift s{TensorId(out.tensors.size()), RegId(out.registers.size())};
    const std::string suffix = "_" + std::to_string(k);
    for (Tensor t : p.tensors) {
      t.name += suffix;
      t.copy_of = shifted(t.copy_of, s);
      out.tensors.push_back(std::move(t));
    }
    for (Register r : p.registers) {
      r.name += suffix;
      r.copy_of = shiftedReg(r.copy_of, s);
      out.registers.push_back(std::move(r));
    }
    std::vector<Instruction> body = p.body;
    shiftBody(body, s);
    for (Instruction& inst : body) out.body.push_back(std::move(inst));
  }
  out.renumber();
  return out;
}

uint64_t instructionCount(const Program& p) {
  uint64_t n = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  return n;
}

Program smallAllocatedProgram(uint64_t seed, Program* original) {
  for (;; ++seed) {
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.size = 30;
    o.pressure = 200;  // spills and reloads: the oracles follow values through inserted instructions
    SeededChoices choices(seed);
    Program p = generateProgram(choices, o);
    DriverOptions d;
    d.optlevel = 2;
    try {
      Program allocated = allocate(p, d).program;
      CorrectnessOptions c;
      c.input = &p;
      c.verify.poison_seed = 1;
      if (checkAllocation(allocated, c).ok()) {
        if (original) *original = std::move(p);
        return allocated;
      }
    } catch (const std::exception&) {
      // this seed does not allocate on the tiny machine: try the next
    }
  }
}

Program scaledAllocatedProgram(uint64_t instructions, Program* original) {
  static Program base_original;
  static const Program base = smallAllocatedProgram(1, &base_original);
  const uint64_t per_copy = instructionCount(base);
  const uint32_t copies = uint32_t(std::max<uint64_t>(1, (instructions + per_copy / 2) / per_copy));
  Program p = repeatProgram(base, copies);
  p.arch.dram_limit = uint64_t(1) << 34;  // the copies' inputs and outputs together; the largest limit there is
  if (original) {
    *original = repeatProgram(base_original, copies);
    original->arch.dram_limit = p.arch.dram_limit;
  }
  return p;
}

}  // namespace allocsim
