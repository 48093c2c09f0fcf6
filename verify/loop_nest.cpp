#include "verify/loop_nest.h"

namespace allocsim {
namespace {

bool preorder(const std::vector<Instruction>& body, uint32_t& next) {
  for (const Instruction& i : body) {
    if (i.id != next++) return false;
    if (hasBody(i.op) && !preorder(i.body, next)) return false;
  }
  return true;
}

void index(const std::vector<Instruction>& body, uint32_t parent, uint32_t depth,
           std::vector<const Instruction*>& by_id, std::vector<uint32_t>& parents, std::vector<uint32_t>& depths) {
  for (const Instruction& i : body) {
    by_id.push_back(&i);
    parents.push_back(parent);
    depths.push_back(depth);
    if (i.op == Op::Loop) index(i.body, i.id, depth + 1, by_id, parents, depths);
    // An if's body belongs to the enclosing loop's iteration: its instructions have that loop as their parent.
    if (i.op == Op::If) index(i.body, parent, depth, by_id, parents, depths);
  }
}

}  // namespace

bool hasPreorderIds(const Program& p) {
  uint32_t next = 0;
  return preorder(p.body, next);
}

const Program& withPreorderIds(const Program& p, Program& scratch) {
  if (hasPreorderIds(p)) return p;
  scratch = p;
  scratch.renumber();
  return scratch;
}

LoopNest::LoopNest(const Program& p) {
  size_t n = 0;  // sized once: the placement oracle builds a nest per run
  forEachInstruction(p.body, [&](const Instruction&) { ++n; });
  by_id_.reserve(n);
  parent_.reserve(n);
  depth_.reserve(n);
  index(p.body, kNone, 0, by_id_, parent_, depth_);
}

bool LoopNest::encloses(const Instruction& loop, const Instruction& inst) const {
  if (inst.id >= parent_.size() || by_id_[inst.id] != &inst) return false;  // not of this program
  uint32_t target = depth_[loop.id];
  uint32_t at = inst.id;
  while (at != kNone && depth_[at] > target) {
    at = parent_[at];
    if (at != kNone && depth_[at] == target) return by_id_[at] == &loop;
  }
  return false;
}

}  // namespace allocsim
