// The exact allocator's time axis: live ranges measured in program positions, with each run of
// consecutive positions that only end live ranges counted as one position, and each run that only starts them too.
//
// Why: the preorders of the exact search (exact_search.h: W width, A area) rank items by how long they live. In a
// program, buffers that end together still end at different instructions, one after the other, so equal lifetimes
// come apart by where each buffer sits in its run; the search then goes in another order than on the same problem
// given by times (minimalloc's CSV, alloc/exact/minimalloc_problem.h), and can get lost where that one does not
// (docs/quality.md, minimalloc's benchmarks: I). Collapsing the runs gives the run one time again. Positions that
// start nothing and end nothing (instructions in between) keep their length: they are the time in between.
//
// Valid for any problem: two items overlap (a.first <= b.last and b.first <= a.last) after it exactly when they did
// before, as the map is monotone and only merges positions of one kind (a first and a last never merge).
#pragma once

#include <vector>

#include "alloc/exact/exact_problem.h"

namespace allocsim {

// Renumbers every item's first and last (see above); positions start at 0.
void canonicalizeTimeline(std::vector<ExactItem>& items);

}  // namespace allocsim
