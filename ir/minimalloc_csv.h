// minimalloc's problem format (google/minimalloc, Apache-2.0; benchmarks in bench/minimalloc/): a CSV with the
// header `id,lower,upper,size[,offset]`, one buffer per line: `size` bytes live over the half-open interval
// [lower, upper). A solution adds `offset`. The capacity is not in the file (minimalloc takes it as a flag; the
// benchmark files carry it in their name, A.1048576.csv).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/progress.h"

namespace allocsim {

struct MinimallocBuffer {
  std::string id;
  int64_t lower = 0;  // live over [lower, upper)
  int64_t upper = 0;
  int64_t size = 0;
  std::optional<int64_t> offset;
  SourceLoc loc;
};

struct MinimallocProblem {
  std::vector<MinimallocBuffer> buffers;
};

// Parses the CSV. Throws InputError (file:line:col) on a bad header, a missing or malformed field, a
// duplicate id, size <= 0, lower < 0 or lower >= upper, and on a file with no buffers (a header alone).
// `progress` (may be null) hears the lines read, phase "reading the file".
MinimallocProblem parseMinimallocCsv(const std::string& text, const ProgressFn* progress = nullptr);

// The CSV, with the offset column when every buffer has an offset.
std::string printMinimallocCsv(const MinimallocProblem& p);

// The capacity a benchmark file name carries ("dir/A.1048576.csv" -> 1048576), if any.
std::optional<uint64_t> capacityFromFileName(const std::string& path);

// Max over time of the bytes live at once: no placement fits in less (the lower bound of every table).
uint64_t maxLiveBytes(const MinimallocProblem& p);

// Where the buffers live at once first need more than `capacity` bytes: the buffer whose start takes them over
// (the starts at one time taken in file order, after the ends there), the time and the bytes live then. A problem
// with such a point has no placement within `capacity`; nullopt when there is none.
struct LiveExcess {
  size_t buffer = 0;  // index in p.buffers
  int64_t time = 0;
  uint64_t live = 0;
};
std::optional<LiveExcess> firstLiveExcess(const MinimallocProblem& p, uint64_t capacity);

// Where the most buffers are live at once (the first such time): a buffer that starts there (the last in file order)
// and how many are live. The exact search's tables grow with the pairs of buffers live at once.
struct LiveCrowd {
  size_t buffer = 0;  // index in p.buffers
  int64_t time = 0;
  uint64_t count = 0;
};
LiveCrowd mostBuffersLive(const MinimallocProblem& p);

}  // namespace allocsim
