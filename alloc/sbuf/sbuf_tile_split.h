// Each buffer of a multi-buffer SBUF tensor as a tensor of its own, so that the colorer places the buffers apart.
//
// NKI gives a loop's tiles several buffers (a `[2]` tile array, `buf{0}` and `buf{1}`) so that one iteration's load
// into one buffer overlaps the reads of the other. As one tensor, the array is one rectangle with one live range,
// the union of its buffers': the colorer can neither put a buffer's bytes where the other buffer is dead, nor keep a
// load into one buffer off the bytes another tensor's readers have just released while the other buffer is busy.
//
// A tile array is split when it is free to move (SBUF, unplaced, a source tensor or a copy of one: not spill code's)
// and every mention of it stays inside one tile at a constant offset: the mentions of each tile then form a tensor
// of their own. The lowest tile mentioned keeps the tensor; each other tile mentioned gets a new tensor of the same
// shape, declared as a copy of the source tensor (`name_TileN ... !copy(name)`, as live-range splitting by value
// does, alloc/value_split.h), and every operand that mentions that tile is rewritten to name it, offsets unchanged.
// No instruction is added and no byte a mention reaches moves within its tensor, so the program computes the same
// thing and the verifier reads each copy as the tensor it copies (docs/verification.md). Each tensor's rectangle
// then spans the one tile its mentions reach (sbuf_interference.h, SbufNode::lead and trail), with the live range of
// that tile's mentions alone.
#pragma once

#include <cstdint>

#include "ir/program.h"

namespace allocsim {

// Splits `p` in place (renumbering it when it adds a tensor). Returns how many tensors it added.
uint32_t splitSbufTiles(Program& p);

}  // namespace allocsim
