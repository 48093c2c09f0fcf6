// The bookkeeping of rewriting one instruction's operands onto reload stand-ins, shared by the PSUM and SBUF spill
// writers (they run one Chaitin–Briggs skeleton, the production allocator, and rewrite operands alike): one stand-in
// per spilled tensor the instruction touches, and one reload per distinct view it reads.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "alloc/spill_dma.h"
#include "ir/program.h"

namespace allocsim {

class InstructionStandIns {
 public:
  // The stand-in of spilled tensor `t` in this instruction: make(t) the first time `t` is asked for.
  template <class Make>
  TensorId of(TensorId t, Make make) {
    for (const auto& [from, to] : stand_in_)
      if (from == t) return to;
    const TensorId r = make(t);
    stand_in_.push_back({t, r});
    return r;
  }

  // True the first time `view` is passed: it still has to be reloaded before the instruction.
  bool firstRead(const AccessPattern& view) {
    if (std::find(reloaded_.begin(), reloaded_.end(), view) != reloaded_.end()) return false;
    reloaded_.push_back(view);
    return true;
  }

  struct Copies {
    bool reloaded = false;  // a reload went into `before`
    bool saved = false;     // a save went into `after`
  };

  // Moves operand `ap` of a spilled tensor (whose spill slot is `slot`) onto the tensor's stand-in (of(), with
  // `make`), with the copies the instruction at `loc` needs: when the operand is read, the reload of `reloaded`
  // (the operand's view, or a larger one the caller reloads instead; its reloadView) before the instruction, once
  // per distinct `reloaded`; when it is written, the save of the operand's view after the instruction.
  template <class Make>
  Copies moveOperand(AccessPattern& ap, const AccessPattern& reloaded, bool read, bool write, TensorId slot,
                     const SourceLoc& loc, Make make, std::vector<Instruction>& before,
                     std::vector<Instruction>& after) {
    Copies c;
    const TensorId r = of(ap.tensor, make);
    if (read && firstRead(reloaded)) {
      before.push_back(reloadDma(loc, reloadView(reloaded), r, slot));
      c.reloaded = true;
    }
    const AccessPattern original = ap;
    ap.tensor = r;
    if (write) {
      after.push_back(saveDma(loc, original, r, slot));
      c.saved = true;
    }
    return c;
  }

 private:
  std::vector<std::pair<TensorId, TensorId>> stand_in_;  // (spilled tensor, its stand-in here)
  std::vector<AccessPattern> reloaded_;
};

}  // namespace allocsim
