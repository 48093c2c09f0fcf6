// The simulator's timing table: clocks and instruction costs, kept as data. The default table is
// sim/timing/default.txt (NeuronCore-v2); an arch preset with a file sim/timing/<preset>.txt has that file applied on
// top of it (gen3.txt: NeuronCore-v3). Both are compiled into the binary, and a program runs with its preset's table
// unless the caller gives one (SimOptions::timing, `--timing FILE`: the keys a file names replace its preset's).
// Each number's source is written next to it in its file; docs/simulator.md "Timing" states the rules.
#pragma once

#include <cstdint>
#include <string>

#include "ir/program.h"
#include "ir/view.h"

namespace allocsim::sim {

struct TimingTable {
  double clock_ghz = 0;  // the reporting clock: cycles in results are cycles of it
  double pe_clock_ghz = 0, act_clock_ghz = 0, dve_clock_ghz = 0, pool_clock_ghz = 0, sp_clock_ghz = 0;
  uint32_t engine_queue_depth = 0;
  uint32_t stream_chunk_elements = 0;  // see sim/stream.h
  // Shared access ports (docs/simulator.md "Shared ports"): DVE and POOL instructions that access SBUF are
  // serialized in program order, and DVE and ACT instructions that access PSUM.
  bool port_dve_pool_sbuf = false, port_dve_act_psum = false;
  double pe_fixed = 0, pe_per_column = 0, pe_fp32_factor = 0;
  double act_fixed = 0, act_per_element = 0;
  double dve_fixed = 0, dve_per_element = 0;
  double dve_tt_per_element = 0, dve_tt_fast_per_element = 0;
  double dve_reduce_per_element = 0, dve_reduce_bf16_per_element = 0;
  double pool_fixed = 0, pool_per_element = 0;
  double pool_select_fixed = 0, pool_select_per_element = 0;  // affine_select on POOL
  double dve_scan_per_element = 0;      // tt_scan: max(dve_fixed, this * N)
  double dve_bn_stats_per_element = 0;  // bn_stats: max(dve_fixed, this * N)
  double dve_bn_aggr_per_tuple = 0;     // bn_aggr: max(dve_fixed, this * N / 3)
  double sp_scalar = 0, sp_memory = 0, sp_loop_iteration = 0;
  double dma_fixed_ns = 0, dma_engines = 0, dma_engine_bytes_per_ns = 0, dma_descriptor_overhead_bytes = 0;
  double dma_efficiency = 0;  // the fraction of the engines' peak bandwidth transfers achieve
  // A contiguous transfer (its DRAM side one byte range: dmaDramContiguous) achieves this fraction instead, and each
  // of its descriptors costs at least dma_contiguous_min_bytes of engine time.
  double dma_contiguous_efficiency = 1, dma_contiguous_min_bytes = 0;
  double dma_partitions_per_engine = 1;  // partitions of a transfer's on-chip side served by one DMA engine
  double dma_convert_fixed = 0;  // added to a converting (f32 <-> bf16) DMA's transfer, reporting cycles
  double dve_second_op_per_element = 0;  // added per element per partition to a two-op ts
  double fused_reduce_fixed = 0;         // added to an act or ts with a fused reduction, its engine's cycles
  // The Vector engine's performance mode on 16-bit float data (NeuronCore-v3): a factor on the per-element cost of a
  // ts whose source and destination are bf16 or f16 in SBUF (ts), and of a tt whose inputs are both in SBUF, with
  // every type bf16 or f16 (tt). 1: no such mode.
  double dve_perf_ts_factor = 1, dve_perf_tt_factor = 1;
  // The minimum dependent interval, engine cycles: an instruction's results are complete this long after its start,
  // or at the end of its cost when that is later, and an instruction depending on it starts no earlier
  // (docs/simulator.md "Dependent interval"). 0: complete at the end of the cost.
  double pe_dependent_interval = 0, act_dependent_interval = 0, dve_dependent_interval = 0,
         pool_dependent_interval = 0;
  // Strided access (docs/simulator.md "Instruction costs"): a compute instruction one of whose cost views has a
  // most-minor free-axis stride above access_stride_threshold_bytes has the per-element part of its cost multiplied by
  // access_strided_factor. 1: no such penalty.
  double access_stride_threshold_bytes = 16, access_strided_factor = 1;

