// The "Liveness precision against the data" section of docs/quality.md: how far the allocators' static liveness
// (alloc/liveness.h) is from what the data needs, on the corpus kernels and on generated programs that reuse
// tensors (verify/liveness_precision.h). Three maxima per space, SBUF bytes per partition and PSUM banks:
//   static      the allocators' live ranges, over the linear positions and the iterations a range narrows
//               (alloc/liveness.h, "Iterations");
//   positional  the interpreter's dynamic liveness folded onto the same positions (a tensor live at a position when
//               it is live at some step executing it): the least any liveness over positions alone can claim;
//   dynamic     the interpreter's, over steps.
// static > positional: a range is wider than the data needs. positional > dynamic: tensors are live at one position
// in different iterations of its loops, which one position cannot tell apart; static below positional: the ranges'
// iterations tell them apart. For generated programs also the static figure on any iteration (every position of a
// segment live on every iteration), which is what a placement needs. Every figure is deterministic.
//
//   liveness_report [SEEDS [FIRST [SIZE]]]
//       prints the section (markdown) on stdout: SEEDS generated programs per mix (100), seeds FIRST (0) on, the
//       generator's --size SIZE (30); on stderr, one line per generated program whose static figure exceeds the
//       dynamic one (mix, seed, space, static / dynamic), to pick the programs to look at.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "bench/bench_support.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/diag.h"
#include "ir/parse.h"
#include "verify/liveness_precision.h"
#include "verify/memory_bounds.h"

namespace allocsim {
namespace {

std::string fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

std::string ratio(uint64_t a, uint64_t b) { return b ? fixed2(double(a) / double(b)) : "-"; }

// Per corpus kernel: the three maxima per space and the -O2 peak (SBUF bytes, PSUM banks) against the dynamic max-live
// of the program -O2 places (the spilled one where it spills).
std::string corpusTable() {
  std::string out =
      "| kernel | SBUF static / positional / dynamic | ratio | -O2 SBUF peak / dynamic | PSUM static / positional / "
      "dynamic | ratio | -O2 PSUM banks / dynamic |\n|---|---:|---:|---:|---:|---:|---:|\n";
  std::vector<std::string> files;
  for (const char* dir : {"/corpus/kernels", "/corpus/liveness", "/corpus/nki_samples"})
    for (const auto& e : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + dir))
      if (e.path().string().ends_with(".nki.txt") && !e.path().string().ends_with(".allocated.nki.txt"))
        files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    const Program p = parseProgram(bench::readFile(f));
    PrecisionOptions po;
    po.positional = true;
    const LivenessPrecision lp = livenessPrecision(p, po);
    std::string peak = "*refused*", banks = "*refused*";
    try {
      DriverOptions o;
      o.optlevel = 2;
      const Program out = allocate(p, o).program;
      const MemoryUse use = memoryUse(out);
      // A spilled program holds other data than the input: its spill slots and reloaded copies, not the spilled
      // tensors while they wait in DRAM. Its placement is measured against its own dynamic max-live.
      const LivenessPrecision ran = use.spilled_tensors ? livenessPrecision(out) : lp;
      peak = std::to_string(use.sbuf_peak) + " / " + std::to_string(ran.dynamic_sbuf_bytes) + " = " +
             ratio(use.sbuf_peak, ran.dynamic_sbuf_bytes) + (use.spilled_tensors ? " (spilled program)" : "");
      banks = std::to_string(use.psum_banks) + " / " + std::to_string(ran.dynamic_psum_banks);
    } catch (const AllocError&) {
    }
    const std::filesystem::path path(f);
    const std::string file = path.filename().string();  // NAME.nki.txt
    const std::string name = path.parent_path().filename().string() + "/" + file.substr(0, file.size() - 8);
    out += "| " + name + " | " + std::to_string(lp.static_sbuf_bytes) + " / " +
           std::to_string(lp.positional_sbuf_bytes) + " / " + std::to_string(lp.dynamic_sbuf_bytes) + " | " +
           ratio(lp.static_sbuf_bytes, lp.dynamic_sbuf_bytes) + " | " + peak + " | " +
           std::to_string(lp.static_psum_banks) + " / " + std::to_string(lp.positional_psum_banks) + " / " +
           std::to_string(lp.dynamic_psum_banks) + " | " + ratio(lp.static_psum_banks, lp.dynamic_psum_banks) +
           " | " + banks + " |\n";
  }
  return out;
}

// The static / dynamic ratios of one space over a mix of generated programs, bucketed, and split by cause.
struct Tally {
  uint32_t ratios = 0, exact = 0, to105 = 0, to110 = 0, to125 = 0, above = 0;
  uint32_t wider = 0;      // static > positional
  uint32_t positions = 0;  // static = positional > dynamic
  uint32_t narrowed = 0;   // static < positional (the ranges' iterations)
  uint32_t any_exact = 0;  // on any iteration = dynamic
  double worst = 1, any_worst = 1;
  void add(uint64_t st, uint64_t any, uint64_t pos, uint64_t dy, const std::string& mix, uint32_t seed,
           const char* space) {
    if (dy == 0) return;
    if (st > dy)
      std::fprintf(stderr, "%s seed %u %s: static %llu / dynamic %llu = %s\n", mix.c_str(), seed, space,
                   (unsigned long long)st, (unsigned long long)dy, ratio(st, dy).c_str());
    ++ratios;
    const double r = double(st) / double(dy);
    worst = std::max(worst, r);
    any_worst = std::max(any_worst, double(any) / double(dy));
    any_exact += any == dy;
    if (st == dy) ++exact;
    else if (r <= 1.05) ++to105;
    else if (r <= 1.10) ++to110;
    else if (r <= 1.25) ++to125;
    else ++above;
    if (st > pos) ++wider;
    else if (st > dy && st == pos) ++positions;
    if (st < pos) ++narrowed;
  }
  std::string row(const std::string& mix, const char* space) const {
    return "| " + mix + " | " + space + " | " + std::to_string(ratios) + " | " + std::to_string(exact) + " | " +
           std::to_string(to105) + " | " + std::to_string(to110) + " | " + std::to_string(to125) + " | " +
           std::to_string(above) + " | " + fixed2(worst) + " | " + std::to_string(wider) + " | " +
           std::to_string(positions) + " | " + std::to_string(narrowed) + " | " + std::to_string(any_exact) + " | " +
           fixed2(any_worst) + " |\n";
  }
};

