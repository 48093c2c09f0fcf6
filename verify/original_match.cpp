#include "verify/original_match.h"

#include <optional>
#include <string>

#include "ir/print.h"

namespace allocsim {
namespace {

std::string at(const SourceLoc& loc) {
  return loc.known() ? "line " + std::to_string(loc.line) + ":" + std::to_string(loc.col) : "(no line)";
}

// An instruction with what the comparison ignores cleared: where it was written, its id, its origin, its body
// (compared instruction by instruction; its length is kept so that the loop structure is compared too).
struct Shape {
  Instruction inst;
  size_t body = 0;
  bool operator==(const Shape&) const = default;
};

void clearLoc(AccessPattern& ap) { ap.loc = {}; }

Shape shapeOf(const Instruction& i) {
  Shape s{withoutBody(i), i.body.size()};
  s.inst.loc = {};
  s.inst.id = 0;
  s.inst.origin = Origin::Source;
  for (AccessPattern* ap : {&s.inst.dst, &s.inst.a, &s.inst.b, s.inst.scalar.ap.ifStored()})
    if (ap) clearLoc(*ap);  // null: an operand left at its default, which has no locations
  if (RareOperands* r = s.inst.rare.ifStored())
    for (AccessPattern* ap : {r->scalar2.ap.ifStored(), r->scale.ap.ifStored(), r->bias.ap.ifStored(), &r->reduce_dst})
      if (ap) clearLoc(*ap);
  return s;
}

std::vector<const Instruction*> preorder(const Program& p) {
  std::vector<const Instruction*> out;
  forEachInstruction(p.body, [&](const Instruction& i) { out.push_back(&i); });
  return out;
}

std::string tensorText(const Tensor& t) {
  std::string s = std::string(spaceName(t.space)) + " " + t.name + " [" + std::to_string(t.partitions) + ", " +
                  std::to_string(t.elements) + "] " + dtypeName(t.dtype);
  if (t.input) s += " input";
  if (t.output) s += " output";
  return s;
}

bool sameDecl(const Tensor& a, const Tensor& b) {
  return a.name == b.name && a.space == b.space && a.partitions == b.partitions && a.elements == b.elements &&
         a.dtype == b.dtype && a.input == b.input && a.output == b.output;  // pinned: the placement oracle's
}

Finding mismatch(SourceLoc loc, uint32_t id, std::string message, std::vector<std::string> notes) {
  Finding f;
  f.oracle = Oracle::Equivalence;
  f.kind = FindingKind::OriginalMismatch;
  f.loc = loc;
  f.inst_id = id;
  f.message = std::move(message);
  f.notes = std::move(notes);
  return f;
}

}  // namespace

std::vector<Finding> matchOriginal(const Program& allocated, const ReferenceProgram& recovered,
                                   const Program& original) {
  const Program& r = recovered.program;
  // The machine: an allocation for a larger SBUF (or other latencies, banks, registers) is not one for this one.
  if (allocated.arch != original.arch) {
    auto archText = [](const Arch& a) {
      Program only;
      only.arch = a;
      std::string text = printProgram(only);
      while (!text.empty() && text.back() == '\n') text.pop_back();
      for (char& c : text)
        if (c == '\n') c = ' ';
      return "`" + text + "`";
    };
    return {mismatch(SourceLoc{1, 1}, kNone,
                     "the allocated program is for another machine: " + archText(allocated.arch) +
                         " where the original has " + archText(original.arch),
                     {})};
  }
  // Declarations: the source tensors and registers, in order.
  size_t nt = std::max(r.tensors.size(), original.tensors.size());
  for (size_t t = 0; t < nt; ++t) {
    const Tensor* a = t < r.tensors.size() ? &r.tensors[t] : nullptr;
    const Tensor* b = t < original.tensors.size() ? &original.tensors[t] : nullptr;
    if (a && b && sameDecl(*a, *b)) continue;
    std::string mine = a ? "`" + tensorText(*a) + "` (" + at(a->loc) + ")" : "no tensor";
    std::string theirs = b ? "`" + tensorText(*b) + "` (original " + at(b->loc) + ")" : "no tensor";
    return {mismatch(a ? a->loc : SourceLoc{}, kNone,
                     "the recovered program does not declare the original's tensors: tensor #" + std::to_string(t) +
                         " is " + mine + " where the original has " + theirs,
                     {})};
  }
  size_t nr = std::max(r.registers.size(), original.registers.size());
  for (size_t i = 0; i < nr; ++i) {
    const Register* a = i < r.registers.size() ? &r.registers[i] : nullptr;
    const Register* b = i < original.registers.size() ? &original.registers[i] : nullptr;
    if (a && b && a->name == b->name && a->width == b->width) continue;
    auto text = [](const Register* x) {
      return x ? "`reg " + x->name + " " + std::to_string(x->width) + "`" : std::string("no register");
    };
    return {mismatch(a ? a->loc : SourceLoc{}, kNone,
                     "the recovered program does not declare the original's registers: register #" +
                         std::to_string(i) + " is " + text(a) + " where the original has " + text(b),
                     {})};
  }
  // Instructions, in preorder with each loop's body length. The recovered side is read off the allocated program's
  // original instructions (names mapped as the recovered program has them, referenceInstruction): `recovered` may
  // hold no copy of the instructions (ReferenceBody::None), which a million-instruction program cannot afford twice.
  struct Mine {
    const Instruction* source;  // the allocated instruction
    size_t body = 0;            // for a loop: its original instructions (the recovered loop's body length)
  };
  std::vector<Mine> mine;
  auto walk = [&](auto&& self, const std::vector<Instruction>& body) -> size_t {
    size_t originals = 0;
    for (const Instruction& i : body) {
      if (i.origin != Origin::Source) continue;  // an inserted loop holds only inserted instructions (referenceProgram)
      ++originals;
      const size_t at = mine.size();
      mine.push_back({&i, 0});
      if (hasBody(i.op)) mine[at].body = self(self, i.body);
    }
    return originals;
  };
  walk(walk, allocated.body);
  std::vector<const Instruction*> theirs = preorder(original);
  for (size_t k = 0; k < std::max(mine.size(), theirs.size()); ++k) {
    std::optional<Instruction> a;
    if (k < mine.size()) a = referenceInstruction(allocated, recovered, *mine[k].source);
    const Instruction* b = k < theirs.size() ? theirs[k] : nullptr;
    if (a && b && Shape{shapeOf(*a).inst, mine[k].body} == shapeOf(*b)) continue;
    const Instruction* where = a ? mine[k].source : nullptr;
    std::string mine_text = a ? "`" + printInstruction(r, *a) + "`" : "the end of the program";
    std::string theirs_text =
        b ? "`" + printInstruction(original, *b) + "` (original " + at(b->loc) + ")" : "the end of the program";
    std::string msg = "original instruction #" + std::to_string(k + 1) + " of the recovered program is " + mine_text +
                      " where the original has " + theirs_text;
    std::vector<std::string> notes = {
        "the recovered program is the allocated one without its inserted (!spill / !reload / !copy) items; it has " +
        std::to_string(mine.size()) + " instructions, the original " + std::to_string(theirs.size())};
    if (a && b && hasBody(a->op) && a->op == b->op && mine[k].body != b->body.size())
      notes.push_back(std::string(a->op == Op::Loop ? "the loops'" : "the ifs'") + " bodies differ in length: " + std::to_string(mine[k].body) + " and " +
                      std::to_string(b->body.size()));
    if (!where && !allocated.body.empty()) {
      // Past the recovered program's end: point at the allocated program's last instruction.
      const Instruction* last = nullptr;
      forEachInstruction(allocated.body, [&](const Instruction& i) { last = &i; });
      where = last;
    }
    return {mismatch(where ? where->loc : SourceLoc{}, where ? where->id : kNone, msg, std::move(notes))};
  }
  return {};
}

}  // namespace allocsim
