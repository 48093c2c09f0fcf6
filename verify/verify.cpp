#include "verify/verify.h"

#include <chrono>

#include "verify/equivalence.h"
#include "verify/placement.h"
#include "verify/symbolic.h"

namespace allocsim {

std::vector<const Finding*> VerifyReport::of(Oracle o) const {
  std::vector<const Finding*> out;
  for (const Finding& f : findings)
    if (f.oracle == o) out.push_back(&f);
  return out;
}

uint64_t clockPoisonSeed() {
  uint64_t t = uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  // splitmix64's finalizer: nearby clock readings give unrelated seeds.
  t = (t ^ (t >> 30)) * 0xbf58476d1ce4e5b9ull;
  t = (t ^ (t >> 27)) * 0x94d049bb133111ebull;
  t ^= t >> 31;
  return t ? t : 1;
}

namespace {

template <typename F>
void timed(VerifyReport& report, Oracle o, F&& run) {
  OracleRun& r = report.oracles[size_t(o)];
  r.oracle = o;
  auto start = std::chrono::steady_clock::now();
  std::vector<Finding> found = run();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.ran = true;
  r.findings = found.size();
  for (Finding& f : found) report.findings.push_back(std::move(f));
}

}  // namespace

VerifyReport verifyAllocated(const Program& allocated, const VerifyOptions& opts) {
  VerifyReport report;
  for (size_t i = 0; i < report.oracles.size(); ++i) report.oracles[i].oracle = Oracle(i);
  report.poison_seed = opts.poison_seed ? opts.poison_seed : clockPoisonSeed();
  report.against_original = opts.original != nullptr;
  timed(report, Oracle::Equivalence, [&] {
    return checkEquivalence(allocated, EquivalenceOptions{opts.input_seed, report.poison_seed, opts.max_steps, opts.original, opts.progress});
  });
  if (opts.symbolic)
    timed(report, Oracle::Symbolic, [&] { return checkSymbolic(allocated, SymbolicOptions{opts.max_steps, opts.progress}); });
  timed(report, Oracle::Placement,
        [&] { return checkPlacement(allocated, PlacementOptions{opts.original, opts.max_steps, opts.progress}); });
  return report;
}

}  // namespace allocsim
