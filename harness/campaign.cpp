#include "harness/campaign.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "alloc/greedy_placer.h"

namespace allocsim {
namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr size_t kKeptFailures = 200;

// Whether a placement without spills exists, as far as the greedy placer finds one (it may miss some: the count it
// feeds is a lower bound).
bool placeableWithoutSpills(const Program& p) {
  try {
    placeGreedy(p);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool sameResult(const CaseOutcome& a, const CaseOutcome& b) {
  return a.status == b.status && a.kind == b.kind && a.exit_code == b.exit_code;
}

}  // namespace

CheckSeeds seedsFor(uint64_t seed) {
  CheckSeeds s;
  s.input_seed = seed;
  s.poison_seed = mix(seed) | 1;
  return s;
}

CaseInput generatedCase(const CampaignOptions& opts, uint64_t index) {
  CaseInput c;
  c.source = "generated";
  c.generated = true;
  c.seed = opts.seed + index;
  // Size and pressure vary from case to case unless fixed: small programs find simple bugs fast, large
  // ones reach deep allocator states; pressure above 100 forces spills.
  SeededChoices knobs(mix(c.seed ^ 0x5a17e5eedull));
  GenOptions g = opts.gen;
  if (!opts.fixed_size) g.size = uint32_t(knobs.range(1, 30));
  // Two cases in three fit the machine (25..100 %): an allocator that does not spill must still be exercised.
  if (!opts.fixed_pressure) g.pressure = uint32_t(knobs.chance(67) ? knobs.range(25, 100) : knobs.range(101, 300));
  // One case in three has DMA patterns (gen/gen_dma_patterns.cpp): spilled, they give the allocator's DMA
  // optimization reloads that abut, repeat or lie one element apart. The other cases are the programs without them.
  if (!opts.fixed_dma_patterns) g.dma_patterns = knobs.chance(33) ? uint32_t(knobs.range(10, 40)) : 0;
  c.size = g.size;
  c.pressure = g.pressure;
  c.reuse = g.reuse;
  c.conditionals = g.conditionals;
  c.dma_patterns = g.dma_patterns;
  SeededChoices choices(c.seed);
  c.program = generateProgram(choices, g);
  c.seeds = seedsFor(c.seed);
  return c;
}

namespace {

// What one campaign's workers share: the next case's index, the stop flag, and (under mu) the result.
struct CampaignRun {
  CampaignRun(Subject& s, const CampaignOptions& o, CampaignResult& r) : subject(s), opts(o), result(r) {}
  Subject& subject;
  const CampaignOptions& opts;
  CampaignResult& result;
  const Clock::time_point start = Clock::now();
  std::mutex mu;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  double slowest_completed = 0;  // the longest run that did not time out

  bool limitReached() const { return opts.seconds > 0 && since(start) >= opts.seconds; }
};

// Counts one case's outcome and keeps it if it failed (the first kKeptFailures); stops the campaign at
// opts.max_failures.
void recordOutcome(CampaignRun& run, CaseInput& input, CaseOutcome& outcome, bool refused_placeable) {
  CampaignResult& result = run.result;
  std::lock_guard<std::mutex> lock(run.mu);
  result.refused_placeable += refused_placeable;
  CampaignProgress& t = result.totals;
  ++t.cases;
  result.allocator_seconds += outcome.seconds;
  if (outcome.kind.what != FailureKind::Class::Timeout)
    run.slowest_completed = std::max(run.slowest_completed, outcome.seconds);
  if (outcome.status == CaseStatus::Pass) ++t.passed;
  if (outcome.simulated) {
    ++result.simulated;
    result.simulated_cycles += outcome.cycles;
  }
  if (outcome.status == CaseStatus::Refused) ++t.refused;
  if (!outcome.failed()) return;
  ++t.failed;
  if (!result.first_failure_seconds) result.first_failure_seconds = since(run.start);
  ++result.failures_by_kind[outcome.kind.name()];
  if (result.failures.size() < kKeptFailures) {
    FailureRecord rec;
    rec.input = std::move(input);
    rec.outcome = std::move(outcome);
    result.failures.push_back(std::move(rec));
  }
  if (run.opts.max_failures && t.failed >= run.opts.max_failures) run.stop = true;
}

// One worker: takes the next case (the corpus first, then generated ones) until the cases, the time or the allowed
// failures run out.
void runCases(CampaignRun& run) {
  const CampaignOptions& opts = run.opts;
  const uint64_t corpus_count = opts.corpus.size();
  while (!run.stop) {
    const uint64_t i = run.next++;
    CaseInput input;
    if (run.limitReached()) break;
    if (i < corpus_count) input = opts.corpus[i];
    else if (opts.runs == 0 || i - corpus_count < opts.runs) input = generatedCase(opts, i - corpus_count);
    else break;
    input.seeds.simulate = opts.simulate;
    CaseOutcome outcome = run.subject.run(input.program, input.seeds);
    const bool refused_placeable = outcome.status == CaseStatus::Refused && placeableWithoutSpills(input.program);
    recordOutcome(run, input, outcome, refused_placeable);
  }
}

// Runs the cases on opts.jobs threads (this one included), reporting progress from another one.
void runWorkers(CampaignRun& run) {
  std::vector<std::thread> threads;
  for (uint32_t j = 1; j < std::max(1u, run.opts.jobs); ++j) threads.emplace_back([&run] { runCases(run); });
  std::thread reporter;
  std::atomic<bool> workers_done{false};
  if (run.opts.progress)
    reporter = std::thread([&] {
      while (!workers_done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        CampaignProgress p;
        {
          std::lock_guard<std::mutex> lock(run.mu);
          p = run.result.totals;
        }
        p.seconds = since(run.start);
        if (!workers_done) run.opts.progress(p);
      }
    });
  runCases(run);
  for (std::thread& t : threads) t.join();
  workers_done = true;
  if (reporter.joinable()) reporter.join();
  run.result.totals.seconds = since(run.start);
}

// Shrinks the first failure of its kind to a smaller program that fails the same way. A timeout costs its full time
// per candidate: candidates get a shorter one, raised only when what they shrank to does not time out under the full
// one.
void shrinkFailure(CampaignRun& run, FailureRecord& rec) {
  const CampaignOptions& opts = run.opts;
  Subject& subject = run.subject;
  const FailureKind& kind = rec.outcome.kind;
  CaseOutcome last = rec.outcome;
  auto stillFails = [&](const Program& candidate) {
    CaseOutcome o = subject.run(candidate, rec.input.seeds);
    if (!o.showsKind(kind)) return false;
    last = std::move(o);
    return true;
  };
  // Nothing to shrink when even the smallest program fails this way.
  const Program smallest = smallestProgram(rec.input.program.arch);
  if (stillFails(smallest)) {
    rec.fails_on_every_input = true;
    rec.minimal = smallest;
    rec.minimal_outcome = last;
    rec.instructions_after = instructionCount(smallest);
    return;
  }
  const double full = subject.timeout();
  const bool timeout = kind.what == FailureKind::Class::Timeout && full > 0;
  const double first_limit = opts.shrink_timeout > 0        ? opts.shrink_timeout
                             : run.slowest_completed > 0 ? std::max(0.1, 4 * run.slowest_completed)
                                                         : 0.25;
  double limit = timeout ? std::min(full, first_limit) : full;
  const auto shrink_start = std::chrono::steady_clock::now();
  ShrinkOptions so = opts.shrink_opts;
  for (;;) {
    if (timeout) subject.setTimeout(limit);
    ShrinkResult sr = shrinkProgram(rec.input.program, stillFails, so);
    if (timeout) subject.setTimeout(full);
    const bool confirmed = !timeout || limit >= full || stillFails(sr.program);
    rec.shrink = sr;
    rec.minimal = sr.program;
    rec.shrunk = true;
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - shrink_start).count();
    if (confirmed) break;
    if (spent >= opts.shrink_opts.max_seconds) {  // nothing smaller is known to time out under the full timeout
      rec.minimal = rec.input.program;
      last = rec.outcome;
      break;
    }
    limit = std::min(full, limit * 4);
    so.max_seconds = std::max(1.0, opts.shrink_opts.max_seconds - spent);
  }
  rec.shrink.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - shrink_start).count();
  rec.candidate_timeout = timeout ? limit : 0;
  rec.minimal_outcome = last;
  rec.instructions_after = instructionCount(rec.minimal);
}

// The first failure of each kind, in the order found: re-run (flaky?), then shrink. Later failures of a kind are kept
// as found (their inputs reproduce them) and counted.
void triageFailures(CampaignRun& run) {
  std::vector<FailureKind> kinds_done;
  for (FailureRecord& rec : run.result.failures) {
    rec.instructions_before = rec.instructions_after = instructionCount(rec.input.program);
    rec.minimal = rec.input.program;
    rec.minimal_outcome = rec.outcome;
    const FailureKind& kind = rec.outcome.kind;
    if (std::find(kinds_done.begin(), kinds_done.end(), kind) != kinds_done.end()) continue;
    kinds_done.push_back(kind);
    rec.first_of_kind = true;
    for (uint32_t k = 0; k < run.opts.reruns; ++k) {
      rec.reruns.push_back(run.subject.run(rec.input.program, rec.input.seeds));
      if (!sameResult(rec.reruns.back(), rec.outcome)) rec.flaky = true;
    }
    if (rec.flaky) ++run.result.flaky;
    if (!run.opts.shrink || rec.flaky) continue;  // a flaky allocator cannot guide a shrinker
    shrinkFailure(run, rec);
  }
}

}  // namespace

// Runs the cases, then triages the failures it kept.
CampaignResult runCampaign(Subject& subject, const CampaignOptions& opts) {
  CampaignResult result;
  CampaignRun run{subject, opts, result};
  runWorkers(run);
  triageFailures(run);
  result.totals.done = true;
  if (opts.progress) opts.progress(result.totals);
  return result;
}

}  // namespace allocsim
