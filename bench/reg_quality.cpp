#include "bench/reg_quality.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/liveness.h"
#include "bench/bench_support.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/parse.h"
#include "verify/register_demand.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// The generated-program measurement: seeds 0 .. kSeeds-1, `allocsim gen --seed S --size 20` on tiny, at the
// levels that allocate from scratch. A case is one (seed, level) whose SBUF and PSUM fit: the same program
// allocates at that level when the machine has 64 registers.
constexpr uint64_t kSeeds = 100;
constexpr int kLevels[] = {0, 1, 2, 3, 6, 8};

// The most register lanes live at one position of the input's linear order (alloc/liveness.h).
uint32_t maxLiveLanes(const Program& p) {
  const Liveness live = computeLiveness(p);
  std::map<uint32_t, int64_t> delta;  // position -> change in live lanes
  for (RegId r = 0; r < live.registers.size(); ++r) {
    const LiveRange& x = live.registers[r];
    if (x.empty()) continue;
    delta[x.first] += p.registers[r].lanes();
    delta[x.last + 1] -= p.registers[r].lanes();
  }
  int64_t cur = 0, best = 0;
  for (const auto& [pos, d] : delta) best = std::max(best, cur += d);
  return uint32_t(best);
}

RegStats regStats(const DriverResult& r) {
  const RegStats* s = findStep<RegStats>(r);
  return s ? *s : RegStats{};
}

std::vector<std::pair<std::string, Program>> kernels(const std::string& source_dir) {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"/corpus/kernels", "/corpus/register_kernels"})
    for (const auto& e : std::filesystem::directory_iterator(source_dir + dir)) {
      const std::string name = e.path().filename().string();
      if (name.ends_with(".nki.txt") && !name.ends_with(".allocated.nki.txt")) files.push_back(e.path());
    }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, Program>> out;
  for (const auto& path : files) {
    const std::string name = path.parent_path().filename().string() + "/" + path.filename().string();
    out.push_back({name.substr(0, name.size() - 8), parseProgram(bench::readFile(path))});
  }
  return out;
}

std::string spillTable(const std::string& source_dir) {
  std::string out =
      "\n## REG spills against the register lower bounds\n\n"
      "The REG colorer (`alloc/reg/`) at O2, per kernel. *max-live*: the most SP register lanes live at one\n"
      "position of the input (`alloc/liveness.h`; a 64-bit register counts two lanes; over the input's registers,\n"
      "before the SSA split, so an over-approximation of what must be live). *unavoidable*: the lanes some\n"
      "instruction names at once (`verify/register_demand.h`; everything else, loop registers included, can wait in\n"
      "memory): above the machine's lanes no allocation exists. *excess*: max-live minus the\n"
      "machine's lanes; with no excess no register needs to spill. *spilled*: registers the colorer spilled, with\n"
      "the reg_store / reg_load instructions it inserted and their cycles (`Spilling from REG cost about N cycles`);\n"
      "a spilled loop register counts one.\n\n"
      "| kernel | lanes | max-live | unavoidable | excess | spilled | stores / reloads | spill cycles | lanes used |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& [name, p] : kernels(source_dir)) {
    const uint32_t R = p.arch.sp_registers, live = maxLiveLanes(p);
    const RegisterDemand d = registerDemand(p);
    out += "| " + name + " | " + std::to_string(R) + " | " + std::to_string(live) + " | " +
           std::to_string(d.unavoidable_lanes) + " | " + std::to_string(live > R ? live - R : 0) + " | ";
    DriverOptions o;
    o.optlevel = 2;
    try {
      const DriverResult r = allocate(p, o);
      out += std::to_string(int64_t(regStats(r).spilled)) + " | " + std::to_string(int64_t(regStats(r).spill_stores)) + " / " +
             std::to_string(int64_t(regStats(r).spill_reloads)) + " | " + std::to_string(int64_t(regStats(r).spill_cycles)) +
             " | " + std::to_string(int64_t(regStats(r).lanes_used)) + " |\n";
    } catch (const AllocError& e) {
      std::string why = e.what();
      out += "*does not fit*: " + why.substr(0, std::min<size_t>(60, why.find(':'))) + " | | | |\n";
    }
  }
  return out;
}

