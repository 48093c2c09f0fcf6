// "No false alarm on 10,000 correct allocated programs from the generator": generated programs,
// several seeds, sizes and pressures, mostly on the tiny machine and some on gen2, each placed by placeGreedy
// and by placeNoReuse (when they fit), must pass all three oracles. Programs are generated until the requested
// number has been allocated by at least one placer (programs neither fits are skipped and counted). CI runs a
// bounded number; the full run is
//   ALLOCSIM_NO_FALSE_ALARM_PROGRAMS=10000 build/props/allocsim_props --gtest_filter='NoFalseAlarm.*'
// (ci/long_checks.sh), which prints programs checked and the time per check.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "alloc/no_reuse.h"
#include "gen/generate.h"
#include "ir/print.h"
#include "props/regression_file.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

uint64_t programCount() {
  const char* env = std::getenv("ALLOCSIM_NO_FALSE_ALARM_PROGRAMS");
  if (!env || !*env) return 200;
  return std::strtoull(env, nullptr, 10);
}

// Program i of the run: every 100th on gen2 (small: one gen2 check costs as much as several hundred tiny
// ones), the rest tiny; three tiny programs in four with 16 SP registers instead of 4, since neither
// placer spills and the generator's register demand usually exceeds 4. Pressures mostly at or below capacity.
GenOptions optionsFor(uint64_t i) {
  static const uint32_t kPressures[] = {25, 50, 75, 100, 150};
  GenOptions o;
  if (i % 100 == 99) {
    o.arch = *archPreset("gen2");
    o.size = 1 + uint32_t(i % 3);
  } else {
    o.arch = *archPreset("tiny");
    if (i % 4) o.arch.sp_registers = 16;
    o.size = 1 + uint32_t(i % 40);
  }
  o.pressure = kPressures[(i / 3) % 5];
  return o;
}

using Placer = Program (*)(const Program&);
const std::pair<const char*, Placer> kPlacers[] = {{"greedy", placeGreedy}, {"no_reuse", placeNoReuse}};

TEST(NoFalseAlarm, GeneratedProgramsPlacedByBothPlacersPassAllOracles) {
  const uint64_t wanted = programCount();
  uint64_t programs = 0, allocatedPrograms = 0, checks = 0, didNotFit = 0, gen2Checks = 0;
  double seconds[3] = {}, slowest = 0, gen2Seconds = 0;
  for (uint64_t i = 0; allocatedPrograms < wanted && i < 10 * wanted; ++i) {
    SeededChoices choices(1'000'003 * i + 17);
    const GenOptions opts = optionsFor(i);
    const Program p = generateProgram(choices, opts);
    ++programs;
    const uint64_t checksBefore = checks;
    for (auto [name, place] : kPlacers) {
      Program allocated;
      try {
        allocated = place(p);
      } catch (const AllocError&) {
        ++didNotFit;
        continue;
      }
      CorrectnessOptions check;
      check.input = &p;
      check.verify.poison_seed = i + 1;
      const Verdict v = checkAllocation(allocated, check);
      if (v.defect != Defect::None && v.defect != Defect::Findings) {
        const std::string why = describeDefect(v, "allocated");
        saveRegression(std::string("no_false_alarm_") + name, p, why);
        FAIL() << "program " << i << " (" << name << "): " << why << printProgram(allocated);
      }
      const VerifyReport& r = v.report;
      double total = 0;
      for (size_t o = 0; o < 3; ++o) {
        seconds[o] += r.oracles[o].seconds;
        total += r.oracles[o].seconds;
      }
      slowest = std::max(slowest, total);
      ++checks;
      if (opts.arch.name == "gen2") {
        ++gen2Checks;
        gen2Seconds += total;
      }
      if (!r.ok()) {
        saveRegression(std::string("no_false_alarm_") + name, p, describeDefect(v, "allocated"));
        FAIL() << "program " << i << " (" << opts.arch.name << ", size " << opts.size << ", pressure "
               << opts.pressure << ", " << name << "): " << describeDefect(v, "allocated")
               << printProgram(allocated);
      }
    }
    allocatedPrograms += checks > checksBefore;
  }
  double all = seconds[0] + seconds[1] + seconds[2];
  std::printf("no false alarm: %llu programs generated, %llu allocated and verified, %llu allocations checked "
              "(%llu placements did not fit)\n"
              "time per check: %.3f ms mean (equivalence %.3f, symbolic %.3f, placement %.3f), %.1f ms slowest\n",
              (unsigned long long)programs, (unsigned long long)allocatedPrograms, (unsigned long long)checks,
              (unsigned long long)didNotFit,
              checks ? 1e3 * all / double(checks) : 0.0, checks ? 1e3 * seconds[0] / double(checks) : 0.0,
              checks ? 1e3 * seconds[1] / double(checks) : 0.0, checks ? 1e3 * seconds[2] / double(checks) : 0.0,
              1e3 * slowest);
  std::printf("  tiny: %llu checks, %.3f ms mean; gen2: %llu checks, %.3f ms mean\n",
              (unsigned long long)(checks - gen2Checks),
              checks > gen2Checks ? 1e3 * (all - gen2Seconds) / double(checks - gen2Checks) : 0.0,
              (unsigned long long)gen2Checks, gen2Checks ? 1e3 * gen2Seconds / double(gen2Checks) : 0.0);
  EXPECT_EQ(allocatedPrograms, wanted);  // else the generator's programs mostly do not fit: the run checks little
}

}  // namespace
}  // namespace allocsim
