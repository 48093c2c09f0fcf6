// The allocators' report as the production allocator prints it: each driver step's counters (alloc/driver.h
// StepStats) as its log lines ("PSUM score = ...", "% SB demand before allocation", ...), in the order the step
// produced them, and as the (key, value) fields that `alloc --json` prints. The allocators only count; every word of
// their report is written here.
#pragma once

#include <string>

#include "alloc/driver.h"
#include "alloc/liveness.h"
#include "alloc/psum/psum_allocator.h"
#include "tools/report.h"
#include "alloc/sbuf/sbuf_allocator.h"

namespace allocsim::cli {

// The step's name, as its report's "allocator" field: "psum", "sbuf", "no-reuse", "in-place", "values", or the
// name a text report carries.
std::string stepName(const StepStats& s);

// The step's report: the field "allocator" (stepName) first, then its figures; its lines.
AllocReport formatStep(const StepStats& s);

// The reports' bodies, without the "allocator" field.
AllocReport formatPsum(const PsumStats& s);
AllocReport formatSbuf(const SbufStats& s);
AllocReport formatReg(const RegStats& s);
AllocReport formatLsa(const LsaStats& s);
AllocReport formatDmaOpt(const DmaOptStats& s);
AllocReport formatExact(const ExactStats& s);

// How the liveness decided the input's loops (alloc/liveness.h): per iteration, loop-carried, or undecidable and
// kept live over the loop (conservative).
AllocReport formatLiveness(const LivenessStats& s);

}  // namespace allocsim::cli
