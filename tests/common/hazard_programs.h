// Hand-allocated programs shared by the tests of several modules. Most have a result that depends on one class of
// dependence between instructions, shared by the simulator's tests (a simulator that drops the class computes
// something else), the harness's (its simulated run must report that disagreement) and the timing oracle's (their
// schedules by hand).
#pragma once

namespace allocsim {

// The costs the programs below are worked out with, as "key value" lines a test applies on top of the timing table of
// its arch preset (sim::TimingTable::apply) when its result depends on an order in time: a test that drops a
// dependence class sees the drop only when the instructions race as worked out here, and must not depend on the
// shipped table's fitted DMA model, which may cost a small transfer as much as a larger one. With these, in
// kWarProgram the load of z (30720 bytes on the one DMA engine of its 8 partitions, 1807 ns) ends about 1780 ns
// after the load of x (512 bytes, 30 ns), far more than the memset's 166 GpSimd cycles (119 ns) after x's load; in
// kRawProgram and kWawProgram (tests/sim/sim_test.cpp) the load's 1300 ns from issue to start leaves the
// instruction after it free to run first.
inline constexpr char kHazardTiming[] = R"(clock-ghz 1.4
dma.fixed-ns 1300
dma.engines 16
dma.partitions-per-engine 8
dma.engine-bytes-per-ns 17
dma.efficiency 1
dma.descriptor-overhead-bytes 0
dma.contiguous-min-bytes 0
dma.convert-fixed 0
act.clock-ghz 1.4
act.fixed 64
act.per-element 1
act.dependent-interval 0
pool.clock-ghz 1.4
pool.fixed 150
pool.per-element 1
pool.dependent-interval 0
)";

// x is loaded, then an ACT op waits for a long second load (its bias) while POOL overwrites x: only the WAR
// dependence keeps the memset from landing before the act reads x (ACT and POOL share no port). Worked out with
// kHazardTiming.
inline constexpr char kWarProgram[] = R"(arch tiny
dram X [8, 16] f32 input
dram Z [8, 960] f32 input
dram Y [8, 16] f32 output
sbuf x [8, 16] f32 @p0+0
sbuf z [8, 960] f32 @p0+64
sbuf y [8, 16] f32 @p0+3904
dma x, X
dma z, Z
act y, x, identity, bias=z[:, 0:1]
memset x, 0
dma Y, y
)";

// act reads what a load writes: only the RAW dependence makes it wait.
inline constexpr char kRawProgram[] = R"(arch tiny
dram X [8, 64] f32 input
dram Y [8, 64] f32 output
sbuf x [8, 64] f32 @p0+0
sbuf y [8, 64] f32 @p0+256
dma x, X
act y, x, relu
dma Y, y
)";

// The declarations of a hand-allocated SBUF spill: a is spilled to a_spill, b reuses its bytes, and a's reload
// a_Reload1 lands on b's bytes once b is dead; c has bytes of its own. The equivalence oracle's and the reference
// storage's tests write the body.
inline constexpr char kSpillReloadDecls[] = R"(arch tiny
dram A [8, 64] u32 input
dram B [8, 64] u32 input
dram C [8, 64] u32 output
sbuf a [8, 64] u32 @p0+0
dram a_spill [8, 64] u32 @0 !spill(a)
sbuf b [8, 64] u32 @p0+0
sbuf a_Reload1 [8, 64] u32 @p0+0 !reload(a)
sbuf c [8, 64] u32 @p0+512
)";

}  // namespace allocsim
