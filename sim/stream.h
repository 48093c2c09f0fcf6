// Streaming: an engine does not apply an instruction at once. ACT (copy, act) and DVE (tt, ts)
// read, compute and write its elements in chunks of `stream.chunk-elements` elements per partition (the timing
// table), all partitions at once, chunk after chunk in the views' element order (free dimension, the second
// dimension outer). So an instruction whose destination overlaps its own source at an offset reads, in a later
// chunk, what an earlier chunk wrote: the hardware-order result, which the interpreter (ir/interp.h: every source
// read before the destination is written) does not give. Both agree whenever the destination does not overlap a
// source or overlaps it element for element (in place); only then does the simulator skip the chunking.
//
// Not streamed (applied at once, as the interpreter does): matmul (PE accumulates whole columns), reduce (its
// [P, 1] result is written after the whole row), memset (no source), DMA transfers and SP instructions.
#pragma once

#include <cstdint>

#include "ir/interp.h"
#include "ir/machine_layout.h"
#include "ir/program.h"

namespace allocsim::sim {

// Whether an instruction streaming `src` into `dst` can see its own writes: the views overlap on the machine,
// and not element for element (in place). Bounding footprints (sim/footprint.h): a strided view may be reported
// where no element is shared, which only costs the chunked execution, never a wrong result.
bool overlapsAtAnOffset(const MachineLayout& layout, const ResolvedView& dst, const ResolvedView& src);

// Executes a streaming instruction chunk by chunk on `s`, through the interpreter's code: chunk k is computed from
// memory as chunks 0..k-1 left it (every operand re-read, a ts scalar tensor too) and its elements written at
// once. Returns the operand hash of the instruction's start (what the interpreter hashes) and leaves in `out`
// the destination's final bytes (committing them again at the end changes nothing). `differs` is set when the
// result is not what applying the instruction at once gives. Safe to write early: the scoreboard keeps every
// other instruction off the destination and the sources until this one ends.
uint64_t streamInstruction(InstructionStepper& stepper, Storage& s, const Instruction& inst, bool first, bool last,
                           uint32_t chunk_elements, PendingWrites& out, bool& differs);

}  // namespace allocsim::sim