  // The compiled-in default table (sim/timing/default.txt).
  static const TimingTable& defaults();
  // The table of an arch preset (Arch::name): the defaults with sim/timing/<preset>.txt applied when it exists, else
  // the defaults.
  static const TimingTable& forPreset(const std::string& preset);
  // Applies "key value" lines of `text` on top of `*this`. Throws InputError (line:col) on an unknown key, a
  // missing or malformed number, or a value out of range.
  void apply(const std::string& text);
  // Reporting cycles of `cycles` cycles of a clock of `ghz` (rounded up).
  uint64_t toReport(double cycles, double ghz) const;
  // The fixed latency of a DMA from its issue to its start, in reporting cycles.
  uint64_t dmaFixedCycles() const;
  // The minimum dependent interval of engine `e` in reporting cycles (0 for SP and DMA, which have none).
  uint64_t dependentInterval(Engine e) const;
};

// The simulated time the model counts: 2^50 cycles (nine days at 1.4 GHz). A timing table's extreme values over a large
// program can ask for more; the instruction that ends past it is refused at its line (checkSimCycles), before the
// model's clock (SystemC time in picoseconds) or its sums of cycles could overflow. A single cost is capped just past
// it (computeCycles, dmaTransferCycles), so that the check still sees it.
constexpr uint64_t kMaxSimCycles = uint64_t(1) << 50;
// Throws InputError at `inst` when `cycle` (an end or a clock it reaches) is past kMaxSimCycles.
void checkSimCycles(const Instruction& inst, uint64_t cycle);

// The text of sim/timing/default.txt.
extern const char kDefaultTimingText[];
// The text of every other sim/timing/<preset>.txt, by preset; the list ends with a null preset.
struct PresetTimingText {
  const char* preset;
  const char* text;
};
extern const PresetTimingText kPresetTimingTexts[];

// Reporting cycles of one execution of a compute or SP instruction whose operands resolved to these views:
// dst (or the register-side view), the first source, the second source (matmul moving, tt's second input). `p`
// gives the views' memory spaces (tt's cost depends on them); without it both are taken to be in SBUF. Never 0.
// The views given are the cost views a strided access is looked for in (TimingTable::access_strided_factor).
uint64_t computeCycles(const TimingTable& t, const Instruction& inst, const ResolvedView* dst, const ResolvedView* a,
                       const ResolvedView* b, const Program* p = nullptr);
// Whether a view's most-minor free-axis stride exceeds `threshold_bytes`: single elements spaced further apart than
// that (a run of two or more elements is read with unit stride).
bool stridedAccess(const ResolvedView& v, double threshold_bytes);
// A DMA's descriptors: one per contiguous byte run on each partition of its on-chip side (DRAM rows are
// contiguous); a DRAM to DRAM copy, one per source partition.
uint64_t dmaDescriptors(const ResolvedView& dst, const ResolvedView& src, Space dst_space, Space src_space);
// A DMA's partitions: those of its on-chip side (its destination when both are on chip); DRAM to DRAM, its source's.
uint64_t dmaPartitions(const ResolvedView& dst, const ResolvedView& src, Space dst_space);
// A DMA's cost in reporting cycles, its fixed latency apart: `span`, how long the transfer lasts on the engines it
// is spread over (one per dma.partitions-per-engine of its partitions, at most dma.engines), and `fabric`, its share
// of all the core's DMA engines (the time it would take on all of them).
struct DmaCost {
  uint64_t span, fabric;
};
DmaCost dmaTransferCycles(const TimingTable& t, uint64_t bytes, uint64_t descriptors, uint64_t partitions,
                          bool contiguous = false);
// Whether a DMA's DRAM side is one contiguous byte range (whole rows of its DRAM tensor, or a contiguous run of one
// row); with both sides on chip, false.
bool dmaDramContiguous(const Program& p, const ResolvedView& dst, const ResolvedView& src);

}  // namespace allocsim::sim
