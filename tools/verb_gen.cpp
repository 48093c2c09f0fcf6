// allocsim gen: print a random well-formed program, or (--stats) measure which shapes the generator makes.
#include <algorithm>
#include <cstdio>

#include "gen/choices.h"
#include "gen/generate.h"
#include "gen/stats.h"
#include "ir/print.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/verbs.h"

namespace allocsim::cli {

// The largest dram-limit an arch takes (ir/arch.cpp).
constexpr uint64_t kLargestDramLimit = uint64_t(1) << 34;

static const char kGenHelp[] =
    "usage: allocsim gen --seed S [--size N] [--pressure P] [--dma-patterns P] [--reuse P] [--conditionals P]\n"
    "                    [--arch tiny|gen1|gen2|gen3] [--KEY VALUE] [-o OUT]\n"
    "       allocsim gen --stats --seeds N [--seed FIRST] [--size N] [--pressure P] [--arch ...] [--json]\n"
    "\n"
    "Prints a random well-formed program: loops, scalar registers (32 and 64 bit), register-indexed\n"
    "DMAs, accumulation groups, partial-partition tensors, every instruction kind. The same seed and\n"
    "options give the same program.\n"
    "\n"
    "  --seed S       seed (required)\n"
    "  --size N       top-level statements: 1 to N, drawn; from N = 200 on, N/2 to N unless the interpretation-\n"
    "                 work budget (which grows with N) ends the program first (default 20, at most 100000); DRAM\n"
    "                 tensors may use a quarter of dram-limit: without --dram-limit it follows the size (the\n"
    "                 preset's limit, doubled until the program fits, up to 17179869184; the program then\n"
    "                 names it); past that limit, or past the one given, loads read sub-rectangles of one\n"
    "                 shared input per dtype and stores overwrite a corner of an earlier output, so any size\n"
    "                 fits unless --dram-limit is too small for those shared tensors themselves\n"
    "  --pressure P   peak live SBUF/PSUM demand in percent of capacity (default 100; >100 forces spills)\n"
    "  --dma-patterns P  percent of statements that are DMA patterns for the DMA optimization (abutting\n"
    "                 reads, repeated reads, a tensor read later over a sub-range only, a dead store,\n"
    "                 reads one element apart; default 0)\n"
    "  --conditionals P  percent of loop-register indexes with // or % (i%2*64) and of statements in loops\n"
    "                 that are `if` blocks or loops bounded by the loop registers (default 20, 0 for\n"
    "                 the programs of earlier versions)\n"
    "  --reuse P      percent of on-chip tensors that recycle a dead tensor of the same shape (a buffer\n"
    "                 written anew after its last read: several values in one tensor; default 25, 0 for\n"
    "                 the programs of earlier versions)\n"
    "  --arch NAME    machine preset (default tiny); --KEY VALUE overrides one field, e.g. --psum-banks 2\n"
    "  -o OUT         write to OUT instead of standard output\n"
    "  --stats        instead of a program, print how often each shape appears over --seeds N programs\n"
    "                 (seeds FIRST .. FIRST+N-1, FIRST = --seed or 0): % of programs containing it and the\n"
    "                 mean count per program; pressure is peak live demand by a static liveness walk\n"
    "  --json         with --stats: print the table as JSON\n"
    "  --seeds N      number of programs for --stats (default 1000, at most 10000000)\n"
    "\n"
    "exit codes: 0 ok, 2 bad usage\n";

int runGen(const Args& args) {
  ArgReader r(args);
  GenOptions opts;
  opts.arch = *archPreset("tiny");
  std::optional<uint64_t> seed;
  std::string out;
  bool stats = false, json = false;
  uint64_t seeds = 1000;
  while (!r.done()) {
    if (r.help(kGenHelp)) return kExitOk;
    if (auto v = r.value("--seed")) seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
    else if (auto v = r.value("--size")) opts.size = uint32_t(ArgReader::toUint("--size", *v, 100000));
    else if (auto v = r.value("--pressure")) opts.pressure = uint32_t(ArgReader::toUint("--pressure", *v, 1000));
    else if (auto v = r.value("--dma-patterns"))
      opts.dma_patterns = uint32_t(ArgReader::toUint("--dma-patterns", *v, 100));
    else if (auto v = r.value("--conditionals"))
      opts.conditionals = uint32_t(ArgReader::toUint("--conditionals", *v, 100));
    else if (auto v = r.value("--reuse")) opts.reuse = uint32_t(ArgReader::toUint("--reuse", *v, 100));
    else if (auto v = r.value("-o")) out = *v;
    else if (r.flag("--stats")) stats = true;
    else if (r.flag("--json")) json = true;
    else if (auto v = r.value("--seeds")) seeds = ArgReader::toUint("--seeds", *v, 10'000'000);
    else if (r.archOption(opts.arch)) continue;
    else r.unknown();
  }
  std::string err = validateArch(opts.arch);
  if (!err.empty()) throw UsageError(err);
  if (stats) {
    ShapeTally tally;
    for (uint64_t i = 0; i < seeds; ++i) {
      SeededChoices choices(seed.value_or(0) + i);
      tally.add(generateProgram(choices, opts));
    }
    writeOutput(out, json ? tally.json() : tally.table());
    return kExitOk;
  }
  if (json) throw UsageError("--json goes with --stats (a program prints as program text)");
  if (!seed) throw UsageError("gen needs --seed S");
  if (opts.size == 0) throw UsageError("--size must be at least 1, got 0 (a program has at least one top-level statement)");
  GenOutcome outcome;
  auto generate = [&] {
    SeededChoices choices(*seed);
    outcome = {};
    return generateProgram(choices, opts, outcome);
  };
  Program p = generate();
  // Unless --dram-limit is given, the DRAM follows the size: a program that reached the generator's DRAM budget is
  // made again on a machine with twice the DRAM, up to the largest limit (the program then names its dram-limit).
  const bool dram_given = std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a.rfind("--dram-limit", 0) == 0;
  });
  while (outcome.dram_budget_reached && !dram_given && opts.arch.dram_limit < kLargestDramLimit) {
    // Doubled at least as often as the statements drawn so far go into the size (each try costs a whole program).
    uint64_t limit = opts.arch.dram_limit * 2;
    for (uint64_t made = std::max<uint32_t>(1, outcome.top_level_statements) * 2; made < opts.size / 2; made *= 2) limit *= 2;
    opts.arch.dram_limit = std::min(kLargestDramLimit, limit);
    p = generate();
  }
  // Past the largest limit (or the one given), loads and stores share DRAM tensors once the budget runs short.
  if (outcome.dram_budget_reached) {
    opts.fit_dram = true;
    p = generate();
  }
  if (outcome.dram_budget_reached)  // a larger --size would give this same program: say so rather than print it as if honoured
    throw UsageError("--size " + std::to_string(opts.size) + " is more than the " + opts.arch.name +
                     " machine's DRAM allows: the generator stops adding statements when its DRAM tensors reach a "
                     "quarter of dram-limit (" + std::to_string(opts.arch.dram_limit) +
                     " bytes), even with loads and stores sharing tensors" +
                     (opts.arch.dram_limit < kLargestDramLimit
                          ? "; raise it with --dram-limit N (at most " + std::to_string(kLargestDramLimit) +
                                ", or leave it out: it then follows the size) or lower --size"
                          : "; lower --size"));
  writeOutput(out, printProgram(p));
  return kExitOk;
}

}  // namespace allocsim::cli
