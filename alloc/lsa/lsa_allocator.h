// LinearScanAllocator (the production allocator, "LinearScanAllocator — the interval allocator"): the alternative
// SBUF/PSUM allocator of optlevel 8 and of `-O6 --allocator lsa`. One pass per memory type, PSUM first, then SB (the
// production run_with_loops: init -> alloc -> exit x 2), each scanning its intervals once in program order
// (alloc/lsa/live_range_manager.h):
//
//   for each interval in order of its start position:
//     1. expire-old-intervals: every active interval whose last position lies before this one "has no more
//        uses", is "erased" and its memory goes back to the manager;
//     2. allocate: the BestFitMemoryManager (alloc/lsa/best_fit_memory_manager.h) places it;
//     3. spill-at-interval when it does not fit: "Failed to allocate <name>", the active set listed in
//        liveSetComparator order ("<idx>: <name> (<MemoryType>)"), and the head — the first interval in that
//        order that can be spilled (alloc/lsa/lsa_spill.h says which cannot; one the instruction being allocated
//        uses comes last, since its stand-in is live there too) — is spilled: "Spilling <name>", "It will be
//        reloaded at <inst>" (its next read). Then the allocation is retried.
//
// Before it spills, allocsim's scan tries once more: the same scan with the manager taking the free blocks in
// address order (first fit: the lowest partition, then the lowest byte) instead of the smallest first. Best fit
// keeps the smallest free block, which on a partition-quantized SBUF can be a whole empty band: two one-partition
// tensors then end up at the starts of two bands, and a later full-width tensor finds no band start free, although
// the two would have shared one. When the first-fit scan places every interval it is kept; otherwise the best-fit
// scan's spill follows, as described above. So the scan spills only where neither order fits the live tensors.
//
// The retry rescans: spilling rewrites the program (store and reload DMAs, stand-ins), which moves every later
// position, so the scan restarts on the rewritten program with the victim's stand-ins in place of its interval.
// Up to the victim's first mention the new scan repeats the old one's decisions. Every spill takes a tensor that
// was spillable and makes only unspillable ones, so the rescans are bounded by the tensors of the input.
// When no active interval can be spilled, nothing can help: AllocError "Failed to allocate <name>" with the
// demand at that point.
//
// Loops: allocsim keeps loops (there is no unroller), so both variants scan the loop-extended linear order of
// alloc/liveness.h — a value live across a back edge holds its memory over the whole loop. `loop_aware`
// (run_with_loops, "Linear Scan Allocator(LIW)", the O6 path) and run (O8) differ in their report only.
// Tensors already placed (pinned, or by an earlier pass) keep their placement and block it for the whole
// program. DRAM spill slots stay unplaced: an unplaced DRAM tensor lives in storage of its own
// (docs/verification.md), as with the colorers. Single core only: the driver's selection map refuses more.
#pragma once

#include "alloc/report.h"
#include "ir/program.h"
#include "ir/progress.h"

namespace allocsim {

struct LsaOptions {
  bool loop_aware = false;  // run_with_loops (O6 --allocator lsa) or run (O8)
  // 0: banners, spills and the summary; 1: also the failure listings; 2: also every expiry.
  int verbosity = 0;
  const ProgressFn* progress = nullptr;  // each scan (ir/progress.h)
};

struct LsaResult {
  Program program;  // every SBUF and PSUM tensor placed
  AllocReport report;
};

// Throws AllocError when spilling cannot help, InputError for a tensor that cannot fit its memory at all.
// Deterministic.
LsaResult allocateLinearScan(const Program& p, const LsaOptions& o = {});

}  // namespace allocsim
