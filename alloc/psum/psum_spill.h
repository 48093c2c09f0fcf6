// As in the production allocator, insert_spill_code: spill PSUM tensors through a TensorCopy DMA. PSUM has no spill
// space of its own, so a spilled tensor t lives in a spill slot `<t>_SpillTensorCopy<id>` (same shape; origin spill,
// copy_of t) in SBUF — the production allocator infers "SBUF preferred, else DRAM"; we take DRAM only when t's rows
// do not fit an SBUF partition. The slot is left unplaced: the SBUF colorer, which runs after PSUM, places it.
//
// Where the code goes is psum_def_regions.h's plan (as in the production allocator: save after the def,
// reload before each consumer; nothing inside an open accumulation group):
//   - an accumulation group keeps writing t itself; after it closes (after its closing matmul, or after its
//     K-loop) comes   dma S[v], t[v]   !spill   for the group's view v;
//   - every other instruction that touches t is rewritten to use a short-lived PSUM stand-in
//     `<t>_ReloadTensorCopy<id>` (origin reload, copy_of t; one per instruction), laid out like t — the
//     verifier reads an inserted tensor as the tensor it copies, element for element — so each operand keeps
//     its view, only the tensor changes:
//       dma  R, S               !reload    before the instruction, once a whole-tensor save of t has run on
//                                          every path to it (the slot holds every element); before that,
//       dma  R[view], S[view]   !reload    for each distinct view of t it reads
//       <the instruction, its t operands now R>
//       dma  S[view], R[view]   !spill     after it, for the view of t it writes (a new def region)
// So t occupies its banks only from its first group's start to its last group's save, each stand-in from its
// reload (or its instruction) to its instruction (or the save after it) — and, when it is reloaded by views in
// a loop, over that loop (alloc/liveness.h cannot tell that no element is carried across the back edge). A source
// view whose second dimension overlaps itself (STEP < COUNT) is reloaded as its contiguous hull, so that the reload's
// destination does not overlap itself.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct PsumSpillStats {
  uint32_t saves = 0;    // save instructions inserted
  uint32_t reloads = 0;  // reload instructions inserted
};

// Spills every tensor in `spilled` (PSUM tensors of `p` that planPsumSpill finds spillable; anything else is an
// internal error, with the production allocator's assert text "Expected save from PSUM" for a tensor outside PSUM).
// `next_id` numbers the minted names and is advanced; a name already taken skips to the next free number. Renumbers
// the program.
PsumSpillStats insertPsumSpillCode(Program& p, const std::vector<TensorId>& spilled, uint32_t& next_id);

}  // namespace allocsim
