#include "alloc/linear_order.h"

#include <algorithm>

#include "alloc/conditional_runs.h"

namespace allocsim {

uint64_t loopTrips(const Instruction& loop) {
  if (loop.step <= 0 || loop.lo >= loop.hi) return 0;
  // In unsigned arithmetic: hi - lo may exceed INT64_MAX in a malformed program.
  uint64_t span = uint64_t(loop.hi) - uint64_t(loop.lo);
  uint64_t step = uint64_t(loop.step);
  return span / step + (span % step != 0);
}

std::vector<int32_t> LinearOrder::nest(uint32_t pos) const {
  std::vector<int32_t> chain;
  nest(pos, chain);
  return chain;
}

void LinearOrder::nest(uint32_t pos, std::vector<int32_t>& chain) const {
  chain.clear();
  if (pos >= positions.size()) return;
  for (int32_t l = positions[pos].loop; l >= 0; l = loops[size_t(l)].parent) chain.push_back(l);
  std::reverse(chain.begin(), chain.end());
}

int32_t LinearOrder::childIn(uint32_t pos, int32_t loop) const {
  if (pos >= positions.size()) return -1;
  int32_t l = positions[pos].loop;
  while (l >= 0 && loops[size_t(l)].parent != loop) l = loops[size_t(l)].parent;
  return l == loop ? -1 : l;
}

namespace {

// Instructions and loops of a body, nested ones included (iteratively, as linearize); `conditional`: whether an `if`
// or a register-bounded loop is among them.
void countBody(const std::vector<Instruction>& body, size_t& instructions, size_t& loops, bool& conditional) {
  thread_local std::vector<const std::vector<Instruction>*> todo;  // scratch, as linearize's stack
  todo.assign(1, &body);
  while (!todo.empty()) {
    const std::vector<Instruction>* b = todo.back();
    todo.pop_back();
    instructions += b->size();
    for (const Instruction& inst : *b) {
      if (inst.op == Op::Loop) ++loops;
      conditional = conditional || inst.op == Op::If || hasRegisterBound(inst);
      if (hasBody(inst.op)) todo.push_back(&inst.body);
    }
  }
}

}  // namespace

LinearOrder linearize(const Program& p) {
  LinearOrder order;
  // Sized once: every allocator computes the order at least once per round, and growing it one position at a time
  // was a heap allocation per doubling (each one an ASan stack trace in the fuzz targets).
  size_t instructions = 0, loops = 0;
  bool conditional_code = false;
  countBody(p.body, instructions, loops, conditional_code);
  // Conditional bodies that never run (alloc/conditional_runs.h): their positions do not execute.
  const std::unordered_set<const Instruction*> never =
      conditional_code ? neverRunBodies(p) : std::unordered_set<const Instruction*>{};
  order.positions.reserve(instructions + loops + 2);  // a loop: its header (an instruction) and its end
  order.loops.reserve(loops);
  order.positions.push_back({LinearPosition::Kind::Start, nullptr, -1, true, false});
  struct Frame {
    const std::vector<Instruction>* body;
    size_t next;
    int32_t loop;      // the innermost loop around this body, -1 for none
    bool is_if;        // the body of an if (it belongs to the enclosing loop's iteration)
    bool conditional;  // inside an if's body, at any depth
    bool runs;         // the body executes at all
  };
  // The thread's scratch: the order is computed several times per allocation.
  thread_local std::vector<Frame> stack;
  stack.assign(1, {&p.body, 0, -1, false, false, true});
  while (!stack.empty()) {
    Frame& top = stack.back();
    int32_t loop = top.loop;
    const bool conditional = top.conditional;
    const bool runs = top.runs;
    if (top.next == top.body->size()) {
      const bool is_if = top.is_if;
      stack.pop_back();
      if (loop >= 0 && !is_if) {
        LinearLoop& l = order.loops[size_t(loop)];
        l.end = uint32_t(order.positions.size());
        // The loop's end runs where its header does: in the body around it.
        const bool outer_runs = stack.empty() ? false : stack.back().runs;
        order.positions.push_back(
            {LinearPosition::Kind::LoopEnd, l.inst, l.parent, outer_runs, stack.empty() ? false : stack.back().conditional});
      }
      continue;
    }
    const Instruction& inst = (*top.body)[top.next++];
    if (inst.op != Op::Loop) {
      order.positions.push_back({LinearPosition::Kind::Instruction, &inst, loop, runs, conditional});
      if (inst.op == Op::If)  // `top` is invalid from here on
        stack.push_back({&inst.body, 0, loop, true, true, runs && !never.count(&inst)});
      continue;
    }
    LinearLoop l;
    l.inst = &inst;
    l.header = uint32_t(order.positions.size());
    l.parent = loop;
    l.depth = loop < 0 ? 1 : order.loops[size_t(loop)].depth + 1;
    l.trips = loopTrips(inst);
    l.body_runs = runs && l.trips > 0 && !never.count(&inst);
    order.positions.push_back({LinearPosition::Kind::LoopHeader, &inst, loop, runs, conditional});
    int32_t index = int32_t(order.loops.size());
    order.loops.push_back(l);
    // A loop with a register bound runs fewer iterations than hi says on some entries (none on some): its body is
    // conditional, as an if's.
    const bool bounded = hasRegisterBound(inst);
    stack.push_back({&inst.body, 0, index, false, conditional || bounded, l.body_runs});  // `top` is invalid from here on
  }
  order.positions.push_back({LinearPosition::Kind::End, nullptr, -1, true, false});
  return order;
}

}  // namespace allocsim
