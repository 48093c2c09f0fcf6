// Edits the DMA optimization makes to a program: renaming a tensor everywhere (merge_load re-points a load's
// readers) and removing the inserted tensors nothing names any more (DeadCodeElim::removeMemoryLocationHelper).
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

// Every operand naming `from` names `to` instead, and every tensor copying `from` copies `to`.
void renameTensor(Program& p, TensorId from, TensorId to);

// Removes the inserted, unpinned tensors that no instruction operand and no other tensor's copy_of names, and
// renumbers the rest. Returns how many were removed.
uint32_t removeUnusedInsertedTensors(Program& p);

}  // namespace allocsim
