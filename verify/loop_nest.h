// Which loops enclose the instruction a run is executing. The interpreter reports steps one by one (ir/interp.h);
// a walk that needs to know when a loop ends, or which loop registers frame a step, keeps a LoopNest in step
// with it. Instructions are found by Instruction::id, so the program must be numbered in preorder.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// True when every Instruction::id is its position in a preorder walk (what Program::renumber assigns).
bool hasPreorderIds(const Program& p);
// `p` itself when its ids are in preorder, else a renumbered copy kept in `scratch`.
const Program& withPreorderIds(const Program& p, Program& scratch);

class LoopNest {
 public:
  explicit LoopNest(const Program& p);  // p must have preorder ids (withPreorderIds)

  // Advances to the next executed event `inst` (an instruction, or a loop at the start of an iteration).
  // Calls onLeave(loop) for each loop that ended before it, innermost first. Returns true when `inst` is a
  // further iteration of a loop already running.
  template <typename F>
  bool advance(const Instruction& inst, F&& onLeave) {
    while (!active_.empty()) {
      const Instruction* top = active_.back();
      if (top == &inst) return true;
      if (encloses(*top, inst)) break;
      active_.pop_back();
      onLeave(*top);
    }
    if (inst.op == Op::Loop) active_.push_back(&inst);
    return false;
  }
  // Leaves every running loop (the run ended), innermost first.
  template <typename F>
  void leaveAll(F&& onLeave) {
    while (!active_.empty()) {
      const Instruction* top = active_.back();
      active_.pop_back();
      onLeave(*top);
    }
  }
  // The running loops, outermost first (for a loop event, the loop itself is last).
  const std::vector<const Instruction*>& active() const { return active_; }

 private:
  bool encloses(const Instruction& loop, const Instruction& inst) const;

  std::vector<const Instruction*> by_id_;
  std::vector<uint32_t> parent_;  // by id: the id of the innermost enclosing loop, kNone at top level
  std::vector<uint32_t> depth_;   // by id: number of enclosing loops
  std::vector<const Instruction*> active_;
};

}  // namespace allocsim
