// Who last wrote some physical bytes or register lanes before a given step of an allocated program's run: the
// answer to "the operand holds the wrong value — who put it there?" (a spill, a reload, another tensor's
// instruction, a register sharing the lane). Replays the run with an observer; the run is deterministic, so the
// replay sees exactly the writes of the run that found the difference.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/machine_layout.h"
#include "verify/step_capture.h"

namespace allocsim {

struct LastWrite {
  const Instruction* inst = nullptr;  // nullptr: not written in this run before the step (poison or input data)
  uint64_t step = 0;
  TensorId tensor = kNone;  // the tensor written, for a memory write
  RegId reg = kNone;        // the register written, for a lane
};

struct WriteTargets {
  std::vector<PhysicalByte> bytes;
  std::vector<uint32_t> lanes;
};

struct LastWrites {
  std::vector<LastWrite> bytes;  // parallel to WriteTargets::bytes
  std::vector<LastWrite> lanes;  // parallel to WriteTargets::lanes
  // The latest of all (inst == nullptr if none was written).
  LastWrite latest() const;
};

// The last write of each target by steps 1..before_step-1 (the whole run when before_step is UINT64_MAX).
// A loop's final write of its register when it exits is not observed: it is reported as the last iteration.
LastWrites findLastWrites(const Program& allocated, const MachineLayout& layout, const StorageFactory& make,
                          const InterpOptions& opts, const WriteTargets& targets, uint64_t before_step);

}  // namespace allocsim
