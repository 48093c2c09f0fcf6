#include "verify/kernel_placements.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/interp.h"
#include "verify/element_text.h"

namespace allocsim {
namespace {

// The last instruction that wrote each element of each output (by TensorId, row-major; null: never written).
class OutputWriters : public ExecObserver {
 public:
  explicit OutputWriters(const Program& p) : p_(p), by_(p.tensors.size()) {
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (p.tensors[t].output) by_[t].assign(uint64_t(p.tensors[t].partitions) * p.tensors[t].elements, nullptr);
  }
  void onExecute(const Instruction& inst, uint64_t, const ExecAccess& access) override {
    for (const ResolvedView& v : access.writes) {
      if (v.tensor >= by_.size() || by_[v.tensor].empty()) continue;
      const uint64_t row = p_.tensors[v.tensor].elements;
      for (uint32_t q = 0; q < v.partitions; ++q)
        for (uint32_t j = 0; j < v.count2; ++j)
          for (uint64_t i = 0; i < v.count; ++i)
            by_[v.tensor][(uint64_t(v.partition) + q) * row + v.offset + uint64_t(j) * v.step2 + i] = &inst;
    }
  }
  const Instruction* writer(TensorId t, uint64_t element) const { return by_[t][element]; }

 private:
  const Program& p_;
  std::vector<std::vector<const Instruction*>> by_;
};

}  // namespace

std::optional<Finding> compareWithUnplacedKernel(const Program& placed, const Program& unplaced,
                                                 uint64_t input_seed) {
  InterpOptions io;
  io.input_seed = input_seed;
  io.record_reads = false;
  const InterpResult b = interpret(unplaced, io);
  OutputWriters writers(placed);
  io.observer = &writers;
  const InterpResult a = interpret(placed, io);
  for (TensorId t = 0; t < placed.tensors.size(); ++t) {
    const Tensor& out = placed.tensors[t];
    if (!out.output) continue;
    const TensorId u = unplaced.findTensor(out.name);
    if (u == kNone || t >= a.outputs.size() || u >= b.outputs.size()) continue;
    const std::vector<uint8_t>& got = a.outputs[t];
    const std::vector<uint8_t>& want = b.outputs[u];
    const uint64_t size = dtypeSize(out.dtype);
    for (uint64_t k = 0; k + size <= got.size() && k + size <= want.size(); k += size) {
      if (std::equal(got.begin() + k, got.begin() + k + size, want.begin() + k)) continue;
      const uint64_t element = k / size;
      const uint32_t p = uint32_t(element / out.elements);
      const uint64_t e = element % out.elements;
      Finding f;
      f.oracle = Oracle::Equivalence;
      f.kind = FindingKind::OutputMismatch;
      const Instruction* w = writers.writer(t, element);
      f.loc = w ? w->loc : out.loc;
      if (w) f.inst_id = w->id;
      const std::string where = "output '" + out.name + "' element [" + std::to_string(p) + ", " + std::to_string(e) + "]";
      f.message = where + " is " + elementText(out.dtype, got.data() + k) + " with the kernel's hand placements and " +
                  elementText(out.dtype, want.data() + k) +
                  " without them: the placements make data share bytes while it is still to be read";
      f.notes.push_back("the reference of the other oracles is the placed kernel itself, which shares those bytes too; "
                        "this compares it with the kernel traced without its placements (input seed " +
                        std::to_string(input_seed) + ")");
      f.notes.push_back("look for a modulo allocation (mod_alloc) with fewer tiles than the blocks in use at once, or "
                        "an address= on bytes another tensor still holds");
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace allocsim
