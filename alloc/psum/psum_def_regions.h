// Where a spilled PSUM tensor's value may leave PSUM (as in the production allocator: "Accumulation residency is
// implicit" and insert_spill_code). A PSUM tensor's value is defined in *def regions*:
//   - an accumulation group: from the matmul that opens it to the one that closes it. Inside it the accumulator
//     is RMW-pinned (the +inf cost the production allocator gives it): docs/format.md forbids any other
//     instruction to read or write an element of an open group, so no spill code may sit there. The save follows the
//       close: after the closing
//     matmul, or — for a K-loop group (start@first ... stop@last in one loop) — after that loop;
//   - any other instruction that writes the tensor (copy, act, memset, ...): the save follows it.
// A tensor written again later starts a new def region with its own save. Every other read of the tensor is a
// consumer and gets a reload right before it.
//
// A tensor is a spill candidate only if every def region is one of these recognized shapes, found statically
// in one block (an instruction list):
//   straight   matmul v, start[, stop] ... matmul v, stop      (continuations between: matmul v, no start/stop,
//                                                               possibly inside loops of the block)
//   K-loop     loop { matmul v, start@first ... matmul v, stop@last }   (the loop runs at least once)
// with the same view v throughout and no register of v written inside the group (the save re-evaluates v
// after the close). Anything else — a group left open at the end of its block, two groups of the tensor open
// together, another access to the tensor inside an open group, reg_load / reg_store on it — makes the
// tensor un-spillable (cost +inf). This is conservative: a rejected tensor merely stays in PSUM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// The save of one accumulation group: `dma slot[view], t[view] !spill` right after instruction `after`.
struct PsumGroupSave {
  uint32_t after = 0;  // Instruction::id of the closing matmul, or of the K-loop
  AccessPattern view;  // the group's elements (the matmuls' destination)
};

struct PsumSpillPlan {
  bool spillable = false;
  std::string why_not;  // when not spillable: the first reason found
  std::vector<PsumGroupSave> group_saves;  // in program order
  uint32_t writer_saves = 0;  // other writing instructions, each saved right after itself
  uint32_t reloads = 0;       // reload instructions: per consumer, one (whole tensor) once a whole-tensor save
                              // has run on every path to it, else one per distinct view it reads

  uint32_t saves() const { return uint32_t(group_saves.size()) + writer_saves; }
};

// What a spilled tensor's slot is known to hold at a point of the program: the union of the saves that ran on
// every path to it, counted when a save covers all partitions with a constant element range. Once the ranges
// cover the tensor the slot holds every element, and a consumer can reload the whole tensor (one reload, and
// a whole write, which keeps the stand-in from being live around an enclosing loop).
class PsumSavedElements {
 public:
  void add(const Program& p, const AccessPattern& saved);
  bool whole() const { return whole_; }

 private:
  std::vector<std::pair<uint64_t, uint64_t>> ranges_;  // [begin, end) element ranges, sorted, disjoint
  bool whole_ = false;
};

// The plan for spilling PSUM tensor `t` of `p` (its saves and reloads), or why it cannot be spilled. Reads
// Instruction::id: `p` must be renumbered.
PsumSpillPlan planPsumSpill(const Program& p, TensorId t);

}  // namespace allocsim
