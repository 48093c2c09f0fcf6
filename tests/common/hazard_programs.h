// Hand-allocated programs whose result depends on one class of dependence between instructions, shared by the
// simulator's tests (a simulator that drops the class computes something else), the harness's (its simulated
// run must report that disagreement) and the timing oracle's (their schedules by hand).
#pragma once

namespace allocsim {

// x is loaded, then an ACT op waits for a long second load (its bias) while POOL overwrites x: only the WAR
// dependence keeps the memset from landing before the act reads x (ACT and POOL share no port).
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

}  // namespace allocsim
