// minimalloc's solution rules (google/minimalloc src/validator.cc), checked on the CSV alone, with no allocsim
// liveness or placement code involved: an independent oracle for allocations of imported benchmarks
// (ir/minimalloc_import.h). Rules: every buffer has an offset >= 0; offset + size <= capacity; two buffers whose
// half-open lifetimes [lower, upper) overlap have disjoint byte ranges [offset, offset + size). Up to 4096 buffers
// every pair is compared (as minimalloc's validator does); larger solutions are swept in time, which finds an overlap
// whenever there is one but may list fewer of them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/minimalloc_csv.h"

namespace allocsim {

struct MinimallocCheck {
  std::vector<std::string> violations;  // at most `limit`, in buffer order
  uint64_t height = 0;                  // max offset + size
  bool ok() const { return violations.empty(); }
};

MinimallocCheck checkMinimallocSolution(const MinimallocProblem& solution, uint64_t capacity, size_t limit = 20);

}  // namespace allocsim
