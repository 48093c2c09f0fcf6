#include "verify/implements_input.h"

#include <algorithm>

#include "verify/program_ids.h"
#include "ir/print.h"
#include "verify/reference.h"

namespace allocsim {
namespace {

// A program as the recovery compares it: no placements, and no pinned marks (whether pinned placements are kept is
// the placement oracle's business, as in verify/original_match.h).
Program withoutPlacements(Program p) {
  for (Tensor& t : p.tensors) {
    t.placement.reset();
    t.pinned = false;
  }
  for (Register& r : p.registers) r.phys.reset();
  return p;
}

std::vector<const Instruction*> flatten(const Program& p) {
  std::vector<const Instruction*> out;
  forEachInstruction(p.body, [&](const Instruction& i) { out.push_back(&i); });
  return out;
}

std::string declText(const Program& p, const Tensor& t) {
  Program one;
  one.arch = p.arch;
  one.tensors.push_back(t);
  std::string text = printProgram(one);
  // The printed form is "arch ...\n<decl>\n": keep the declaration line.
  size_t nl = text.find('\n');
  text = nl == std::string::npos ? text : text.substr(nl + 1);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// A loop's or if's text says its header only; its body is compared instruction by instruction.
bool sameInstruction(const Instruction& a, const Instruction& b) {
  if (a.op == Op::Loop && b.op == Op::Loop)
    return a.rd == b.rd && a.lo == b.lo && a.hi == b.hi && a.step == b.step && a.rare->mask.c == b.rare->mask.c &&
           a.body.size() == b.body.size();
  if (a.op == Op::If && b.op == Op::If) return a.rare->mask == b.rare->mask && a.body.size() == b.body.size();
  return a == b;
}

// Declarations are matched by name, so an allocator may print them in another order.
std::optional<std::string> alignByName(const Program& want, Program& got) {
  std::vector<TensorId> tensor_to(got.tensors.size(), kNone);
  std::vector<RegId> register_to(got.registers.size(), kNone);
  for (TensorId t = 0; t < got.tensors.size(); ++t) {
    tensor_to[t] = want.findTensor(got.tensors[t].name);
    if (tensor_to[t] == kNone)
      return "tensor '" + got.tensors[t].name + "' is not in the input and not marked inserted (!spill, !reload, !copy)";
  }
  for (RegId r = 0; r < got.registers.size(); ++r) {
    register_to[r] = want.findRegister(got.registers[r].name);
    if (register_to[r] == kNone) return "register '" + got.registers[r].name + "' is not in the input";
  }
  for (const Tensor& t : want.tensors)
    if (got.findTensor(t.name) == kNone) return "the input's tensor '" + t.name + "' is missing";
  for (const Register& r : want.registers)
    if (got.findRegister(r.name) == kNone) return "the input's register '" + r.name + "' is missing";
  renumberDeclarations(got, tensor_to, register_to);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> inputMismatch(const Program& input, const Program& allocated) {
  const Program want = withoutPlacements(input);
  Program got = withoutPlacements(referenceProgram(allocated).program);
  if (!(want.arch == got.arch)) return "it is allocated for another machine (arch " + got.arch.name + ")";
  if (auto m = alignByName(want, got)) return m;
  for (size_t i = 0; i < std::max(want.tensors.size(), got.tensors.size()); ++i) {
    if (i >= got.tensors.size()) return "the input's tensor '" + want.tensors[i].name + "' is missing";
    if (i >= want.tensors.size()) return "tensor '" + got.tensors[i].name + "' is not in the input and not marked inserted";
    if (!(want.tensors[i] == got.tensors[i]))
      return "tensor declaration " + std::to_string(i + 1) + " is `" + declText(got, got.tensors[i]) +
             "`; the input has `" + declText(want, want.tensors[i]) + "`";
  }
  for (size_t i = 0; i < std::max(want.registers.size(), got.registers.size()); ++i) {
    if (i >= got.registers.size()) return "the input's register '" + want.registers[i].name + "' is missing";
    if (i >= want.registers.size()) return "register '" + got.registers[i].name + "' is not in the input";
    if (!(want.registers[i] == got.registers[i]))
      return "register " + std::to_string(i + 1) + " is '" + got.registers[i].name + "' (" +
             std::to_string(got.registers[i].width) + " bits); the input has '" + want.registers[i].name + "' (" +
             std::to_string(want.registers[i].width) + " bits)";
  }
  const auto w = flatten(want), g = flatten(got);
  for (size_t i = 0; i < std::max(w.size(), g.size()); ++i) {
    if (i >= g.size())
      return "the input's instruction " + std::to_string(i + 1) + " `" + printInstruction(want, *w[i]) + "` is missing";
    if (i >= w.size())
      return "instruction " + std::to_string(i + 1) + " `" + printInstruction(got, *g[i]) +
             "` is not in the input and not marked inserted";
    if (!sameInstruction(*w[i], *g[i]))
      return "instruction " + std::to_string(i + 1) + " is `" + printInstruction(got, *g[i]) + "`; the input has `" +
             printInstruction(want, *w[i]) + "`";
  }
  if (!(want == got)) return "it differs from the input";  // e.g. loop nesting with the same flattened order
  return std::nullopt;
}

}  // namespace allocsim