std::string generatedTable(uint32_t seeds, uint32_t first, uint32_t size) {
  std::string out =
      "| mix | space | ratios | 1.00 | <= 1.05 | <= 1.10 | <= 1.25 | > 1.25 | worst | static > positional | "
      "static = positional > dynamic | static < positional | on any iteration: 1.00 | on any iteration: worst "
      "|\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  struct Mix {
    std::string name;
    uint32_t reuse, conditionals;
  };
  const std::string sz = std::to_string(size);
  for (const Mix& m : {Mix{"default (`gen --seed S --size " + sz + "`)", kDefaultReuse, kDefaultConditionals},
                       Mix{"`--reuse 100 --conditionals 50`", 100, 50}}) {
    Tally sbuf, psum;
    for (uint32_t s = first; s - first < seeds; ++s) {
      GenOptions o;
      o.arch = *archPreset("tiny");
      o.size = size;
      o.reuse = m.reuse;
      o.conditionals = m.conditionals;
      SeededChoices c(s);
      const Program p = generateProgram(c, o);
      PrecisionOptions po;
      po.positional = true;
      try {
        const LivenessPrecision lp = livenessPrecision(p, po);
        sbuf.add(lp.static_sbuf_bytes, lp.any_iteration_sbuf_bytes, lp.positional_sbuf_bytes, lp.dynamic_sbuf_bytes,
                 m.name, s, "SBUF");
        psum.add(lp.static_psum_banks, lp.any_iteration_psum_banks, lp.positional_psum_banks, lp.dynamic_psum_banks,
                 m.name, s, "PSUM");
      } catch (const InputError&) {
      }
    }
    out += sbuf.row(m.name, "SBUF") + psum.row(m.name, "PSUM");
  }
  return out;
}

}  // namespace
}  // namespace allocsim

int main(int argc, char** argv) {
  using namespace allocsim;
  const uint32_t seeds = argc > 1 ? uint32_t(std::strtoul(argv[1], nullptr, 10)) : 100;
  const uint32_t first = argc > 2 ? uint32_t(std::strtoul(argv[2], nullptr, 10)) : 0;
  const uint32_t size = argc > 3 ? uint32_t(std::strtoul(argv[3], nullptr, 10)) : 30;
  if (seeds == 0 || size == 0) {
    std::fprintf(stderr, "liveness_report: SEEDS and SIZE must be at least 1\n");
    return 2;
  }
  std::printf(
      "## Liveness precision against the data\n\n"
      "How far the allocators' static liveness (`alloc/liveness.h`) is from what the data needs "
      "(`bench/liveness_report.sh`). Per space, SBUF bytes per partition and PSUM banks, three maxima: *static*, "
      "the allocators' live ranges over the linear positions and the iterations they narrow; *positional*, the "
      "interpreter's dynamic liveness folded onto the same positions (a tensor counts at a position when it is live "
      "at some step executing it), the least that any liveness over positions alone can claim; *dynamic*, the "
      "interpreter's over steps. static > positional means a range is wider than the data needs; positional > "
      "dynamic that tensors are live at one position in different iterations of a loop, which one position stands "
      "for (a value written on every iteration and read after the loop is live after its write on the last "
      "iteration only; a tensor last read in the loop is live after that read on every iteration but the last). The "
      "ranges say so (`alloc/liveness.h`, \"Iterations\"), so static can be below positional. A placement holds for "
      "every iteration, though, and the write of such a value on the other iterations is a dead store that clobbers "
      "its memory while the other tensor is live: the two still interfere, and a placement needs what is live at a "
      "position on any iteration (*on any iteration* below), which only unrolling or peeling the loop lowers.\n\n"
      "Corpus kernels (`corpus/kernels/`, `corpus/liveness/`, `corpus/nki_samples/`); -O2 peak: the highest SBUF byte an -O2 placement "
      "reaches, and the PSUM banks it uses, against the dynamic max-live of the program it places: the input's, or "
      "where -O2 spills, the spilled program's (its spill slots and reloaded copies live, the spilled tensors not "
      "while they wait in DRAM):\n\n%s\n"
      "Generated programs (tiny, `--size %u`, seeds %u to %u), per mix: the static / dynamic ratios of the programs "
      "with a tensor of that space, bucketed, the worst, the ratios above 1.00 by cause, the programs whose static "
      "figure the ranges' iterations lower below positional, and the ratio with every position live on every "
      "iteration (what a placement needs):\n\n%s",
      corpusTable().c_str(), size, first, first + seeds - 1, generatedTable(seeds, first, size).c_str());
  return 0;
}
