// generateProgram: the statement menu and the driver. The program is built top-level statement by statement
// (each may open loops and recurse), then every live tensor is stored to an output, so that the live set at
// the end is the pool the pressure target sized.
#include "gen/generate.h"

#include <algorithm>

#include "gen/generator.h"

namespace allocsim {
namespace gen {

constexpr uint32_t kLongProgram = 200;  // see run()

void Generator::statement() {
  if (!budgetLeft()) return;
  if (opts_.dma_patterns > 0 && yes(opts_.dma_patterns)) return dmaPatternStatement();
  if (opts_.conditionals > 0 && depth() > 0 && !pool_.empty() && yes(opts_.conditionals))
    return depth() < kMaxLoopDepth && yes(30) ? boundedLoopStatement() : conditionalStatement();
  switch (weighted({6, 10, 18, 5, 12, psumPool_.empty() ? 0u : 3u, 8, depth() < kMaxLoopDepth ? (depth() == 0 ? 12u : 5u) : 0u,
                    pool_.empty() ? 0u : 5u, 5, pool_.empty() ? 0u : 6u})) {
    case 0: return memsetStatement();
    case 1: return loadStatement();
    case 2: return elementwiseStatement();
    case 3: return reduceStatement();
    case 4: return matmulStatement();
    case 5: return evacuatePsum(c_.below(psumPool_.size()));
    case 6: return scalarStatement();
    case 7: return loopStatement();
    case 8: return retire(c_.below(pool_.size()));
    case 9: return nkiOpStatement();
    default: return reachStatement();
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
  if (opts_.fit_dram) workLimit_ = std::min(workLimit_, kFitWork);

  uint32_t i = 0;
  for (; i < size && budgetLeft(); ++i) {
    // Choice 0 stops adding: small sizes draw their length (properties and fuzzers see short programs), and a
    // fuzzer's short input stays a short program. From kLongProgram statements on, the stop is ignored before half
    // of `size` (the draw is made either way, so the choice stream is the same): `--size N` then gives at least N/2
    // top-level statements unless a budget ends the program first (otherwise one early stop would give `gen --seed
    // S` the same program for every large --size).
    if (i > 0 && c_.below(2 * uint64_t(size)) == 0 && (size < kLongProgram || 2 * uint64_t(i) >= size || c_.exhausted()))
      break;
    topLevelLeft_ = size - i;
    statement();
  }
  outcome_.top_level_statements = i;
  outcome_.dram_budget_reached = !dramBudgetLeft();
  outcome_.work_budget_reached = statements_ >= statementLimit_ || work_ >= workLimit_;
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

Program generateProgram(Choices& choices, const GenOptions& opts, GenOutcome& outcome) {
  gen::Generator g(choices, opts);
  Program p = g.run();
  outcome = g.outcome();
  return p;
}

}  // namespace allocsim
