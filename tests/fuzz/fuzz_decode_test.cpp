// What the allocator fuzz targets' inputs decode to (fuzz/fuzz_program.h decodeProgram): well-formed programs on
// the tiny machine, some with pinned placements and some with placed DRAM tensors (gen/pins.h), so that the
// allocators' paths around fixed tensors and the oracles' shared DRAM bytes are fuzzed; an input that ends with its
// program has neither; an input that ends with a mix (fuzz::kMixTag and a mix byte) has `%`, `//`, `if` blocks and
// recycled tensors, and no other input has any of them.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "fuzz/fuzz_program.h"
#include "gen/choices.h"
#include "gen/stats.h"
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

// What a decoded program holds of the constructs the mixes turn on, read from its text (docs/format.md): an index or
// condition term `r3%2`, `r3//2`, and `if` blocks; recycled tensors as gen/stats.h counts them (a tensor written
// whole again after a read, which a program without GenOptions::reuse may have too).
struct MixedShapes {
  int programs = 0, remainder = 0, floor_division = 0, if_blocks = 0, recycled = 0;
  void add(const Program& p) {
    static const std::regex remainder_term("r[0-9]+%[0-9]"), division_term("r[0-9]+//[0-9]"),
        if_line("(^|\n) *if ");
    const std::string text = printProgram(p);
    ++programs;
    remainder += std::regex_search(text, remainder_term);
    floor_division += std::regex_search(text, division_term);
    if_blocks += std::regex_search(text, if_line);
    for (const ShapeFeature& f : measureShape(p))
      if (f.name.rfind("recycled on-chip tensors", 0) == 0) recycled += f.count > 0;
  }
};

// `n` random inputs of 8-64 bytes (the length campaigns use) drawn from `seed`, each followed by `suffix`, decoded.
MixedShapes decodeWithSuffix(uint64_t seed, int n, const std::vector<uint8_t>& suffix, bool tagged) {
  const Arch arch = fuzz::fuzzArch({});
  SeededChoices bytes(seed);
  MixedShapes shapes;
  for (int i = 0; i < n; ++i) {
    std::vector<uint8_t> data(8 + bytes.below(57));
    for (uint8_t& b : data) b = uint8_t(bytes.below(256));
    if (tagged) data.insert(data.end(), std::begin(fuzz::kMixTag), std::end(fuzz::kMixTag));
    data.insert(data.end(), suffix.begin(), suffix.end());
    const fuzz::FuzzProgram in = fuzz::decodeProgram(data.data(), data.size(), arch);
    const std::vector<Diagnostic> diags = checkProgram(in.program);
    EXPECT_TRUE(diags.empty()) << "input " << i << ": " << formatDiagnostic("decoded", diags[0]) << "\n"
                               << printProgram(in.program);
    shapes.add(in.program);
  }
  return shapes;
}

// Without the tag no input has `%`, `//` or `if`, whatever its last byte; with it, every conditional rate of the mix
// byte gives programs with each of them, and every reuse rate programs with recycled tensors.
TEST(FuzzDecode, OnlyAMixGivesConditionals) {
  const int n = 400;
  for (uint8_t last : {uint8_t(0), uint8_t(1), uint8_t(2), uint8_t(3), uint8_t(0x0f), uint8_t(0xff)}) {
    const MixedShapes plain = decodeWithSuffix(20261206, n, {last}, false);
    EXPECT_EQ(plain.remainder + plain.floor_division + plain.if_blocks, 0) << "last byte " << int(last);
  }
  for (uint8_t mix = 0; mix < 16; ++mix) {
    const auto [conditionals, reuse] = fuzz::fuzzMix(mix);
    const MixedShapes s = decodeWithSuffix(20261206 + mix, n, {mix}, true);
    std::printf("mix %2u (conditionals %3u, reuse %3u): of %d programs, %d with %%, %d with //, %d with if, %d with "
                "recycled tensors\n",
                unsigned(mix), conditionals, reuse, s.programs, s.remainder, s.floor_division, s.if_blocks, s.recycled);
    // Only a program with a loop can have them, and most short inputs' programs have none.
    if (conditionals == 0) {
      EXPECT_EQ(s.remainder + s.floor_division + s.if_blocks, 0) << "mix " << int(mix);
    } else {
      EXPECT_GT(s.remainder, 0) << "mix " << int(mix);
      EXPECT_GT(s.floor_division, 0) << "mix " << int(mix);
      EXPECT_GT(s.if_blocks, 0) << "mix " << int(mix);
    }
    if (reuse > 0) {
      EXPECT_GT(s.recycled, 0) << "mix " << int(mix);
    }
  }
}

// A mix byte that picks neither (its low four bits 0) decodes the bytes before the tag as they decode alone.
TEST(FuzzDecode, ThePlainMixDecodesTheBytesBeforeTheTag) {
  const Arch arch = fuzz::fuzzArch({});
  SeededChoices bytes(11);
  for (int i = 0; i < 50; ++i) {
    std::vector<uint8_t> data(8 + bytes.below(120));
    for (uint8_t& b : data) b = uint8_t(bytes.below(256));
    const fuzz::FuzzProgram alone = fuzz::decodeProgram(data.data(), data.size(), arch);
    data.insert(data.end(), {fuzz::kMixTag[0], fuzz::kMixTag[1], uint8_t(bytes.below(16) << 4)});
    const fuzz::FuzzProgram tagged = fuzz::decodeProgram(data.data(), data.size(), arch);
    EXPECT_EQ(printProgram(alone.program), printProgram(tagged.program)) << "input " << i;
    EXPECT_EQ(alone.poison_seed, tagged.poison_seed);
    EXPECT_EQ(alone.knob, tagged.knob);
    EXPECT_NE(alone.input_digest, tagged.input_digest);
  }
}

}  // namespace
}  // namespace allocsim
