// The checker's entry points and the bookkeeping its passes share (diagnostic sink, preorder nodes).
#include <algorithm>
#include <tuple>

#include "ir/check.h"
#include "ir/check_internal.h"

namespace allocsim {
namespace check {

DiagSink::DiagSink(size_t tensors, size_t registers, size_t nodes)
    : tensors_(tensors), registers_(registers), flagged_(tensors + registers + nodes + 1, false) {}

void DiagSink::report(size_t key, SourceLoc loc, std::string message) {
  if (flagged_[key] || full()) return;
  flagged_[key] = true;
  diags_.push_back({key, Diagnostic{loc, std::move(message)}});
}

std::vector<Diagnostic> DiagSink::sorted() const {
  std::vector<Entry> entries = diags_;
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return std::tie(x.diag.loc.line, x.diag.loc.col, x.key) < std::tie(y.diag.loc.line, y.diag.loc.col, y.key);
  });
  std::vector<Diagnostic> out;
  for (Entry& e : entries) out.push_back(std::move(e.diag));
  return out;
}

// Iterative, so that an absurdly deep nest of loops cannot overflow the stack here.
std::vector<Node> flatten(const Program& p) {
  struct Frame {
    const std::vector<Instruction>* body;
    size_t next;
    uint32_t owner;  // the loop or if whose body this is, kNone for the program
    uint32_t loop;   // the innermost enclosing loop
  };
  std::vector<Node> nodes;
  std::vector<Frame> stack{{&p.body, 0, kNone, kNone}};
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.body->size()) {
      if (top.owner != kNone) nodes[top.owner].end = uint32_t(nodes.size());
      stack.pop_back();
      continue;
    }
    const Instruction* inst = &(*top.body)[top.next++];
    uint32_t index = uint32_t(nodes.size());
    nodes.push_back({inst, index + 1, top.loop, uint32_t(stack.size() - 1)});
    if (hasBody(inst->op)) stack.push_back({&inst->body, 0, index, inst->op == Op::Loop ? index : top.loop});
  }
  return nodes;
}

}  // namespace check

std::vector<Diagnostic> checkProgram(const Program& p, const CheckOptions& opts) {
  std::vector<check::Node> nodes = check::flatten(p);
  check::DiagSink sink(p.tensors.size(), p.registers.size(), nodes.size());
  std::string archError = validateArch(p.arch);
  if (!archError.empty()) {
    sink.report(sink.programKey(), SourceLoc{}, "invalid machine description: " + archError);
    return sink.sorted();
  }
  bool declarationsUsable = check::checkDeclarations(p, sink);
  bool instructionsUsable = check::checkInstructions(p, nodes, sink);
  // The abstract execution needs sane sizes (it allocates per-element bits) and valid references.
  if (declarationsUsable && instructionsUsable && !sink.full()) check::traceProgram(p, nodes, sink, opts);
  return sink.sorted();
}

void requireWellFormed(const Program& p, const CheckOptions& opts) {
  std::vector<Diagnostic> diags = checkProgram(p, opts);
  if (!diags.empty()) throw InputError(std::move(diags));
}

}  // namespace allocsim
