// LinearScanAllocator::spillMemLocSet (the production allocator, "Spill — copy-and-shrink + reload"): the victim's
// value is stored and reloaded at its next use. allocsim writes the spill code with the colorers' writers, so the
// verifier reads it like theirs (docs/verification.md: an inserted tensor is read element for element as the
// tensor it copies):
//   SBUF  alloc/sbuf/sbuf_spill.h — a DRAM slot `<t>_Spill<id>`, a store after every write and, before every
//         instruction that reads t, a reload into a stand-in `<t>_Reload<id>` that lives next to that instruction;
//   PSUM  alloc/psum/psum_spill.h — an SBUF slot `<t>_SpillTensorCopy<id>` saved after each def region (never
//         inside an open accumulation group) and reloaded into `<t>_ReloadTensorCopy<id>` before each consumer;
//         the SB pass, which runs after PSUM, places the slot.
// The production copied->setShrinkDim (a reduced footprint) does not carry over: a stand-in must be laid out like
// the tensor it copies for the verifier to map its elements, so the footprint shrinks in time (the stand-ins
// live next to one instruction each), not in shape.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct LsaSpillState {
  uint32_t next_id = 0;      // numbers the minted names
  std::vector<bool> local;   // SBUF stand-ins (by TensorId): never spilled again, exact live ranges
  uint32_t stores = 0, reloads = 0;
  uint64_t stored_bytes = 0;  // bytes the inserted stores move, per execution (static count)
};

// Why tensor `t` may not be spilled, or "" when it may: pinned or placed by an earlier pass, a stand-in or
// already spilled, or (PSUM) a def region the spill writer cannot cut (psum_def_regions.h).
std::string lsaSpillObstacle(const Program& p, TensorId t, const LsaSpillState& s);

// Spills `t` (SBUF or PSUM) and renumbers the program.
void lsaSpill(Program& p, TensorId t, LsaSpillState& s);

}  // namespace allocsim
