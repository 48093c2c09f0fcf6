// The example allocators fuzzed in-process (harness/campaign.h with an InProcessSubject): no process per case, so
// this measures what the harness itself costs per case against `allocsim fuzz-allocator -- first_fit` (README).
//   first_fit_campaign [--half-open] [--runs N] [--jobs J] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness/campaign.h"
#include "harness/shrink.h"
#include "interval_first_fit.h"
#include "ir/print.h"

int main(int argc, char** argv) {
  example::LiveEnd end = example::LiveEnd::Inclusive;
  allocsim::CampaignOptions opts;
  opts.runs = 1000;
  opts.gen.arch = *allocsim::archPreset("tiny");
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--half-open")) end = example::LiveEnd::Exclusive;
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc) opts.runs = std::strtoull(argv[++i], nullptr, 10);
    else if (!std::strcmp(argv[i], "--jobs") && i + 1 < argc) opts.jobs = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) opts.seed = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--half-open] [--runs N] [--jobs J] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  example::IntervalFirstFit allocator(end);
  allocsim::InProcessSubject subject(allocator, "first fit (in-process)");
  opts.max_failures = end == example::LiveEnd::Exclusive ? 1 : 0;
  allocsim::CampaignResult r = allocsim::runCampaign(subject, opts);
  const auto& t = r.totals;
  std::printf("first_fit_campaign: %llu cases in %.1f s (%.1f cases/s): %llu passed, %llu refused, %llu failed\n",
              (unsigned long long)t.cases, t.seconds, t.seconds > 0 ? double(t.cases) / t.seconds : 0.0,
              (unsigned long long)t.passed, (unsigned long long)t.refused, (unsigned long long)t.failed);
  if (r.simulated > 0)
    std::printf("  %llu outputs simulated, agreeing with the interpreter, in %llu cycles in total\n",
                (unsigned long long)r.simulated, (unsigned long long)r.simulated_cycles);
  for (const allocsim::FailureRecord& f : r.failures) {
    if (!f.first_of_kind) continue;
    std::printf("  %s after %.2f s, seed %llu: shrunk from %zu to %zu instructions in %.2f s%s\n%s",
                f.outcome.kind.name().c_str(), r.first_failure_seconds.value_or(0), (unsigned long long)f.input.seed,
                f.instructions_before, f.instructions_after, f.shrink.seconds, f.flaky ? " (FLAKY)" : "",
                allocsim::printProgram(f.minimal).c_str());
    std::printf("  %s\n", f.minimal_outcome.message.c_str());
  }
  return t.failed ? 1 : 0;
}
