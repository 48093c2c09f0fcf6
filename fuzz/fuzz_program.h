// Shared by the allocator fuzz targets: decode a libFuzzer input into a well-formed program (the bytes are the
// generator's decisions, gen/choices.h ByteChoices), and report a bug with everything needed to reproduce it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/check.h"
#include "ir/print.h"
#include "verify/verify.h"

namespace allocsim::fuzz {

struct FuzzProgram {
  Program program;
  uint64_t poison_seed = 1;
  uint64_t knob = 0;  // one more decision for the target (e.g. which optlevel)
};

// The tiny machine with `overrides` ("sp-registers", "16", ...) applied; sizes and pressure from the input, and
// the DMA-pattern rate (GenOptions::dma_patterns) up to `max_dma_patterns` percent when that is not 0 (only then
// is it a decision, so the other targets' inputs decode as before).
inline FuzzProgram decodeProgram(const uint8_t* data, size_t size,
                                 std::initializer_list<std::pair<const char*, const char*>> overrides,
                                 uint32_t max_dma_patterns = 0) {
  ByteChoices choices(data, size);
  GenOptions opts;
  opts.arch = *archPreset("tiny");
  for (const auto& [key, value] : overrides) applyArchOverride(opts.arch, key, value);
  opts.size = uint32_t(choices.range(1, 24));
  opts.pressure = uint32_t(choices.range(25, 300));
  FuzzProgram out;
  out.poison_seed = 1 + choices.below(UINT64_MAX - 1);  // from the input, so a crash reproduces from its file
  out.knob = choices.below(256);
  if (max_dma_patterns > 0) opts.dma_patterns = uint32_t(choices.below(max_dma_patterns + 1));
  out.program = generateProgram(choices, opts);
  return out;
}

[[noreturn]] inline void reportBug(const char* target, const char* what, const Program& p, const Program* allocated,
                                   const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n--- program\n%s", target, what, printProgram(p).c_str());
  if (allocated) std::fprintf(stderr, "--- allocated\n%s", printProgram(*allocated).c_str());
  std::fprintf(stderr, "--- details\n%s\n", detail.c_str());
  std::abort();
}

// The allocated program must be well-formed and pass all three oracles against the original.
inline void requireCorrect(const char* target, const Program& p, const Program& allocated, uint64_t poison) {
  std::vector<Diagnostic> diags = checkProgram(allocated);
  if (!diags.empty()) reportBug(target, "the allocated program is not well-formed", p, &allocated,
                                InputError(diags).format("allocated"));
  VerifyOptions vo;
  vo.original = &p;
  vo.poison_seed = poison;
  VerifyReport r;
  try {
    r = verifyAllocated(allocated, vo);
  } catch (const InputError& e) {
    reportBug(target, "the allocated program cannot run", p, &allocated, e.format("allocated"));
  }
  if (!r.ok()) {
    std::string detail;
    for (const Finding& f : r.findings) detail += f.format("allocated");
    reportBug(target, "the oracles found a bug", p, &allocated, detail);
  }
}

}  // namespace allocsim::fuzz
