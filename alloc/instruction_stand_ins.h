// The bookkeeping of rewriting one instruction's operands onto reload stand-ins, shared by the PSUM and SBUF spill
// writers (they run one Chaitin–Briggs skeleton, the production allocator, and rewrite operands alike): one stand-in
// per spilled tensor the instruction touches, and one reload per distinct view it reads.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

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

 private:
  std::vector<std::pair<TensorId, TensorId>> stand_in_;  // (spilled tensor, its stand-in here)
  std::vector<AccessPattern> reloaded_;
};

}  // namespace allocsim
