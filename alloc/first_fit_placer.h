// The skeleton the simple placers share (alloc/no_reuse.h, alloc/greedy_placer.h): SBUF tensors, PSUM tensors
// and registers are placed one at a time, in the policy's order, at the first fit (alloc/first_fit.h) that
// avoids every already placed item the policy says it conflicts with. No spilling: when nothing fits, an
// AllocError names the item and the policy's account of demand against capacity.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ir/program.h"

namespace allocsim {

struct FirstFitPolicy {
  // Items are placed in ascending key order (ties: declaration order).
  std::function<uint64_t(TensorId)> tensor_key;
  std::function<uint64_t(RegId)> register_key;
  // Whether two tensors of the same space (two registers) may not share storage.
  std::function<bool(TensorId, TensorId)> tensors_conflict;
  std::function<bool(RegId, RegId)> registers_conflict;
  // The end of the failure message for a tensor or register that does not fit, after "... does not fit in X":
  // what the policy promises and how demand compares with capacity.
  std::function<std::string(TensorId)> tensor_shortage;
  std::function<std::string(RegId)> register_shortage;
};

// Places every SBUF and PSUM tensor and every register of `p`; pinned tensors keep their placement and are
// obstacles like any placed tensor; DRAM tensors are left as they are. Throws AllocError (alloc/alloc_error.h).
Program placeFirstFit(const Program& p, const FirstFitPolicy& policy);

// "sbuf tensor 'x' [8, 1024] f32", "register 'r' (64-bit, 2 lanes)": how failure messages name an item.
std::string describeTensor(const Program& p, TensorId t);
std::string describeRegister(const Program& p, RegId r);

}  // namespace allocsim
