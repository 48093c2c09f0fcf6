// A minimalloc problem (ir/minimalloc_csv.h) as the exact search's problem, on the CSV's own times: buffer i is live
// over [lower, upper), i.e. positions lower .. upper - 1, so the preorders' widths are minimalloc's widths. The
// same problem imported as a program (ir/minimalloc_import.h) and allocated with `--allocator exact` gives the
// search these widths scaled by one factor (on the canonical timeline, alloc/exact/canonical_timeline.h), so the
// two paths search in the same order (tests/alloc/canonical_timeline_test.cpp).
#pragma once

#include <cstdint>

#include "alloc/exact/exact_problem.h"
#include "ir/minimalloc_csv.h"

namespace allocsim {

// One 1-D item per buffer (size = its bytes, alignment 1), in the CSV's order. Throws InputError at a buffer whose
// interval ends past 2^32 (the search's positions are 32-bit).
ExactProblem exactProblemOf(const MinimallocProblem& p, uint64_t capacity);

// `p` with each buffer's offset set from `placements` (in the order of exactProblemOf's items).
MinimallocProblem withOffsets(const MinimallocProblem& p, const std::vector<ExactPlacement>& placements);

}  // namespace allocsim
