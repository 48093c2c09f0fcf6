// Shared by the allocator fuzz targets: decode a libFuzzer input into a well-formed program (the bytes are the
// generator's decisions, gen/choices.h ByteChoices), and report a bug with everything needed to reproduce it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "alloc/alloc_error.h"
#include "alloc/no_reuse.h"
#include "fuzz/execution_heap.h"
#include "fuzz/seen_programs.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "gen/pins.h"
#include "ir/arch.h"
#include "ir/check.h"
#include "ir/hash.h"
#include "ir/print.h"
#include "verify/correct.h"

namespace allocsim::fuzz {

// What keeps one execution short (an allocator target should run at least a thousand executions per second under
// ASan+UBSan): every
// cost of a case grows with the program, and the three oracles walk every step of it, so the generator's size is
// capped by construction, and the costliest oracle is sampled. Small programs still reach every allocator path:
// pressure above 100 % forces spills on the tiny machine with a handful of tensors, and loops (up to 3 deep, 8 trips)
// and the statements they nest multiply the steps, not the input.
// The input's length caps the program too (a choice of 0, once the bytes run out, stops adding): campaigns run with
// inputs of at most 64 bytes (`FUZZ_MAX_LEN=64 bash fuzz/run_campaign.sh`), which run about twice the executions per
// CPU second of 512-byte inputs and reach nearly all the same alloc/ lines.
struct FuzzLimits {
  uint32_t max_statements = 4;  // top-level statements (GenOptions::size); `allocsim gen` defaults to 20
  // Iterations of a statement (GenOptions::max_nest_trips): loops 3 deep of up to 8 trips gave a few inputs
  // hundreds of iterations, each walked by every oracle.
  uint32_t max_nest_trips = 32;
  // The symbolic oracle runs on one input in this many (requireCorrect): on these small programs it costs more than
  // equivalence and placement together, and equivalence already compares every operand of every instruction.
  uint64_t symbolic_every = 4;
  // The allocators record their rounds (verbosity 2: names, scores, worklist sizes, which no oracle reads) on one
  // input in this many (chosen by a hash of the poison seed, FuzzProgram::traced), so that the recording still runs
  // under the sanitizers on fuzzed programs without costing every input. The allocations do not depend on it.
  uint64_t traced_every = 4;
};
inline constexpr FuzzLimits kFuzzLimits{};

// The tiny machine with `overrides` ("sp-registers", "16", ...) applied: built once per target (a static in the
// target), not per input.
inline Arch fuzzArch(std::initializer_list<std::pair<const char*, const char*>> overrides) {
  Arch arch = *archPreset("tiny");
  for (const auto& [key, value] : overrides) applyArchOverride(arch, key, value);
  return arch;
}

struct FuzzProgram {
  Program program;
  uint64_t poison_seed = 1;
  uint64_t knob = 0;  // one more decision for the target (e.g. which optlevel)
  uint64_t input_digest = 0;  // of the input's bytes (ranBefore: the same input twice in a row runs twice)
  // The generator's mix the input picked (kMixTag, fuzzMix): GenOptions::conditionals and GenOptions::reuse.
  uint32_t conditionals = 0, reuse = 0;
  // Whether this input's allocations record their rounds (kFuzzLimits.traced_every): the target then allocates at
  // verbosity 2. From a hash of the poison seed: the seed's low bits are often the same (a short input's seed is 1,
  // mutations write zeros), which would record them on most inputs.
  bool traced() const { return ((poison_seed * 0x9e3779b97f4a7c15ULL) >> 32) % kFuzzLimits.traced_every == 0; }
  // The PSUM colorer's order for a target that has the colorers run one heuristic each (DriverOptions::
  // psum_heuristic), from other bits of the same hash: 0-3.
  uint32_t psumHeuristic() const { return uint32_t(((poison_seed * 0x9e3779b97f4a7c15ULL) >> 40) % 4); }
  // The SBUF colorer's heuristic for a target that tests what comes after the colorers (dma_opt, reg_colorer): one
  // of the 16 (DriverOptions::sbuf_heuristic) on half of the inputs, so that what the target tests sees every
  // heuristic's spills and placements, not only those of the one that wins best-of-n; nullopt (the level's
  // best-of-n) on the other half.
  std::optional<uint32_t> sbufHeuristic() const {
    const uint32_t k = uint32_t(((poison_seed * 0x9e3779b97f4a7c15ULL) >> 44) % 32);
    return k < 16 ? std::optional<uint32_t>(k) : std::nullopt;
  }
};

// The generator's mixes an input may ask for (GenOptions::conditionals and GenOptions::reuse): an input that ends
// with the two bytes kMixTag and one more byte, the mix byte, is the program decisions before those three bytes
// decoded with the mix that byte picks (fuzzMix). Bits 0-1 pick the rate of `%` and `//` in loop-register indexes
// and of `if` blocks and register-bounded loops in loops, bits 2-3 the rate of recycled tensors.
// Every other input decodes with neither, as before the mixes existed, so the corpora gathered without them keep
// their programs (a random input ends with the tag once in 65536). Each target's corpus holds tagged inputs;
// libFuzzer keeps the tag at the end of most inputs it derives from them and changes the mix byte like any other.
inline constexpr uint8_t kMixTag[2] = {0xa7, 0x3c};
inline constexpr uint32_t kFuzzConditionals[] = {0, 20, 50, 100};
inline constexpr uint32_t kFuzzReuse[] = {0, 25, 50, 100};

// The mix (GenOptions::conditionals, GenOptions::reuse) a mix byte picks.
inline std::pair<uint32_t, uint32_t> fuzzMix(uint8_t mix_byte) {
  return {kFuzzConditionals[mix_byte & 3], kFuzzReuse[(mix_byte >> 2) & 3]};
}

// Whether `size` bytes end with kMixTag and a mix byte.
inline bool hasMixTag(const uint8_t* data, size_t size) {
  return size >= 3 && data[size - 3] == kMixTag[0] && data[size - 2] == kMixTag[1];
}

// A program on `arch` (fuzzArch); size (at most kFuzzLimits.max_statements) and pressure from the input, and the
// DMA-pattern rate (GenOptions::dma_patterns) up to `max_dma_patterns` percent when that is not 0 (only then is it
// a decision, so the other targets' inputs decode as before); `%`, `//`, `if` and recycled tensors when the input
// ends with a mix (kMixTag).
inline FuzzProgram decodeProgram(const uint8_t* data, size_t size, const Arch& arch, uint32_t max_dma_patterns = 0) {
  FuzzProgram out;
  OperandHasher bytes;
  bytes.bytes(data, size);
  out.input_digest = bytes.digest();
  if (hasMixTag(data, size)) {
    std::tie(out.conditionals, out.reuse) = fuzzMix(data[size - 1]);
    size -= 3;
  }
  ByteChoices choices(data, size);
  GenOptions opts;
  opts.arch = arch;
  opts.size = uint32_t(choices.range(1, kFuzzLimits.max_statements));
  opts.pressure = uint32_t(choices.range(25, 300));
  opts.max_nest_trips = kFuzzLimits.max_nest_trips;
  // Set explicitly, not left to the library's defaults (allocsim gen's mix): at 0 they draw no decision, so an input
  // without a mix decodes to the program the committed corpora were gathered on.
  opts.conditionals = out.conditionals;
  opts.reuse = out.reuse;
  out.poison_seed = 1 + choices.below(UINT64_MAX - 1);  // from the input, so a crash reproduces from its file
  out.knob = choices.below(256);
  if (max_dma_patterns > 0) opts.dma_patterns = uint32_t(choices.below(max_dma_patterns + 1));
  out.program = generateProgram(choices, opts);
  // Pinned placements (gen/pins.h) on about half of the inputs that still have bytes after the program: the
  // allocators' paths around fixed tensors (the colorers' fixed nodes, the linear scan's obstacles, pinned PSUM
  // banks) are otherwise reached by no fuzz input (fuzz/coverage_report.sh shows them). Drawn
  // last, so that an input whose bytes end with its program decodes as before (a choice of 0 pins nothing).
  static constexpr uint32_t kPinPercent[] = {0, 0, 0, 0, 25, 50, 75, 100};
  if (const uint32_t percent = kPinPercent[choices.below(8)]) pinPlacements(out.program, choices, percent);
  // DRAM placements after them, for the same reason (the in-place checker's DRAM items, the DMA optimization's and
  // the oracles' placed DRAM were reached by no fuzz input): an input whose bytes end before this decodes as before.
  static constexpr uint32_t kDramPercent[] = {0, 0, 50, 100};
  if (const uint32_t percent = kDramPercent[choices.below(4)]) placeDramTensors(out.program, choices, percent);
  return out;
}

// Whether this process already ran the case `in` is (fuzz/seen_programs.h): its program's text (which round-trips
// to the same program, docs/format.md), knob and poison seed are all that a target reads of its input, so an input
// equal to an earlier one in these runs the same case. Every target that decodes with decodeProgram asks right after
// decoding and returns at once on a repeat; the input just run is a repeat only if that run freed every heap block it
// allocated (`previous_left_blocks`: fuzz/execution_heap.h, which the target constructs first).
inline bool ranBefore(const FuzzProgram& in, SeenPrograms& seen = SeenPrograms::process(),
                      bool previous_left_blocks = ExecutionHeap::previousLeftBlocks()) {
  const std::string text = printProgram(in.program);
  OperandHasher h;
  h.bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  h.u64(in.knob);
  h.u64(in.poison_seed);
  return seen.ranBefore(h.digest(), in.input_digest, previous_left_blocks);
}

// The real tiny machine (fuzzArch without overrides), built once per process.
inline const Arch& tinyFuzzArch() {
  static const Arch arch = fuzzArch({});
  return arch;
}

// What every target does first, right after constructing its ExecutionHeap: decode the input into `in`
// (decodeProgram on `arch`) and say whether its case is new. False when this process already ran it (ranBefore):
// the target then returns at once.
inline bool decodeNewCase(const uint8_t* data, size_t size, FuzzProgram& in, const Arch& arch = tinyFuzzArch(),
                          uint32_t max_dma_patterns = 0) {
  in = decodeProgram(data, size, arch, max_dma_patterns);
  return !ranBefore(in);
}

// `allocator`'s placement of `p` or, when that does not fit (AllocError), placeNoReuse's, so that the checks after
// it still run on every input that fits the machine at all; nullopt when even that does not fit.
template <class Allocator>
std::optional<Program> placeOrPlaceApart(const Program& p, Allocator allocator) {
  try {
    return allocator(p);
  } catch (const AllocError&) {
    try {
      return placeNoReuse(p);
    } catch (const AllocError&) {
      return std::nullopt;
    }
  }
}

// Gives a decoded program a machine with more room than the one it was generated for (the same preset with larger
// memories: every tensor, pin and placement still fits). reg_colorer's O0, which places every tensor apart, runs small
// programs on a machine where SBUF rarely ends a case: generated for that machine, the tensors were larger, and the
// oracles' work grows with their elements. `fuzz_decode --machine KEY=VALUE` does the same.
inline void runOn(FuzzProgram& in, const Arch& machine) { in.program.arch = machine; }

[[noreturn]] inline void reportBug(const char* target, const char* what, const Program& p, const Program* allocated,
                                   const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n--- program\n%s", target, what, printProgram(p).c_str());
  if (allocated) std::fprintf(stderr, "--- allocated\n%s", printProgram(*allocated).c_str());
  std::fprintf(stderr, "--- details\n%s\n", detail.c_str());
  std::abort();
}

// The allocated program must be a correct allocation of `p` (verify/correct.h checkAllocation): well-formed,
// implementing `p`, and passing the oracles against it: equivalence and placement on every input, symbolic on one in
// kFuzzLimits.symbolic_every, chosen by the input's poison seed so that a finding reproduces from its file
// (libFuzzer mutates that seed like any other decision).
inline void requireCorrect(const char* target, const Program& p, const Program& allocated, uint64_t poison) {
  CorrectnessOptions check;
  check.input = &p;
  check.verify.poison_seed = poison;
  check.verify.symbolic = poison % kFuzzLimits.symbolic_every == 0;
  const Verdict v = checkAllocation(allocated, check);
  switch (v.defect) {
    case Defect::None: return;
    case Defect::IllFormed:
      reportBug(target, "the allocated program is not well-formed", p, &allocated,
                InputError(v.diagnostics).format("allocated"));
    case Defect::NotTheInput:
      reportBug(target, "the allocated program does not implement the input", p, &allocated,
                v.diagnostics.empty() ? v.mismatch : InputError(v.diagnostics).format("allocated"));
    case Defect::CannotRun:
      reportBug(target, "the allocated program cannot run", p, &allocated,
                InputError(v.diagnostics).format("allocated"));
    case Defect::Findings: {
      std::string detail;
      for (const Finding& f : v.report.findings) detail += f.format("allocated");
      reportBug(target, "the oracles found a bug", p, &allocated, detail);
    }
  }
}

}  // namespace allocsim::fuzz