std::string generatedTable() {
  uint64_t fits = 0, allocated = 0, spilled = 0, impossible = 0, other = 0, loop_spilled = 0, coalesced = 0,
           nest_bound = 0, verified = 0;
  std::map<int, std::pair<uint64_t, uint64_t>> by_level;  // level -> (allocated, fits)
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    SeededChoices c(seed);
    const Program p = generateProgram(c, GenOptions{*archPreset("tiny"), 20, 100});
    const RegisterDemand d = registerDemand(p);
    for (int level : kLevels) {
      DriverOptions o;
      o.optlevel = level;
      Program wide = p;
      wide.arch.sp_registers = 64;
      try {
        allocate(wide, o);
      } catch (const AllocError&) {
        continue;  // SBUF or PSUM does not fit: not a case for REG
      }
      ++fits;
      ++by_level[level].second;
      try {
        const DriverResult r = allocate(p, o);
        ++allocated;
        ++by_level[level].first;
        spilled += int64_t(regStats(r).spilled) > 0;
        loop_spilled += int64_t(regStats(r).spilled_loop_registers) > 0;
        coalesced += int64_t(regStats(r).coalesced_copies) > 0;
        nest_bound += d.nest_lanes > p.arch.sp_registers;
        CorrectnessOptions check;
        check.input = &p;
        check.verify.poison_seed = seed + 1;
        const Verdict v = checkAllocation(r.program, check);
        verified += v.ok() && std::all_of(v.report.oracles.begin(), v.report.oracles.end(),
                                          [](const OracleRun& o) { return o.ran; });
      } catch (const AllocError&) {
        (d.unavoidable_lanes > p.arch.sp_registers ? impossible : other) += 1;
      }
    }
  }
  auto pct = [](uint64_t a, uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f%%", b ? 100.0 * double(a) / double(b) : 0.0);
    return std::string(buf);
  };
  std::string out =
      "\n## Generated programs on the real tiny register file\n\n"
      "`allocsim gen --seed S --size 20` for S = 0 .. " + std::to_string(kSeeds - 1) +
      " on the tiny preset (4 SP registers), allocated at -O0, -O1, -O2, -O3,\n"
      "-O6 and -O8. A case is a (program, level) whose SBUF and PSUM demand fits (it allocates at that level with 64\n"
      "registers). *impossible*: refused, and the register bound (`verify/register_demand.h`) proves no allocation\n"
      "exists; *other*: refused without that proof. Every allocated case is checked here as the tests check one\n"
      "(`checkAllocation` with its program as the input: well-formed, implementing it, and passing the three\n"
      "oracles); the test `RegGenerated.*` does the same on seeds 0 .. 29 at every level but O8.\n\n"
      "| level | allocated / cases |\n|---|---:|\n";
  for (const auto& [level, af] : by_level)
    out += "| -O" + std::to_string(level) + " | " + std::to_string(af.first) + " / " + std::to_string(af.second) +
           " |\n";
  out += "\nIn all: " + std::to_string(allocated) + " of " + std::to_string(fits) + " cases allocate (" +
         pct(allocated, fits) + "; " + std::to_string(spilled) + " with register spills, " +
         std::to_string(loop_spilled) + " of them spilling a loop register, " + std::to_string(coalesced) +
         " with coalesced copies; " + std::to_string(nest_bound) +
         " need more lanes than the machine has if loop registers cannot spill); refused: " +
         std::to_string(impossible) + " impossible, " + std::to_string(other) +
         " other.\nAmong the cases not proved impossible: " + std::to_string(allocated) + " of " +
         std::to_string(fits - impossible) + " (" + pct(allocated, fits - impossible) + ").\nAllocated cases that pass"
         " the correctness check: " + std::to_string(verified) + " of " + std::to_string(allocated) + ".\n";
  return out;
}

}  // namespace

std::string regQualityTables(const std::string& source_dir) { return spillTable(source_dir) + generatedTable(); }

}  // namespace allocsim
