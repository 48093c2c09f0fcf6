// The generator's reach, measured (`allocsim gen --stats`): which shapes a program contains, and how often
// they appear over many seeds. An allocator bug in a shape the generator never makes is never found, so
// the generator's coverage is counted rather than assumed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// One measured property of one program: a count (a program "contains" it when the count is > 0) or a
// yes/no flag (count 0 or 1).
struct ShapeFeature {
  std::string name;
  uint64_t count = 0;
  bool is_flag = false;  // flags print as "% of programs" only; counts also print their mean
};

// Peak demand by a simple static liveness walk: instructions in program order (loops once); a tensor or
// register is live from its first to its last access, extended over a whole loop when it is accessed inside
// the loop and also before or after it (a value carried around the loop).
struct PeakDemand {
  uint64_t sbuf_bytes = 0;     // sum of live SBUF tensors' bytes (partitions x bytes per partition)
  uint32_t psum_banks = 0;     // sum of live PSUM tensors' banks (ceil(bytes per partition / bank bytes))
  uint32_t register_lanes = 0;  // sum of live registers' lanes (a 64-bit register takes two)
};
PeakDemand peakDemand(const Program& p);

// Every feature of `p`, always the same names in the same order (so tallies line up across programs):
// loop nesting depth (one flag per depth), 64-bit registers, accumulation groups and K-loop groups,
// register-indexed views, partition-indexed DRAM views, partial-partition tensors, second-dimension views,
// each instruction kind, tensors of each dtype, PSUM tensors by bank count, the loop-edge and live-range-boundary
// shapes (registers and tensors carried around a back edge, values leaving a loop, partial then whole writes, in-place
// candidates at and one instruction short of the boundary), and pressure above each capacity.
std::vector<ShapeFeature> measureShape(const Program& p);

// Counts features over many programs.
class ShapeTally {
 public:
  void add(const Program& p);
  uint64_t programs() const { return programs_; }
  // Programs in which feature `name` has a non-zero count; 0 for an unknown name.
  uint64_t containing(const std::string& name) const;
  // A table: feature, % of programs containing it, mean count per program (counts only).
  std::string table() const;
  // The same as one JSON object: {"programs": N, "features": [{"name", "flag", "programs", "percent"[, "total",
  // "mean"]}, ...]}.
  std::string json() const;

 private:
  struct Row {
    std::string name;
    bool is_flag = false;
    uint64_t containing = 0;
    uint64_t total = 0;
  };
  std::vector<Row> rows_;
  uint64_t programs_ = 0;
};

}  // namespace allocsim
