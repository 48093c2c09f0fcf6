// A fuzzing campaign against one allocator: generated programs (then the bundled kernels
// and any corpus programs) go through a Subject, each output is checked, failures are re-run to tell a flaky
// allocator from a deterministic bug, and one failure per finding kind is shrunk (harness/shrink.h) and written
// out (harness/failure_files.h). `allocsim fuzz-allocator` and the in-process runner are thin layers over this.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gen/generate.h"
#include "harness/outcome.h"
#include "harness/shrink.h"
#include "harness/subject.h"

namespace allocsim {

// One input program: generated (seed, size, pressure say how: `allocsim gen` with them prints it) or from a file.
struct CaseInput {
  std::string source;  // "generated" or the file / kernel name
  bool generated = false;
  uint64_t seed = 0;
  uint32_t size = 0, pressure = 0;
  // the generator's mix (GenOptions), for the command that regenerates it
  uint32_t reuse = 0, conditionals = 0, dma_patterns = 0;
  Program program;
  CheckSeeds seeds;
};

struct CampaignProgress {
  uint64_t cases = 0, passed = 0, refused = 0, failed = 0;
  double seconds = 0;
  bool done = false;
};

struct CampaignOptions {
  uint64_t runs = 1000;   // generated cases (after the corpus); 0 = until `seconds` runs out
  double seconds = 0;     // 0 = no time limit
  uint32_t jobs = 1;      // cases run concurrently
  uint64_t seed = 1;      // case i is generated from seed + i
  GenOptions gen;         // arch; size and pressure are drawn per case unless fixed below
  bool fixed_size = false, fixed_pressure = false, fixed_dma_patterns = false;
  std::vector<CaseInput> corpus;  // run first (a few real kernels), then the generated cases
  uint32_t max_failures = 0;      // stop after this many failures (0 = never)
  uint32_t reruns = 2;            // re-runs of a failing case to detect flakiness
  bool shrink = true;
  // A timeout is shrunk with candidates given this many seconds at first (at most the subject's own timeout);
  // when the result does not time out under the full timeout, again with four times as long. 0: four times the
  // slowest run that did not time out (at least 0.1 s; 0.25 s when every run timed out).
  double shrink_timeout = 0;
  bool simulate = true;  // run each passing output on the simulator too (harness/simulated_run.h)
  ShrinkOptions shrink_opts;
  // Called from the campaign's thread about every 0.2 s and at the end.
  std::function<void(const CampaignProgress&)> progress;
};

struct FailureRecord {
  CaseInput input;
  CaseOutcome outcome;
  bool flaky = false;
  std::vector<CaseOutcome> reruns;  // the re-runs' outcomes (differing ones make it flaky)
  bool first_of_kind = false;       // only these are re-run and shrunk
  bool shrunk = false;
  bool fails_on_every_input = false;  // the smallest program (smallestProgram) fails the same way: not shrunk
  double candidate_timeout = 0;       // a timeout's shrinking: the seconds its candidates had in the end
  Program minimal;
  CaseOutcome minimal_outcome;
  ShrinkResult shrink;
  size_t instructions_before = 0, instructions_after = 0;
};

struct CampaignResult {
  CampaignProgress totals;
  std::optional<double> first_failure_seconds;
  std::vector<FailureRecord> failures;  // in the order found (the first 200)
  std::map<std::string, uint64_t> failures_by_kind;
  uint64_t flaky = 0;                   // kinds whose first failure did not repeat the same way
  double allocator_seconds = 0;         // summed over the cases
  uint64_t simulated = 0;               // outputs that ran on the simulator and agreed with the interpreter
  uint64_t simulated_cycles = 0;        // their simulated cycles, summed
  // Refusals of inputs that allocsim's greedy placer (alloc/greedy_placer.h) places without a spill: the allocator
  // gave up where a placement exists. Not a failure (an allocator may be simple), but what a refusal count hides.
  uint64_t refused_placeable = 0;
};

// The input of generated case `index` (deterministic in options and index).
CaseInput generatedCase(const CampaignOptions& opts, uint64_t index);
CheckSeeds seedsFor(uint64_t seed);

CampaignResult runCampaign(Subject& subject, const CampaignOptions& opts);

}  // namespace allocsim
