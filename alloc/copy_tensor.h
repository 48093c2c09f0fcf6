// Tensors that spill code inserts as copies of an original tensor: the spill slot that holds its value and the
// reload stand-in that an instruction uses in its place. Shared by the PSUM and SBUF spill writers, which run
// one Chaitin–Briggs skeleton (as in the production allocator) and mint the same copies; only the slot's memory
// differs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/program.h"

namespace allocsim {

// A spill slot for `original` (tensor `of`) in `space`: same shape and dtype, origin Spill, declared where the
// original is. Unnamed and unplaced: addCopyTensor names it.
Tensor spillSlotOf(const Tensor& original, TensorId of, Space space);

// A reload stand-in for tensor `of`: the tensor itself (same space, shape and dtype), unplaced and unpinned,
// origin Reload.
Tensor reloadStandInOf(const Program& p, TensorId of);

// Appends `copy` to p.tensors under a fresh name: the name of the tensor it copies (copy.copy_of), `suffix`
// and the first number from next_id on (incremented past every number tried) that names no tensor or
// register. Returns its id.
TensorId addCopyTensor(Program& p, Tensor copy, const char* suffix, uint32_t& next_id);

// The names of a program's tensors and registers, for a writer that mints many copies: each name is looked up in
// a hash set instead of a scan of every tensor and register (a scan would make the SBUF spill
// rewrite O(spilled x tensors)). The set holds the names'
// hashes in one flat open-addressing table (a node per name cost an allocation each, every spill round); a hash
// that is present is confirmed by a scan of the program, which happens only for a name that is taken (or collides).
// `p` must outlive it and hold every added name by the next lookup (addCopyTensor adds the tensor at once).
class TakenNames {
 public:
  explicit TakenNames(const Program& p);
  bool contains(const std::string& name) const;
  void add(const std::string& name);

 private:
  void insertHash(uint64_t h);
  const Program& p_;
  std::vector<uint64_t> slots_;  // power-of-two size, 0 = empty; a hash of 0 is stored as 1
  size_t used_ = 0;
};

// The same, with `taken` holding every name of `p` (kept so: the new name is added): the same name as above.
TensorId addCopyTensor(Program& p, Tensor copy, const char* suffix, uint32_t& next_id, TakenNames& taken);

// Where an error about a (possibly inserted) tensor points: its own declaration, else that of the tensor it
// copies.
SourceLoc declarationLoc(const Program& p, TensorId t);

}  // namespace allocsim
