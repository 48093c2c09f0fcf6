// The simulator's timing table (DESIGN.md section 4; issue 8 "Timing"): latencies per instruction kind and size,
// kept as data. The default table is sim/timing/default.txt, compiled into the binary; a file of the same form
// (`--timing FILE`) replaces the keys it names. Each number's source is written next to it in that file.
#pragma once

#include <cstdint>
#include <string>

#include "ir/program.h"
#include "ir/view.h"

namespace allocsim::sim {

struct TimingTable {
  double clock_ghz = 0;
  uint32_t engine_queue_depth = 0;
  uint32_t stream_chunk_elements = 0;  // see sim/stream.h
  double pe_fixed = 0, pe_per_column = 0;
  double act_fixed = 0, act_per_element = 0;
  double dve_fixed = 0, dve_per_element = 0;
  double pool_fixed = 0, pool_per_element = 0;
  double pool_select_fixed = 0, pool_select_per_element = 0;  // affine_select on POOL
  double pool_iota_fixed = 0, pool_iota_per_element = 0;      // iota on POOL
  double pe_transpose_min_free = 0;                           // transpose: max(P, min(this, F))
  double dve_scan_min = 0, dve_scan_per_element = 0;          // tt_scan: max(min, per-element * N)
  double dve_bn_stats_min = 0, dve_bn_stats_per_element = 0;  // bn_stats: max(min, per-element * N)
  double dve_bn_aggr_min = 0, dve_bn_aggr_per_tuple = 0;      // bn_aggr: max(min, per-tuple * N / 3)
  double sp_scalar = 0, sp_memory = 0, sp_loop_iteration = 0;
  double dma_fixed = 0, dma_per_descriptor = 0, dma_bytes_per_cycle = 0;
  double dma_convert_fixed = 0;  // added to a converting (f32 <-> bf16) DMA's transfer
  double dve_second_op_per_element = 0;  // added per element per partition to a two-op ts
  double fused_reduce_fixed = 0;         // added to an act or ts with a fused reduction

  // The compiled-in default table (sim/timing/default.txt).
  static const TimingTable& defaults();
  // Applies "key value" lines of `text` on top of `*this`. Throws InputError (line:col) on an unknown key, a
  // missing or malformed number, or a value out of range.
  void apply(const std::string& text);
};

// The text of sim/timing/default.txt.
extern const char kDefaultTimingText[];

// Cycles of one execution of a compute or SP instruction whose operands resolved to these views:
// dst (or the register-side view), the first source, the second source (matmul moving). Never 0.
uint64_t computeCycles(const TimingTable& t, const Instruction& inst, const ResolvedView* dst, const ResolvedView* a,
                       const ResolvedView* b);
// A DMA's descriptors: one per contiguous byte run on each partition of its on-chip side (DRAM rows are
// contiguous). An assumption: real descriptor generation merges and splits by size.
uint64_t dmaDescriptors(const ResolvedView& dst, const ResolvedView& src, Space dst_space, Space src_space);
// Cycles a DMA occupies the shared fabric: bytes / bandwidth + per-descriptor cost (the fixed latency is apart).
uint64_t dmaTransferCycles(const TimingTable& t, uint64_t bytes, uint64_t descriptors);

}  // namespace allocsim::sim
