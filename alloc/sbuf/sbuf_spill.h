// SBUF spill code: spill to DRAM (as in the production allocator: "SBUF spills target the DRAM spill space (_Reload /
// _ReloadStore)"; a store after the def, a reload before each use). A spilled tensor t gets
//
//   dram <t>_Spill<id>  [same shape] !spill(t)     its home for the rest of the program (the spill slot)
//   sbuf <t>_Reload<id> [same shape] !reload(t)    one stand-in per instruction that touches t
//
// and every instruction I that touches t becomes
//
//   dma R[v], S[v]   !reload    for each distinct view v of t that I reads (a self-overlapping view: its hull)
//   I                           with its t operands on R (same views: an inserted tensor is read element for
//                               element as the tensor it copies, docs/verification.md)
//   dma S[w], R[w]   !spill     when I writes view w of t: the store right after the def
//
// so t itself is no longer mentioned, and each stand-in lives from its reloads to its store, next to one
// instruction (sbuf_live_ranges.h gives it exactly that range).
//
// Spill slots stay unplaced: a DRAM tensor without a placement lives in storage of its own
// (docs/verification.md), so slots never share bytes and need no DRAM allocator. They count against dram-limit.
//
// A rehomed tensor (sbuf_costs.h: a PSUM spill slot that only DMAs touch) needs no code: its space becomes DRAM.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct SbufSpillStats {
  uint32_t stores = 0;   // spill DMAs inserted
  uint32_t reloads = 0;  // reload DMAs inserted
};

// Spills every tensor of `spilled` through stand-ins and moves every tensor of `rehomed` to DRAM (all of them
// SBUF tensors of `p`; anything else is an internal error). `next_id` numbers the minted names and is advanced;
// a name already taken skips to the next free number. `local` grows to p.tensors.size() and marks the new
// stand-ins. Renumbers the program. Throws AllocError when the DRAM tensors would exceed dram-limit.
SbufSpillStats insertSbufSpillCode(Program& p, const std::vector<TensorId>& spilled,
                                   const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local);
// The same, writing the rewritten copy of `from` into `p` (whatever `p` held is replaced; `p` must not be `from`):
// one pass over the program where a copy and then the rewrite in place made two.
SbufSpillStats insertSbufSpillCode(const Program& from, Program& p, const std::vector<TensorId>& spilled,
                                   const std::vector<TensorId>& rehomed, uint32_t& next_id, std::vector<bool>& local);

}  // namespace allocsim
