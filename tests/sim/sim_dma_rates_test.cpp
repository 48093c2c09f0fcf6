// The DMA model against the NKI DMA bandwidth guide's figures, with the default timing tables: a kernel that streams
// tiles from HBM through SBUF and does little compute on them is DMA-bound, and its steady-state time per tile is
// the tile's bytes (plus the per-descriptor overhead) at the core's aggregate rate: 16 engines x 17 bytes/ns on trn1,
// 23 on trn2, times the fraction of that peak the table's `dma.efficiency` says transfers achieve. The achieved
// bandwidth over bytes per partition follows the guide's saturation curve. Expected times are derived here from the
// documented figures, not taken from a run.
#include <gtest/gtest.h>

#include <string>

#include "ir/parse.h"
#include "sim/simulate.h"

namespace allocsim {
namespace {

constexpr uint32_t kPartitions = 128;

// `tiles` tiles of [128, f] f32 loaded from X into `bufs` buffers in turn, each summed along the free axis by DVE
// (the load of a buffer waits for the sum of its previous tile); the sums' last column is stored at the end.
std::string streamKernel(const std::string& arch, uint32_t f, uint32_t tiles, uint32_t bufs) {
  const uint32_t row = f * 4;  // bytes per partition of one tile
  std::string t = "arch " + arch + "\ndram X [128, " + std::to_string(tiles * f) + "] f32 input\n" +
                  "dram O [128, 1] f32 output\n";
  for (uint32_t b = 0; b < bufs; ++b)
    t += "sbuf x" + std::to_string(b) + " [128, " + std::to_string(f) + "] f32 @p0+" + std::to_string(b * row) + "\n";
  t += "sbuf s [128, 1] f32 @p0+" + std::to_string(bufs * row) + "\nreg i @r0\n";
  t += "loop i = 0, " + std::to_string(tiles) + ", " + std::to_string(bufs) + " {\n";
  for (uint32_t b = 0; b < bufs; ++b) {
    const std::string x = "x" + std::to_string(b);
    t += "  dma " + x + ", X[:, i*" + std::to_string(f) + "+" + std::to_string(b * f) + ":" + std::to_string(f) + "]\n";
    t += "  reduce s, " + x + ", add\n";
  }
  return t + "}\ndma O, s\n";
}

struct StreamRun {
  double ns;              // the run's length
  double dve_busy_ns;     // DVE's busy time
  double queue_busy_ns;   // the DMA queues' busy time, summed (a transfer's span counts once, on its queue)
};

StreamRun simulate(const std::string& text) {
  const Program p = parseProgram(text);
  sim::SimOptions o;
  o.timing_only = true;
  o.record_reads = false;
  const double ghz = o.timingFor(p).clock_ghz;
  const sim::SimStats s = sim::simulate(p, o).stats;
  double queues = 0;
  for (const sim::QueueStats& q : s.queues) queues += double(q.busy_cycles);
  return {double(s.cycles) / ghz, double(s.engines[size_t(Engine::DVE)].busy_cycles) / ghz, queues / ghz};
}

// Enough buffers that the ~1300 ns from a transfer's issue to its start is covered by the transfers in flight.
uint32_t buffersFor(uint32_t f) { return f <= 256 ? 16 : f <= 1024 ? 8 : 4; }

// The steady-state time of one tile: the difference between runs of 8 and 4 rounds of every buffer, per tile.
double nsPerTile(const std::string& arch, uint32_t f) {
  const uint32_t bufs = buffersFor(f);
  const double longer = simulate(streamKernel(arch, f, 8 * bufs, bufs)).ns;
  const double shorter = simulate(streamKernel(arch, f, 4 * bufs, bufs)).ns;
  return (longer - shorter) / (4 * bufs);
}

// The guide's per-engine bandwidths (bytes/ns), 16 engines per NeuronCore in both generations.
constexpr double kEngines = 16, kTrn1EngineBytesPerNs = 17, kTrn2EngineBytesPerNs = 23;

TEST(SimDmaRates, TheTablesCarryTheGuidesFigures) {
  const sim::TimingTable& trn1 = sim::TimingTable::forPreset("gen2");
  const sim::TimingTable& trn2 = sim::TimingTable::forPreset("gen3");
  EXPECT_EQ(trn1.dma_engines, kEngines);
  EXPECT_EQ(trn2.dma_engines, kEngines);
  EXPECT_EQ(trn1.dma_engine_bytes_per_ns, kTrn1EngineBytesPerNs);  // 272 GB/s per NeuronCore
  EXPECT_EQ(trn2.dma_engine_bytes_per_ns, kTrn2EngineBytesPerNs);  // 368 GB/s
  EXPECT_EQ(trn1.dma_fixed_ns, 1300);                              // "~1300 ns cross-engine"
}

// 8 KiB per partition (a [128, 2048] f32 tile, 1 MiB): one descriptor per partition, on all 16 engines.
TEST(SimDmaRates, AStreamingKernelIsDmaBoundAtTheDocumentedRate) {
  const uint32_t f = 2048;
  const sim::TimingTable& t = sim::TimingTable::forPreset("gen2");
  const double bytes = kPartitions * (f * 4.0 + t.dma_descriptor_overhead_bytes);
  const double expected = bytes / (kEngines * kTrn1EngineBytesPerNs * t.dma_efficiency);
  EXPECT_NEAR(nsPerTile("gen2", f), expected, expected * 0.01);

  // DMA-bound: transfers (each spread over all 16 engines) follow each other for the whole run, while DVE's sums
  // take a fraction of it.
  const uint32_t bufs = buffersFor(f), tiles = 8 * bufs;
  const StreamRun r = simulate(streamKernel("gen2", f, tiles, bufs));
  EXPECT_GT(r.queue_busy_ns, 0.9 * r.ns);
  EXPECT_LT(r.dve_busy_ns, 0.5 * r.ns);
  // Its length is the transfers' time at that rate, give or take the first transfer's fixed latency and the last
  // tile's sum and store.
  EXPECT_NEAR(r.ns, tiles * expected, 0.05 * tiles * expected);
}

// Trainium2's engines move 23 bytes/ns where Trainium's move 17: the same DMA-bound kernel streams 23/17 as fast,
// times the ratio of the two tables' achieved fractions of that rate (dma.efficiency and the per-descriptor
// overhead, both fitted per generation; one descriptor per partition row of 8 KiB here).
TEST(SimDmaRates, Trn2StreamsAtItsOwnRate) {
  const double trn1 = nsPerTile("gen2", 2048), trn2 = nsPerTile("gen3", 2048);
  const sim::TimingTable& t1 = sim::TimingTable::forPreset("gen2");
  const sim::TimingTable& t2 = sim::TimingTable::forPreset("gen3");
  const double row = 2048 * 4;
  const double efficiency = (t2.dma_efficiency / (row + t2.dma_descriptor_overhead_bytes)) /
                            (t1.dma_efficiency / (row + t1.dma_descriptor_overhead_bytes));
  EXPECT_NEAR(trn1 / trn2, efficiency * kTrn2EngineBytesPerNs / kTrn1EngineBytesPerNs, 0.01);
}

// The guide's saturation curve: below 256 bytes per partition a small fraction of peak, from 2 KiB on approaching
// it, from 4 KiB saturating; more bytes per partition never lower the bandwidth. Peak is the rate large payloads
// reach (the aggregate rate times the table's efficiency).
TEST(SimDmaRates, BandwidthFollowsTheGuidesCurveOverBytesPerPartition) {
  const sim::TimingTable& t = sim::TimingTable::forPreset("gen2");
  const double peak = kEngines * kTrn1EngineBytesPerNs * t.dma_efficiency;  // bytes/ns
  double previous = 0;
  for (uint32_t bytes_per_partition : {128u, 256u, 1024u, 2048u, 4096u, 8192u}) {
    const double fraction = kPartitions * bytes_per_partition / nsPerTile("gen2", bytes_per_partition / 4) / peak;
    SCOPED_TRACE(bytes_per_partition);
    EXPECT_GT(fraction, previous);
    EXPECT_LE(fraction, 1.0);
    if (bytes_per_partition < 256) {
      EXPECT_LT(fraction, 0.25);
    }
    if (bytes_per_partition >= 2048) {
      EXPECT_GE(fraction, 0.75);
    }
    if (bytes_per_partition >= 4096) {
      EXPECT_GE(fraction, 0.85);
    }
    previous = fraction;
  }
}

// Contiguous against strided: a transfer whose DRAM side is one byte range (whole rows of its DRAM tensor) moves at
// the engines' full rate (dma.contiguous-efficiency, the performance guide's trn1 profiles of 32 KiB transfers), but
// each of its descriptors costs at least dma.contiguous-min-bytes; one whose DRAM side is a run per row of a larger
// tensor moves at dma.efficiency. Each store below is one [128, F] f32 tile on all 16 engines, 8 descriptors each;
// the span on its queue is the engine bytes over 17 bytes/ns and the efficiency.
TEST(SimDmaRates, AContiguousTransferMovesAtTheFullRateWithAMinimumPerDescriptor) {
  const sim::TimingTable& t = sim::TimingTable::forPreset("gen2");
  ASSERT_EQ(t.dma_contiguous_efficiency, 1);
  ASSERT_GT(t.dma_contiguous_min_bytes, 512);
  ASSERT_LT(t.dma_contiguous_min_bytes, 4096);
  auto store = [](uint32_t f, uint32_t dram_f) {
    const std::string text = "arch gen2\nsbuf x [128, " + std::to_string(f) + "] f32 @p0+0\ndram O [128, " +
                             std::to_string(dram_f) + "] f32 output\nmemset x, 1.0\ndma O[:, 0:" + std::to_string(f) +
                             "], x\n";
    return simulate(text).queue_busy_ns;
  };
  const double per_engine = 8, overhead = t.dma_descriptor_overhead_bytes;
  // 4 KiB per partition into a whole [128, 1024] tensor: contiguous, above the minimum.
  const double contiguous = per_engine * (4096 + overhead) / kTrn1EngineBytesPerNs;
  EXPECT_NEAR(store(1024, 1024), contiguous, 1.0);
  // The same tile into the first half of each row of a [128, 2048] tensor: strided.
  EXPECT_NEAR(store(1024, 2048), contiguous / t.dma_efficiency, 1.0);
  // 512 B per partition into a whole [128, 128] tensor: each descriptor costs the minimum.
  EXPECT_NEAR(store(128, 128), per_engine * (t.dma_contiguous_min_bytes + overhead) / kTrn1EngineBytesPerNs, 1.0);
  // On trn2 no minimum: its [128, 128] bf16 load profile moves 2 KiB per engine at the engines' rate.
  EXPECT_EQ(sim::TimingTable::forPreset("gen3").dma_contiguous_min_bytes, 0);
}

// "Fewer partitions means fewer engines utilized", and "each DMA engine corresponds to 8 partition lanes" (the DMA
// overview): a load of 8 KiB per partition keeps one engine busy per 8 partitions, so 8, 16, 32 and 128 partitions
// (8 rows on each of 1, 2, 4 and 16 engines) take equally long, and 4 partitions (4 rows on one engine) half as long.
TEST(SimDmaRates, FewerPartitionsThanEnginesUseFewerEngines) {
  auto one = [](uint32_t partitions) {
    const std::string text = "arch gen2\ndram X [" + std::to_string(partitions) + ", 2048] f32 input\nsbuf x [" +
                             std::to_string(partitions) + ", 2048] f32 @p0+0\ndma x, X\n";
    return simulate(text).ns;
  };
  const double fixed = sim::TimingTable::forPreset("gen2").dma_fixed_ns;
  const double eight = one(8) - fixed;
  for (uint32_t partitions : {16u, 32u, 128u}) EXPECT_NEAR(one(partitions) - fixed, eight, 0.01 * eight) << partitions;
  EXPECT_NEAR(one(4) - fixed, eight / 2, 0.01 * eight);
}

}  // namespace
}  // namespace allocsim
