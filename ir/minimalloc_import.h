// minimalloc problems as allocsim programs and back: the benchmark data becomes programs every
// allocator can run, and an allocated program becomes a minimalloc solution that minimalloc's own rules
// (verify/minimalloc_rules.h) check independently of allocsim's placement oracle.
//
// The program: arch gen2 with one SBUF partition of `capacity` bytes, byte alignment 1 and partition quantum 1,
// one SBUF tensor `buf_<id>` [1, size / element] per buffer (u32 when size is a multiple of 4, else u16). The
// smallest element is 2 bytes, so when some size is odd every size and the capacity are doubled and the alignment
// is 2: placements of the doubled problem at even offsets are the original's placements, offsets doubled, one for
// one (exportMinimalloc halves them back). Program order is the time axis: each time unit (the gcd of the
// differences between the times) is two slots, first the last uses of the buffers that end then (`ts b, b, 1, add`:
// a read and a write, alloc/liveness.h's last position), then the definitions of those that start then
// (`memset b, 0`); an empty slot holds one filler, `li tick, 0`. So two buffers are live at a common position
// exactly when their half-open intervals overlap, intervals that only touch ([l, t) and [t, u)) do not interfere,
// and once each run of last uses and each run of definitions counts as one position (the exact allocator's
// canonical timeline, alloc/exact/canonical_timeline.h) a buffer lives over exactly 2 (upper - lower) / unit
// positions: its width in the CSV, scaled. When that would take more than max(1024, 32 x buffers) units, the times
// keep their order and roughly their spacing within that many units instead.
#pragma once

#include <cstdint>

#include "ir/minimalloc_csv.h"
#include "ir/program.h"

namespace allocsim {

// Throws InputError at the buffer's line for a size of more than 2^32 elements. Without `fillers`, no `li tick`
// and no `tick` register: a definition and a last use per buffer, in the same order, 2N instructions (the colorers'
// scaling bench, where the fillers would be most of a program of up to 64N instructions).
Program importMinimalloc(const MinimallocProblem& p, uint64_t capacity, bool fillers = true);

// printProgram(importMinimalloc(p, capacity)), written without building the program's instructions: a million
// buffers import in the memory of their declarations and the text (an Instruction is a few hundred bytes).
// `progress` (may be null) hears the instructions written, phase "writing the program".
std::string importMinimallocText(const MinimallocProblem& p, uint64_t capacity, const ProgressFn* progress = nullptr);

// The factor the program's sizes, capacity and offsets are of the problem's: 2 when some size is odd, else 1.
uint64_t minimallocScale(const MinimallocProblem& p);

// The tensor name of a buffer, and back ("" when `name` is not an imported buffer's).
std::string minimallocTensorName(const std::string& id);
std::string minimallocBufferId(const std::string& tensor_name);

// The solution an allocated program gives `original`: each buffer's offset is its tensor's byte offset. Throws
// InputError when a buffer's tensor is missing, has another size, is unplaced, or is not in partition 0 of SBUF.
MinimallocProblem exportMinimalloc(const Program& allocated, const MinimallocProblem& original);

}  // namespace allocsim
