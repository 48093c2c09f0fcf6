#include "alloc/exact/minimalloc_problem.h"

#include <string>

#include "ir/diag.h"

namespace allocsim {

ExactProblem exactProblemOf(const MinimallocProblem& p, uint64_t capacity) {
  ExactProblem q;
  q.capacity = capacity;
  for (const MinimallocBuffer& b : p.buffers) {
    // parseMinimallocCsv guarantees 0 <= lower < upper and size > 0.
    if (b.upper - 1 > int64_t(UINT32_MAX))
      throw InputError(b.loc, "buffer '" + b.id + "' ends at " + std::to_string(b.upper) +
                                  ", past the exact search's 2^32 positions");
    ExactItem it;
    it.size = uint64_t(b.size);
    it.first = uint32_t(b.lower);
    it.last = uint32_t(b.upper - 1);
    q.items.push_back(it);
  }
  return q;
}

MinimallocProblem withOffsets(const MinimallocProblem& p, const std::vector<ExactPlacement>& placements) {
  MinimallocProblem out = p;
  for (size_t i = 0; i < out.buffers.size() && i < placements.size(); ++i)
    out.buffers[i].offset = int64_t(placements[i].offset);
  return out;
}

}  // namespace allocsim
