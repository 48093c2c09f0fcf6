// Seed 003 insert_spill_code: spill PSUM tensors through a TensorCopy DMA. PSUM has no spill space of its own,
// so a spilled tensor t lives in a spill slot `<t>_SpillTensorCopy<id>` (same shape; origin spill, copy_of t) in
// SBUF — 003 G3 infers "SBUF preferred, else DRAM"; we take DRAM only when t's rows do not fit an SBUF partition.
// The slot is left unplaced: the SBUF colorer, which runs after PSUM, places it.
//
// Every instruction that touches t is rewritten to use a short-lived PSUM stand-in
// `<t>_ReloadTensorCopy<id>` (origin reload, copy_of t; one per instruction and distinct view), shaped like the
// view it replaces, so it holds exactly the elements that instruction touches:
//   dma  R, S[view]      !reload    before an instruction that reads t[view]  (the reload into PSUM)
//   <the instruction, its t[view] operands now R>
//   dma  S[view], R      !spill     after an instruction that writes t[view]  (the save out of PSUM)
// A view read and written by one instruction (a matmul that accumulates, `act acc, acc`) shares one stand-in.
// A stand-in is written whole before it is read, so it is not live across a loop's back edge: its live range
// runs from its reload to its instruction (or to the save after it). The original t is no longer mentioned.
//
// A source view whose second dimension overlaps itself (STEP < COUNT) is reloaded as its contiguous hull and read
// through the same pattern at offset 0; every other view is reloaded flattened and read whole.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"

namespace allocsim {

struct PsumSpillStats {
  uint32_t saves = 0;    // save instructions inserted
  uint32_t reloads = 0;  // reload instructions inserted
};

// Spills every tensor in `spilled` (PSUM tensors of `p`; anything else is an internal error with 003's assert
// text "Expected save from PSUM"). `next_id` numbers the minted names and is advanced; a name already taken
// skips to the next free number. Renumbers the program.
PsumSpillStats insertPsumSpillCode(Program& p, const std::vector<TensorId>& spilled, uint32_t& next_id);

}  // namespace allocsim
