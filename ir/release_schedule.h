// When a tensor's storage can be let go during a run: after the last top-level statement that names it. A run
// that keeps every tensor's bytes (or an oracle's per-element bookkeeping) until the end needs memory for the
// whole program's data, which grows with its length; released at its last mention, it needs the data of the
// tensors in use (memory bounded by the machine plus the live items, not by the program).
// Whole top-level statements keep this static and safe: a loop names the same tensors on every iteration, so a
// tensor named anywhere inside a top-level loop is released only once that loop has finished.
// Outputs are never released (they are read after the run), nor are tensors no statement names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ir/program.h"

namespace allocsim {

class ReleaseSchedule {
 public:
  ReleaseSchedule() = default;
  explicit ReleaseSchedule(const Program& p);
  // The tensors whose last mention is top-level statement `statement` (an index into Program::body).
  std::span<const TensorId> after(size_t statement) const { return after_.of(statement); }
  bool releases(TensorId t) const { return t < flags_.size() && (flags_[t] & kReleased); }
  // The outputs whose last mention is statement `statement`: their values are final from then on (a checker may
  // judge them there and drop its bookkeeping; the storage keeps them for the end of the run).
  std::span<const TensorId> finalAfter(size_t statement) const { return final_.of(statement); }
  // The inputs of their own (unplaced DRAM: nothing else shares their bytes) first named by statement
  // `statement`: a run may load them just before it instead of before the run.
  std::span<const TensorId> before(size_t statement) const { return before_.of(statement); }
  bool loadsLate(TensorId t) const { return t < flags_.size() && (flags_[t] & kLate); }

 private:
  // One list per statement, all in one array (statement s's are [start[s], start[s + 1])): every run of the
  // interpreter builds a schedule, and a vector per statement was most of its heap allocations.
  struct Lists {
    std::vector<uint32_t> start;
    std::vector<TensorId> items;
    std::span<const TensorId> of(size_t s) const {
      if (s + 1 >= start.size()) return {};
      return {items.data() + start[s], items.data() + start[s + 1]};
    }
  };
  Lists after_, before_, final_;
  static constexpr uint8_t kLate = 1, kReleased = 2;
  std::vector<uint8_t> flags_;  // by tensor: kLate (loadsLate), kReleased (releases)
};

}  // namespace allocsim
