#include "ir/arch.h"

#include <gtest/gtest.h>

namespace allocsim {
namespace {

TEST(Arch, PresetsMatchTheDesignTable) {
  auto gen2 = archPreset("gen2");
  ASSERT_TRUE(gen2);
  EXPECT_EQ(gen2->sbuf_partitions, 128u);
  EXPECT_EQ(gen2->sbuf_bytes, 196608u);
  EXPECT_EQ(gen2->psum_banks, 8u);
  EXPECT_EQ(gen2->psum_bank_bytes, 2048u);
  auto gen1 = archPreset("gen1");
  ASSERT_TRUE(gen1);
  EXPECT_EQ(gen1->sbuf_partitions, 64u);
  EXPECT_EQ(gen1->psum_banks, 4u);
  auto tiny = archPreset("tiny");
  ASSERT_TRUE(tiny);
  EXPECT_EQ(tiny->sbuf_partitions, 8u);
  EXPECT_EQ(tiny->psum_bank_bytes, 256u);
  EXPECT_FALSE(archPreset("gen9"));
  for (const Arch& a : archPresets()) EXPECT_EQ(validateArch(a), "") << a.name;
}

TEST(Arch, OverridesChangeOneFieldAndAreReported) {
  Arch a = *archPreset("tiny");
  EXPECT_EQ(applyArchOverride(a, "--psum-banks", "2"), "");
  EXPECT_EQ(a.psum_banks, 2u);
  auto diff = archOverridesFromPreset(a);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].first, "psum-banks");
  EXPECT_EQ(diff[0].second, 2u);
}

TEST(Arch, BadOverridesAreRejectedWithAMessage) {
  Arch a = *archPreset("gen2");
  EXPECT_NE(applyArchOverride(a, "psum-banks", "0"), "");
  EXPECT_NE(applyArchOverride(a, "psum-banks", "-3"), "");
  EXPECT_NE(applyArchOverride(a, "psum-banks", "99999999999999999999"), "");
  EXPECT_NE(applyArchOverride(a, "no-such-key", "1"), "");
  EXPECT_EQ(a.psum_banks, 8u);
}

}  // namespace
}  // namespace allocsim
