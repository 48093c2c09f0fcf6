// Which DMAs an instance of the DMA optimization may rewrite (as in the production allocator: "PSUM vs SB is
// data-driven, not two classes": one pass, two instances, selected by MemoryType).
//
//   PSUM instance (dma_optimization_psum)  DMAs with a PSUM operand (is_psum_dma)
//   SB instance   (dma_optimization_sb)    DMAs with an SBUF operand and no PSUM operand
//
// and of those only the DMAs an allocator inserted (spill, reload, copy, or one an earlier DMA-optimization step
// made). The verifier maps the original instructions of an allocated program one for one onto the program it
// stands for (docs/verification.md "The reference program"), so removing, merging or shrinking an original DMA
// would make the allocated program mean a different program; an inserted DMA is the allocator's own traffic.
#pragma once

#include <optional>
#include <vector>

#include "alloc/dma_opt/dma_footprint.h"
#include "ir/program.h"

namespace allocsim {

enum class DmaOptInstance : uint8_t { Psum, Sb };
const char* dmaOptInstanceName(DmaOptInstance i);  // "dma_optimization_psum" / "dma_optimization_sb"

// An inserted dma whose operands are known tensors and which the instance owns.
bool isOptimizable(const Program& p, const Instruction& inst, DmaOptInstance instance);

// The source tensor whose value t holds (following copy_of), or kNone.
TensorId referenceTensor(const Program& p, TensorId t);

// The exact bytes of a plain-run view (dma_footprint.h isPlainRun), or nullopt when only a hull is known (a
// register-indexed view, a second dimension, a placed DRAM tensor, which is row-major).
std::optional<Area> exactArea(const Program& p, const AccessPattern& ap);

// `ap` narrowed to the rows [row, row + rows) and elements [elem, elem + count) of its own view (relative).
AccessPattern subView(const AccessPattern& ap, uint32_t row, uint32_t rows, uint32_t elem, uint32_t count);

// Calls f(body) on the program's body and on every loop body in it (outer first).
template <typename F>
void forEachBody(std::vector<Instruction>& body, F&& f) {
  f(body);
  for (Instruction& i : body)
    if (i.op == Op::Loop) forEachBody(i.body, f);
}

}  // namespace allocsim
