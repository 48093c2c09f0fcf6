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

// NeuronCore-v3 (Trainium2) as its architecture guide states it: SBUF 28 MiB as 128 partitions of 224 KiB, PSUM
// 2 MiB as on NeuronCore-v2, 16 DMA engines per core.
TEST(Arch, Gen3IsTrainium2AsDocumented) {
  auto gen3 = archPreset("gen3");
  ASSERT_TRUE(gen3);
  EXPECT_EQ(gen3->sbuf_partitions, 128u);
  EXPECT_EQ(uint64_t(gen3->sbuf_partitions) * gen3->sbuf_bytes, uint64_t(28) << 20);
  EXPECT_EQ(uint64_t(gen3->sbuf_partitions) * gen3->psumBytes(), uint64_t(2) << 20);
  EXPECT_EQ(gen3->psum_bank_bytes, archPreset("gen2")->psum_bank_bytes);
  EXPECT_EQ(gen3->dma_queues, 16u);
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
