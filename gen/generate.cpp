// generateProgram: the statement menu and the driver. The program is built top-level statement by statement
// (each may open loops and recurse), then every live tensor is stored to an output, so that the live set at
// the end is the pool the pressure target sized.
#include "gen/generate.h"

#include <algorithm>

#include "gen/generator.h"

namespace allocsim {
namespace gen {

void Generator::statement() {
  if (!budgetLeft()) return;
  if (opts_.dma_patterns > 0 && yes(opts_.dma_patterns)) return dmaPatternStatement();
  switch (weighted({6, 10, 18, 5, 12, psumPool_.empty() ? 0u : 3u, 8, depth() < kMaxLoopDepth ? (depth() == 0 ? 12u : 5u) : 0u,
                    pool_.empty() ? 0u : 5u})) {
    case 0: return memsetStatement();
    case 1: return loadStatement();
    case 2: return elementwiseStatement();
    case 3: return reduceStatement();
    case 4: return matmulStatement();
    case 5: return evacuatePsum(c_.below(psumPool_.size()));
    case 6: return scalarStatement();
    case 7: return loopStatement();
    default: return retire(c_.below(pool_.size()));
  }
}

Program Generator::run() {
  const Arch& arch = prog_.arch;
  const uint64_t capacity = uint64_t(arch.sbuf_partitions) * arch.sbuf_bytes;
  sbufTarget_ = std::max<uint64_t>(1, capacity * opts_.pressure / 100);
  psumTarget_ = std::max<uint32_t>(1, uint32_t((uint64_t(arch.psum_banks) * opts_.pressure + 50) / 100));
  poolSlots_ = 2 + uint32_t(upTo(4));
  const uint32_t size = std::max<uint32_t>(1, opts_.size);
  statementLimit_ = 16 + 10 * size;
  // Interpretation work (bytes touched, loops multiplied out) in units of SBUF capacity.
  workLimit_ = capacity * (8 + 2 * uint64_t(size));

  for (uint32_t i = 0; i < size && budgetLeft(); ++i) {
    if (i > 0 && c_.below(2 * uint64_t(size)) == 0) break;  // choice 0: stop adding
    statement();
  }
  dramBudgetReached_ = !dramBudgetLeft();
  flush();
  bool anyOutput = std::any_of(prog_.tensors.begin(), prog_.tensors.end(), [](const Tensor& t) { return t.output; });
  if (!anyOutput) {
    memsetStatement();
    flush();
  }
  prog_.body = std::move(bodies_.front());
  prog_.renumber();
  return std::move(prog_);
}

}  // namespace gen

Program generateProgram(Choices& choices, const GenOptions& opts) {
  gen::Generator g(choices, opts);
  return g.run();
}

Program generateProgram(Choices& choices, const GenOptions& opts, bool& dram_budget_reached) {
  gen::Generator g(choices, opts);
  Program p = g.run();
  dram_budget_reached = g.dramBudgetReached();
  return p;
}

}  // namespace allocsim
