// The random program generator: builds a well-formed program (docs/format.md,
// "Well-formedness") from a stream of decisions. Every decision goes through a Choices, so the same
// generator serves `allocsim gen --seed`, libFuzzer byte strings and RapidCheck shrinking. A choice of 0
// always means "stop adding / smallest / first option", so an exhausted byte string gives a small program.
#pragma once

#include <cstdint>

#include "gen/choices.h"
#include "ir/arch.h"
#include "ir/program.h"

namespace allocsim {

// The mix `allocsim gen` draws from unless told otherwise: a quarter of on-chip tensors recycle a dead one, and a
// fifth of loop-register indexes and of statements in loops take // or %, or are `if` blocks or loops bounded by
// the enclosing loops' registers (gen --stats counts them: "op if", "loops with a register bound").
inline constexpr uint32_t kDefaultReuse = 25;
inline constexpr uint32_t kDefaultConditionals = 20;

struct GenOptions {
  Arch arch;                // usually archPreset("tiny") or ("gen2")
  uint32_t size = 20;       // top-level statements: 1 to size, drawn; from 200 on, size/2 to size (see run())
  uint32_t pressure = 100;  // percent: peak simultaneously-live SBUF (and PSUM) demand relative to capacity; >100 forces spills
  // percent of statements that are DMA patterns (gen/gen_dma_patterns.cpp: abutting reads, repeated reads, a
  // tensor written whole and read later over a sub-range only, a dead store, reads one element apart); 0 draws no
  // decision for it, so the programs are those a generator without the option draws
  uint32_t dma_patterns = 0;
  // Percent of loop-register indexes that take a floor division or a remainder (`i%2*64`, `j//2`), and of statements
  // inside loops that are conditional blocks on the loop registers (`if i >= j { ... }`, docs/format.md
  // "Conditional blocks"); `allocsim gen`'s default. 0 draws no decision for either, so the programs are those a
  // generator without them draws.
  uint32_t conditionals = kDefaultConditionals;
  // At most this many iterations of any statement: the product of a loop nest's trip counts (0: no cap, the
  // generator's own limits only, 3 deep and 8 trips a loop). The fuzz targets cap it (fuzz/fuzz_program.h): every
  // oracle walks every iteration, and the few inputs with hundreds of iterations took a large share of their CPU time.
  // A capped loop draws its trip count as before and keeps what fits, so the choice stream is unchanged.
  uint32_t max_nest_trips = 0;
  // Percent of on-chip tensors that recycle a dead tensor of the same shape and dtype instead of a new one, where
  // one is dead in the current loop body (or at top level): one tensor then holds several values, written anew
  // after its last read, as kernels reuse buffers across phases and unrolled copies; `allocsim gen`'s default. 0 draws
  // no decision for it, so the programs are those a generator without the option draws.
  uint32_t reuse = kDefaultReuse;
  // DRAM tensors are shared once the DRAM budget (a quarter of dram-limit) runs short, so that any `size` fits any
  // machine: a load then reads a sub-rectangle of one shared input per dtype, and a store overwrites a corner of the
  // largest output of its dtype (that corner of the tensor is what reaches DRAM). Off: the programs are those a
  // generator without the option draws, and adding statements stops at the budget (GenOutcome::dram_budget_reached).
  bool fit_dram = false;
};

// Always returns a well-formed program; deterministic in the choices; terminates for any choice stream.
Program generateProgram(Choices& choices, const GenOptions& opts);

// How the statement loop ended.
struct GenOutcome {
  uint32_t top_level_statements = 0;  // statements drawn at top level (each may hold loops and many instructions)
  // Adding stopped because the DRAM tensors reached a quarter of the machine's dram-limit (the DRAM budget): then a
  // larger `size` gives the same program.
  bool dram_budget_reached = false;
  bool work_budget_reached = false;  // the interpretation-work or statement budget, which grow with `size`
};

// The same, and how the statement loop ended.
Program generateProgram(Choices& choices, const GenOptions& opts, GenOutcome& outcome);

}  // namespace allocsim
