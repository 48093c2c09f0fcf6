// Live-range splitting by a copy: the SBUF colorer's answer where every placement of whole values stays well above
// the max-live.
//
// The max-live counts what is live at one position, but a tensor keeps one rectangle for its whole range. Two
// values that are never live at the peak may still be forced apart by a third: in a loop body, A is written
// while a large tensor B is read (A and B interfere), B then dies for a while, C is written from A there (C and A
// interfere), and B is live again while C is (C and B interfere): A and C need room of their own beside B although
// at most two of the three are ever live at once. Copying C to a tensor of its own where B is dead lets C's first
// part sit in B's rectangle and its second part where A was.
//
// A split point is a tensor and a place between two of its mentions: an instruction `copy t', t` (origin Copy, as
// the verifier reads it: docs/verification.md) right after the statement that holds the earlier mention, directly in
// the body that holds all of the tensor's mentions, and every later mention renamed to t'. Sound where the value
// lives within one iteration of that body: every mention lies in it, none in a conditional block, and each
// iteration reads only what it wrote (alloc/iteration_coverage.h); then in every iteration the mentions before the
// copy run before it and the later ones after it, and t' holds what t held. The copy reads the whole tensor, so
// each iteration must have written all of it by then (alloc/loop_gaps.h, writtenWhole).
#pragma once

#include <cstdint>
#include <vector>

#include "alloc/liveness.h"
#include "ir/program.h"

namespace allocsim {

struct SbufSplitPoint {
  TensorId tensor = kNone;
  uint32_t after = 0;      // the id (Program::renumber) of the statement after which the copy goes
  uint64_t live_area = 0;  // partitions x bytes live where the copy goes, the tensor's included
};

// The split points of movable SBUF tensors (unplaced, not pinned, neither input nor output) in `p` (renumbered),
// where the area live at the cut plus the tensor's own stays within `max_live` (the copy holds both), the least
// loaded first, at most `limit` of them. `live` must be computeLiveness(p) (or sbufLiveness).
std::vector<SbufSplitPoint> sbufSplitPoints(const Program& p, const Liveness& live, uint64_t max_live, size_t limit);

// `p` with the copy of split point `s` inserted and the later mentions renamed (renumbered). With `copy`, also the
// copy's tensor in the result and the source line it is reported at (the line of the statement it follows).
struct SbufSplitCopyAt {
  TensorId tensor = kNone;
  uint32_t line = 0;
};
Program splitSbufTensor(const Program& p, const SbufSplitPoint& s, SbufSplitCopyAt* copy = nullptr);

}  // namespace allocsim
