// Oracle 2 of docs/verification.md: symbolic value flow, after regalloc2's checker (src/checker.rs), over
// 2-D byte ranges, PSUM banks and registers instead of virtual registers and stack slots. No data is
// compared: the checker follows the *identity* of values through the allocated program's dynamic trace.
//
// Symbols. Every write of an element (or register lane) by an ORIGINAL instruction (origin Source) creates
// a fresh symbol; so does the load of each input element before the run. They are numbered by a counter
// that only original writes advance, so the same program walked without its inserted instructions (the
// reference, verify/reference.h) numbers every value identically. Inserted instructions that compute
// something (anything but a move, below) create symbols of a separate numbering that no original write
// ever has. Symbol 0 is "nothing": never written (logical) or poison (physical).
//
// The abstract state at each step is three maps (verify/symbol_map.h):
//
//   - L: logical   (allocated tensor, element) and (register, lane) -> symbol   what the program means
//   - P: physical  location -> symbol                                         what the machine holds
//   - R: reference (reference tensor, element) and (register, lane) -> symbol what the unallocated program means
//
// where a location is an SBUF (partition, byte), a PSUM (partition, bank byte), a DRAM byte (placed) or a
// tensor's private storage (unplaced DRAM), or a register lane (@rN; 64 bits: N and N+1), in units of
// verify/physical_location.h.
//
// The transfer functions, per executed instruction (the interpreter's ExecObserver reports its resolved
// views and registers):
//
//   - original instruction   [ dst := op src... ]   (and an original loop writing its register)
//
//       for each element x of dst, in view order:   s := fresh;  L[dst x] := s;  P[loc(dst x)] := s;
//                                                                R[ref(dst) x] := s
//
//   - inserted move          [ dst := src ]   dma, copy without conversion, reg_load, reg_store, mov
//     (spill, reload, copy, ...)
//
//       L[dst x] := L[src x];  P[loc(dst x)] := L[src x]        (R unchanged: the reference has no move)
//
//   - other inserted instruction: like an original one but with inserted symbols, and R unchanged.
//
// What is checked, at every read, by any instruction, of every element x of every source view and every
// lane of every register read (address terms, scalar sources), before the instruction's writes:
//
//   1. P[loc(x)] == L[x] for each unit of x: the machine holds the value the program means. Otherwise:
//      "never-written" (the location holds poison), "stale-read" (it holds another version of the same
//      element or register), or "clobber" (it holds some other tensor's or register's value).
//      Skipped when L[x] is 0: an inserted spill may copy elements nothing has written yet.
//   2. original instructions only: L[x] == R[ref(x)], where ref maps an inserted tensor to the tensor it
//      holds (!reload(a)). The allocated instruction reads the same values as the reference instruction
//      with the same ordinal; this catches moves that are consistent in themselves but carry the wrong
//      value, such as a reload from the wrong spill slot ("wrong-value"; "stale-read" if it is an older
//      version of the same element, e.g. read from where the tensor was before it moved; "never-written" if
//      nothing wrote the inserted tensor).
//   At the end of the run, every written element of each output tensor is checked the same way.
//
// R is the reference walk run in lockstep with the allocated one rather than as a second interpretation:
// the reference executes exactly the original instructions, in the same order and (since check 2 holds
// for every register read before a view is resolved) with the same register values, so its reads are
// the same views of the same elements.
//
// Only the first failing read is reported. The walk is then repeated up to that step to say who created
// the symbol expected and the one found, and which instruction last wrote the location.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/progress.h"
#include "ir/program.h"
#include "verify/finding.h"

namespace allocsim {

struct SymbolicOptions {
  uint64_t max_steps = 50'000'000;
  const ProgressFn* progress = nullptr;  // ir/progress.h
};

// Empty = every read found the value it expects. Unplaced SBUF/PSUM tensors and registers are reported
// (kind "unplaced") and walked with storage of their own; at most one value-flow finding follows.
// Throws InputError when the program cannot run (ir/interp.h) or its provenance is inconsistent
// (verify/reference.h).
std::vector<Finding> checkSymbolic(const Program& allocated, const SymbolicOptions& opts = {});

}  // namespace allocsim
