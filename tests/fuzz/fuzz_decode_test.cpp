// What the allocator fuzz targets' inputs decode to (fuzz/fuzz_program.h decodeProgram): well-formed programs on
// the tiny machine, some with pinned placements and some with placed DRAM tensors (gen/pins.h), so that the
// allocators' paths around fixed tensors and the oracles' shared DRAM bytes are fuzzed; an input that ends with its
// program has neither.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fuzz/fuzz_program.h"
#include "gen/choices.h"
#include "ir/check.h"

namespace allocsim {
namespace {

// `n` random inputs of 64-512 bytes drawn from `seed`, decoded; each must be a well-formed program.
std::vector<Program> decodeRandomInputs(uint64_t seed, int n) {
  const Arch arch = fuzz::fuzzArch({});
  SeededChoices bytes(seed);
  std::vector<Program> out;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> data(64 + bytes.below(449));
    for (uint8_t& b : data) b = uint8_t(bytes.below(256));
    fuzz::FuzzProgram in = fuzz::decodeProgram(data.data(), data.size(), arch);
    const std::vector<Diagnostic> diags = checkProgram(in.program);
    EXPECT_TRUE(diags.empty()) << "input " << i << ": " << formatDiagnostic("decoded", diags[0]) << "\n"
                               << printProgram(in.program);
    out.push_back(std::move(in.program));
  }
  return out;
}

// `count` of n inputs show a feature the decoder draws at a rate: some of them (at least a tenth), not most (at
// most three quarters).
void expectSomeButNotMost(int count, int n) {
  EXPECT_GE(count, n / 10);
  EXPECT_LE(count, n * 3 / 4);
}

TEST(FuzzDecode, SomeInputsPinTensorsInBothSpaces) {
  int programs_with_pins = 0, sbuf_pins = 0, psum_pins = 0;
  const int n = 300;
  const std::vector<Program> programs = decodeRandomInputs(20261203, n);
  for (int i = 0; i < n; ++i) {
    bool pinned = false;
    for (const Tensor& t : programs[i].tensors) {
      if (!t.pinned) continue;
      ASSERT_TRUE(t.placement.has_value()) << "input " << i << ": pinned '" << t.name << "' has no placement";
      pinned = true;
      (t.space == Space::Psum ? psum_pins : sbuf_pins) += 1;
    }
    programs_with_pins += pinned;
  }
  // Half of the inputs with bytes left after their program draw a pin rate; most random inputs have bytes left.
  expectSomeButNotMost(programs_with_pins, n);
  EXPECT_GT(sbuf_pins, 0);
  EXPECT_GT(psum_pins, 0);
}

TEST(FuzzDecode, SomeInputsPlaceDramTensorsApart) {
  const Arch arch = fuzz::fuzzArch({});
  int programs_placed = 0, pinned = 0, unpinned = 0;
  const int n = 300;
  const std::vector<Program> programs = decodeRandomInputs(20261204, n);
  for (int i = 0; i < n; ++i) {
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // [begin, end) of each placed DRAM tensor
    for (const Tensor& t : programs[i].tensors) {
      if (t.space != Space::Dram || !t.placement) continue;
      const uint64_t begin = t.placement->offset, end = begin + t.totalBytes();
      EXPECT_EQ(begin % dtypeSize(t.dtype), 0u) << "input " << i << ": '" << t.name << "' at " << begin;
      EXPECT_LE(end, arch.dram_limit) << "input " << i << ": '" << t.name << "'";
      for (const auto& [b, e] : spans)
        EXPECT_TRUE(end <= b || e <= begin) << "input " << i << ": '" << t.name << "' shares DRAM bytes";
      spans.push_back({begin, end});
      (t.pinned ? pinned : unpinned) += 1;
    }
    programs_placed += !spans.empty();
  }
  // A quarter of the inputs with bytes left after their pins draw 50 % and another quarter 100 %.
  expectSomeButNotMost(programs_placed, n);
  EXPECT_GT(pinned, 0);
  EXPECT_GT(unpinned, 0);
}

TEST(FuzzDecode, AnInputThatEndsWithItsProgramPinsNothing) {
  const Arch arch = fuzz::fuzzArch({});
  const fuzz::FuzzProgram empty = fuzz::decodeProgram(nullptr, 0, arch);
  for (const Tensor& t : empty.program.tensors) {
    EXPECT_FALSE(t.pinned) << t.name;
    EXPECT_FALSE(t.placement.has_value()) << t.name;
  }
  // The same bytes with a zero appended decode to the same program: the pin-rate choice 0 pins nothing.
  SeededChoices bytes(7);
  for (int i = 0; i < 50; ++i) {
    std::vector<uint8_t> data(16 + bytes.below(48));
    for (uint8_t& b : data) b = uint8_t(bytes.below(256));
    const fuzz::FuzzProgram a = fuzz::decodeProgram(data.data(), data.size(), arch);
    bool any_pin = false;
    for (const Tensor& t : a.program.tensors) any_pin = any_pin || t.pinned || t.placement;
    if (any_pin) continue;  // this input's own bytes drew pins
    data.push_back(0);
    const fuzz::FuzzProgram b = fuzz::decodeProgram(data.data(), data.size(), arch);
    EXPECT_EQ(printProgram(a.program), printProgram(b.program)) << "input " << i;
  }
}

}  // namespace
}  // namespace allocsim
