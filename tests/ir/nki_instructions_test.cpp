// iota, transpose, broadcast, tt_scan, bn_stats and bn_aggr (docs/format.md "Iota", "Transpose and broadcast",
// "Tensor-tensor scan", "Batch-norm statistics"): values worked by hand; parsed and printed back; misuse reported
// with its location; the operands every pass sees; the simulator's cycles against NKI's cost formulas; allocated
// programs (hand-written and generated) through the three oracles and the simulator.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/operand_effects.h"
#include "alloc/tensor_accesses.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "gen/stats.h"
#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "ir/values.h"
#include "sim/simulate.h"
#include "tests/common/program_text.h"
#include "tests/common/sim_checks.h"
#include "tests/common/verify_checks.h"
#include "verify/operands.h"

namespace allocsim {
namespace {

// The first diagnostic of `body` after a header of declarations, "line:col: message".
std::string firstError(const std::string& head, const std::string& body) {
  const std::vector<Diagnostic> d = checkProgram(parseProgram(head + body));
  return d.empty() ? "none" : formatDiagnostic("t", d.front());
}

// --- iota -------------------------------------------------------------------------------------------------------

TEST(Iota, AffineInPartitionAndElementWithARegisterOffset) {
  const std::vector<float> o = outputFloats(
      "arch tiny\ndram O [4, 3] f32 output\nsbuf x [4, 3] f32\nreg r\n"
      "li r, 50\niota x, p=2, e=-1, c=r*2-3\ndma O, x\n");
  ASSERT_EQ(o.size(), 12u);
  for (int p = 0; p < 4; ++p)
    for (int e = 0; e < 3; ++e) EXPECT_EQ(o[p * 3 + e], float(2 * p - e + 97)) << p << " " << e;
}

// p and e count within the destination view; the value is an i32 (it wraps), then converts as copy converts an i32.
TEST(Iota, CountsWithinTheViewWrapsAt32BitsAndConverts) {
  const Program p = parseProgram(
      "arch tiny\ndram O [2, 4] i32 output\ndram H [1, 2] u16 output\nsbuf x [2, 4] i32\nsbuf h [1, 2] u16\n"
      "memset x, 7\niota x[1:1, 2:2], p=5, e=1, c=2147483646\niota h, p=0, e=65535, c=1\ndma O, x\ndma H, h\n");
  ASSERT_TRUE(checkProgram(p).empty());
  const InterpResult r = interpret(p);
  std::vector<int32_t> o(8);
  std::memcpy(o.data(), r.outputs[p.findTensor("O")].data(), 32);
  // Row 1, columns 2 and 3 are p = 0, e = 0 and 1: 2147483646 and 2147483647; the rest keeps the memset.
  EXPECT_EQ(o, (std::vector<int32_t>{7, 7, 7, 7, 7, 7, 2147483646, 2147483647}));
  std::vector<uint16_t> h(2);
  std::memcpy(h.data(), r.outputs[p.findTensor("H")].data(), 4);
  EXPECT_EQ(h, (std::vector<uint16_t>{1, 0}));  // 65536 keeps its low 16 bits
  const std::vector<float> w = outputFloats(
      "arch tiny\ndram O [1, 2] f32 output\nsbuf x [1, 2] f32\niota x, p=0, e=1, c=2147483647\ndma O, x\n");
  EXPECT_EQ(w, (std::vector<float>{2147483648.0f, -2147483648.0f}));  // 2^31 - 1 rounds up; 2^31 wraps
}

// --- transpose and broadcast ------------------------------------------------------------------------------------

TEST(Transpose, SwapsPartitionsAndElements) {
  const std::vector<float> o = outputFloats(
      "arch tiny\ndram O [3, 4] f32 output\nsbuf x [4, 3] bf16\npsum t [3, 4] f32\nsbuf y [3, 4] f32\n"
      "iota x, p=10, e=1, c=0\ntranspose t, x\ncopy y, t\ndma O, y\n");
  ASSERT_EQ(o.size(), 12u);
  for (int f = 0; f < 3; ++f)
    for (int p = 0; p < 4; ++p) EXPECT_EQ(o[f * 4 + p], float(10 * p + f)) << f << " " << p;
}

TEST(Broadcast, CopiesOnePartitionToEvery) {
  const std::vector<float> o = outputFloats(
      "arch tiny\ndram O [8, 5] f32 output\nsbuf x [2, 5] f32\npsum t [8, 5] f32\nsbuf y [8, 5] f32\n"
      "iota x, p=100, e=3, c=1\nbroadcast t, x[1:1, :]\ncopy y, t\ndma O, y\n");
  ASSERT_EQ(o.size(), 40u);
  for (int m = 0; m < 8; ++m)
    for (int n = 0; n < 5; ++n) EXPECT_EQ(o[m * 5 + n], float(101 + 3 * n)) << m << " " << n;
}

// --- tt_scan ----------------------------------------------------------------------------------------------------

const std::string kScanHead =
    "arch tiny\ndram O [2, 4] f32 output\nsbuf a [2, 4] f32\nsbuf b [2, 4] f32\nsbuf i [2, 1] f32\n"
    "sbuf r [2, 4] f32\niota a, p=1, e=1, c=1\n";  // a = [[1 2 3 4] [2 3 4 5]]

TEST(TensorTensorScan, AddThenMultiply) {
  // r[i] = (a[i] + r[i-1]) * 0.5 from 0: row 0 0.5 1.25 2.125 3.0625; row 1 1 2 3 4.
  const std::vector<float> o = outputFloats(kScanHead + "memset b, 0.5\ntt_scan r, a, b, 0.0, add, mul\ndma O, r\n");
  EXPECT_EQ(o, (std::vector<float>{0.5f, 1.25f, 2.125f, 3.0625f, 1, 2, 3, 4}));
}

// NKI's operand order: the data is op0's left operand, so sub computes a[i] - r[i-1].
TEST(TensorTensorScan, SubtractsTheRunningValueFromTheData) {
  // row 0: 1-10 = -9, 2+9 = 11, 3-11 = -8, 4+8 = 12; row 1: 2-10 = -8, 3+8 = 11, 4-11 = -7, 5+7 = 12.
  const std::vector<float> o = outputFloats(kScanHead + "memset b, 0.0\ntt_scan r, a, b, 10, sub, add\ndma O, r\n");
  EXPECT_EQ(o, (std::vector<float>{-9, 11, -8, 12, -8, 11, -7, 12}));
}

TEST(TensorTensorScan, PerPartitionInitialValueAndBf16Result) {
  // Running sums from i = [100, 200], minus b = 0.25 at each step; the f32 chain is rounded to bf16 only at the end.
  const Program p = parseProgram(
      "arch tiny\ndram O [2, 4] bf16 output\nsbuf a [2, 4] f32\nsbuf b [2, 4] f32\nsbuf i [2, 1] f32\n"
      "sbuf r [2, 4] bf16\niota a, p=1, e=1, c=1\nmemset b, 0.25\niota i, p=100, e=0, c=100\n"
      "tt_scan r, a, b, i, add, sub\ndma O, r\n");
  ASSERT_TRUE(checkProgram(p).empty());
  const InterpResult res = interpret(p);
  std::vector<uint16_t> o(8);
  std::memcpy(o.data(), res.outputs[p.findTensor("O")].data(), 16);
  const float want[8] = {100.75f, 102.5f, 105.25f, 109.0f, 201.75f, 204.5f, 208.25f, 213.0f};
  for (int k = 0; k < 8; ++k) EXPECT_EQ(o[k], f32ToBf16(want[k])) << k;
}

// --- bn_stats / bn_aggr -----------------------------------------------------------------------------------------

// x = 1 2 3 4 5: even elements 1 3 5 (count 3, mean 3, m2 4+0+4 = 8), odd 2 4 (count 2, mean 3, m2 1+1 = 2);
// merged: mean 3, m2 10, variance 10/5 = 2 (the population variance of 1..5).
TEST(BatchNorm, StatsOfEvenAndOddElementsThenTheirAggregate) {
  const std::string head =
      "arch tiny\ndram O [1, 6] f32 output\ndram A [1, 2] f32 output\nsbuf x [1, 5] f32\nsbuf s [1, 6] f32\n"
      "sbuf m [1, 2] f32\niota x, p=0, e=1, c=1\nbn_stats s, x\nbn_aggr m, s\ndma O, s\ndma A, m\n";
  const Program p = parseProgram(head);
  ASSERT_TRUE(checkProgram(p).empty());
  const InterpResult r = interpret(p);
  std::vector<float> s(6), m(2);
  std::memcpy(s.data(), r.outputs[p.findTensor("O")].data(), 24);
  std::memcpy(m.data(), r.outputs[p.findTensor("A")].data(), 8);
  EXPECT_EQ(s, (std::vector<float>{3, 3, 8, 2, 3, 2}));
  EXPECT_EQ(m, (std::vector<float>{3, 2}));
}

TEST(BatchNorm, OneElementLeavesTheOddGroupEmpty) {
  const std::vector<float> o = outputFloats(
      "arch tiny\ndram O [2, 6] f32 output\nsbuf x [2, 1] f32\nsbuf s [2, 6] f32\n"
      "iota x, p=4, e=0, c=-1\nbn_stats s, x\ndma O, s\n");
  EXPECT_EQ(o, (std::vector<float>{1, -1, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0}));
}

// Two chunks merged by bn_aggr against the mean and population variance of all elements, computed here in double
// from the same inputs (the f32 merge differs from it only by rounding).
TEST(BatchNorm, AggregateOfTwoChunksMatchesTheWholeRow) {
  const Program p = parseProgram(
      "arch tiny\ndram X [8, 40] f32 input\ndram A [8, 2] f32 output\nsbuf x [8, 40] f32\nsbuf s [8, 12] f32\n"
      "sbuf m [8, 2] f32\ndma x, X\nbn_stats s[:, 0:6], x[:, 0:17]\nbn_stats s[:, 6:6], x[:, 17:23]\n"
      "bn_aggr m, s\ndma A, m\n");
  ASSERT_TRUE(checkProgram(p).empty());
  InterpOptions o;
  o.input_seed = 5;
  const InterpResult r = interpret(p, o);
  const std::vector<uint8_t> in = inputBytes(p.tensors[p.findTensor("X")], 5);
  std::vector<float> x(8 * 40), m(16);
  std::memcpy(x.data(), in.data(), in.size());
  std::memcpy(m.data(), r.outputs[p.findTensor("A")].data(), 64);
  for (int q = 0; q < 8; ++q) {
    double sum = 0, sq = 0;
    for (int e = 0; e < 40; ++e) sum += x[q * 40 + e];
    const double mean = sum / 40;
    for (int e = 0; e < 40; ++e) sq += (x[q * 40 + e] - mean) * (x[q * 40 + e] - mean);
    EXPECT_NEAR(m[q * 2], mean, 1e-5) << q;
    EXPECT_NEAR(m[q * 2 + 1], sq / 40, 1e-5) << q;
  }
}

// NKI's layernorm tutorial, version 2 (nki_layernorm_kernel_v2): bn_stats per 64-element chunk, bn_aggr, then
// (x - mean) * rsqrt(var + eps) * gamma + beta; against layer normalization computed here in double.
TEST(BatchNorm, LayernormKernelMatchesTheFormula) {
  const Program p = parseProgram(
      "arch tiny\ndram X [16, 128] f32 input\ndram G [1, 128] f32 input\ndram B [1, 128] f32 input\n"
      "dram O [16, 128] f32 output\nsbuf g [8, 128] f32\nsbuf b [8, 128] f32\nsbuf x [8, 128] f32\n"
      "sbuf st [8, 12] f32\nsbuf mv [8, 2] f32\nsbuf ve [8, 1] f32\nsbuf sv [8, 1] f32\nsbuf y [8, 128] f32\n"
      "reg q\nreg i\nreg j\n"
      "loop q = 0, 8, 1 {\n  dma g[q:1, :], G\n  dma b[q:1, :], B\n}\n"
      "loop i = 0, 2, 1 {\n  dma x, X[i*8:8, :]\n"
      "  loop j = 0, 2, 1 {\n    bn_stats st[:, j*6:6], x[:, j*64:64]\n  }\n"
      "  bn_aggr mv, st\n  ts ve, mv[:, 1:1], 1e-05, add\n  act sv, ve, rsqrt\n"
      "  ts y, x, mv[:, 0:1], sub, sv, mul\n  tt y, y, g, mul\n  tt y, y, b, add\n  dma O[i*8:8, :], y\n}\n");
  const std::vector<Diagnostic> d = checkProgram(p);
  ASSERT_TRUE(d.empty()) << formatDiagnostic("t", d[0]);
  InterpOptions o;
  o.input_seed = 9;
  const InterpResult r = interpret(p, o);
  auto floats = [&](const char* name) {
    const std::vector<uint8_t> bytes = inputBytes(p.tensors[p.findTensor(name)], 9);
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  };
  const std::vector<float> x = floats("X"), g = floats("G"), b = floats("B");
  std::vector<float> out(16 * 128);
  std::memcpy(out.data(), r.outputs[p.findTensor("O")].data(), out.size() * 4);
  for (int row = 0; row < 16; ++row) {
    double mean = 0, var = 0;
    for (int e = 0; e < 128; ++e) mean += x[row * 128 + e] / 128.0;
    for (int e = 0; e < 128; ++e) var += (x[row * 128 + e] - mean) * (x[row * 128 + e] - mean) / 128.0;
    for (int e = 0; e < 128; ++e) {
      const double want = (x[row * 128 + e] - mean) / std::sqrt(var + 1e-05) * g[e] + b[e];
      EXPECT_NEAR(out[row * 128 + e], want, 1e-4) << row << " " << e;
    }
  }
}

// --- text form and checker --------------------------------------------------------------------------------------

// gen2: a transpose writes up to 128 partitions.
const std::string kHead =
    "arch gen2\nsbuf x [8, 16] f32\nsbuf y [8, 16] f32\nsbuf c [8, 1] f32\nsbuf i [8, 16] u32\nsbuf w [8, 600] f32\n"
    "sbuf s [8, 6] f32\nsbuf g [8, 2] f32\npsum t [16, 8] f32\npsum u [8, 16] f32\npsum v [8, 64] f32\nreg r\n\n";

TEST(NkiInstructions, ParseAndPrintBack) {
  const std::string body =
      "li r, 3\nmemset x, 1.0\nmemset y, 2.0\nmemset c, 0.5\niota i, p=16, e=1, c=r*4-2\niota x[:, 0:4], p=0, e=-3, c=0\n"
      "transpose t, x\nbroadcast u, y[2:1, :]\ntt_scan y, x, y, 0.0, add, mul\ntt_scan y, x, y, c, max, sub\n"
      "tt_scan y, x, y, r, min, div\nbn_stats s, x\nbn_aggr g, s\n";
  const Program p = parseProgram(kHead + body);
  EXPECT_EQ(printProgram(p), kHead + body);
  const std::vector<Diagnostic> d = checkProgram(p);
  EXPECT_TRUE(d.empty()) << (d.empty() ? "" : formatDiagnostic("t", d[0]));
}

TEST(NkiInstructions, CheckerErrorsAreLocated) {
  const std::string init = "memset x, 1.0\nmemset y, 1.0\nmemset c, 1.0\nmemset i, 1\nmemset w, 1.0\nmemset s, 1.0\n";
  auto err = [&](const std::string& line) { return firstError(kHead + init, line + "\n"); };
  EXPECT_EQ(err("transpose u, x"), "t:20:11: transpose destination 'u' view [8, 16] must be [16, 8] (the source's shape transposed)");
  EXPECT_EQ(err("transpose t, y[:, 0:8]"), "t:20:11: transpose destination 't' view [16, 8] must be [8, 8] (the source's shape transposed)");
  EXPECT_EQ(err("transpose x, y"), "t:20:11: transpose destination 'x' must be in PSUM, not sbuf");
  EXPECT_EQ(err("transpose t, u"), "t:20:14: transpose source 'u' must be in SBUF, not psum");
  EXPECT_EQ(err("transpose v, w[:, 0:200]"),
            "t:20:14: transpose source 'w' view [8, 200] has 200 elements per partition; the PE transposes at most 128");
  EXPECT_EQ(err("broadcast u, y"), "t:20:14: broadcast source 'y' view [8, 16] must be one partition (it is copied to every destination partition)");
  EXPECT_EQ(err("broadcast v, w[0:1, 0:520]"),
            "t:20:14: broadcast source 'w' view [1, 520] has 520 elements; the PE broadcasts at most 512");
  EXPECT_EQ(err("broadcast v[:, 0:64], w[0:1, 0:64]"), "none");
  EXPECT_EQ(err("tt_scan y, i, y, 0.0, add, add"),
            "t:20:12: tt_scan computes in f32 and needs float sources; first source 'i' is u32");
  EXPECT_EQ(err("tt_scan y, x, y, 0.0, shl, add"), "t:20:1: tt_scan cannot use shl; its operations are add sub mul max min div");
  EXPECT_EQ(err("tt_scan y, x, y, y, add, add"),
            "t:20:18: tt_scan initial value 'y' view [8, 16] must be [8, 1] (one value per partition)");
  EXPECT_EQ(err("tt_scan u, u, u, 0.0, add, add"),
            "t:20:15: tt_scan sources 'u' and 'u' cannot both be in PSUM (DVE reads at most one of them from PSUM)");
  EXPECT_EQ(err("bn_stats s, w[:, 0:513]"),
            "t:20:13: bn_stats source 'w' view [8, 513] has 513 elements per partition; at most 512 (split it and merge "
            "the statistics with bn_aggr)");
  EXPECT_EQ(err("bn_stats g, x"),
            "t:20:10: bn_stats destination 'g' view [8, 2] must be [8, 6] (count, mean, m2 of the even and of the odd "
            "elements)");
  EXPECT_EQ(err("bn_stats s, i"), "t:20:13: bn_stats computes in f32 and needs a float source; source 'i' is u32");
  EXPECT_EQ(err("bn_aggr g, s[:, 0:4]"),
            "t:20:12: bn_aggr source 's' view [8, 4] must hold (count, mean, m2) tuples: its elements per partition must "
            "be a multiple of 3");
  EXPECT_EQ(err("bn_aggr s, s"), "t:20:9: bn_aggr destination 's' view [8, 6] must be [8, 2] (mean, variance)");
}

TEST(NkiInstructions, ParseErrorsAreLocated) {
  auto err = [&](const std::string& line) {
    try {
      parseProgram(kHead + line + "\n");
    } catch (const InputError& e) {
      return formatDiagnostic("t", e.diagnostics().at(0));
    }
    return std::string("parsed");
  };
  EXPECT_EQ(err("iota x, p=1, e=1"), "t:14:17: expected ',' after the element coefficient");
  EXPECT_EQ(err("iota x, e=1, p=1, c=0"), "t:14:9: expected p=... (iota takes p=A, e=B, c=C)");
  EXPECT_EQ(err("iota x, p=1.5, e=1, c=0"), "t:14:11: the partition coefficient must be an integer, not 1.5");
  EXPECT_EQ(err("tt_scan y, x, y, 0.0, add"), "t:14:26: expected ',' after the first operation");
  EXPECT_EQ(err("transpose t"), "t:14:12: expected ',' after the destination");
}

// The operands every pass sees: tt_scan reads A, B and its initial value, iota reads the registers of c, and
// each writes its whole destination.
TEST(NkiInstructions, OperandsOfEveryPass) {
  Program p = parseProgram(kHead +
                           "li r, 1\nmemset x, 1.0\nmemset y, 1.0\nmemset c, 1.0\ntt_scan y, x, y, c, add, add\n"
                           "iota i, p=1, e=1, c=r\ntranspose t, x\n");
  const Instruction& scan = p.body[4];
  OperandEffects e = operandEffects(p, scan);
  EXPECT_EQ(e.tensor_reads, (std::vector<TensorId>{p.findTensor("x"), p.findTensor("y"), p.findTensor("c")}));
  ASSERT_EQ(e.tensor_writes.size(), 1u);
  EXPECT_EQ(e.tensor_writes[0].tensor, p.findTensor("y"));
  EXPECT_EQ(e.tensor_writes[0].cover, WriteCover::Whole);
  const TensorAccessList acc = tensorAccesses(p, scan, Space::Sbuf);
  ASSERT_EQ(acc.size(), 4u);
  EXPECT_EQ(acc[0].operand, Operand::A);
  EXPECT_EQ(acc[1].operand, Operand::B);
  EXPECT_EQ(acc[2].operand, Operand::Scalar);
  EXPECT_EQ(acc[3].operand, Operand::Dst);
  EXPECT_EQ(readOperandNames(p, scan, 3).size(), 3u);

  const Instruction& iota = p.body[5];
  e = operandEffects(p, iota);
  EXPECT_TRUE(e.tensor_reads.empty());
  EXPECT_EQ(e.reg_reads, (std::vector<RegId>{p.findRegister("r")}));
  ASSERT_EQ(registerOperands(p, iota).size(), 1u);
  EXPECT_EQ(registerOperands(p, iota)[0].role, "mask offset c");

  const Instruction& tr = p.body[6];
  e = operandEffects(p, tr);
  EXPECT_EQ(e.tensor_reads, (std::vector<TensorId>{p.findTensor("x")}));
  ASSERT_EQ(e.tensor_writes.size(), 1u);
  EXPECT_EQ(e.tensor_writes[0].tensor, p.findTensor("t"));
  EXPECT_EQ(engineOf(Op::Transpose), Engine::PE);
  EXPECT_EQ(engineOf(Op::Broadcast), Engine::PE);
  EXPECT_EQ(engineOf(Op::Iota), Engine::POOL);
  for (Op op : {Op::TTScan, Op::BnStats, Op::BnAggr}) EXPECT_EQ(engineOf(op), Engine::DVE);
}

// --- the simulator's cycles: NKI's estimated instruction costs (sim/timing/default.txt) -------------------------

// The busy cycles of `engine` when the program is the one instruction `line` after memsets on POOL (gen2: a transpose
// writes up to 128 partitions).
uint64_t busyOf(const std::string& line, Engine engine) {
  const Program p = parseProgram(
      "arch gen2\nsbuf x [8, 100] f32 @p0+0\nsbuf y [8, 100] f32 @p0+400\nsbuf s [8, 36] f32 @p0+800\n"
      "sbuf g [8, 2] f32 @p0+944\npsum t [64, 8] f32 @bank0\npsum u [8, 40] f32 @bank1\n"
      "memset x, 1.0\nmemset y, 1.0\nmemset s, 1.0\n" + line + "\n");
  EXPECT_TRUE(checkProgram(p).empty()) << line;
  const sim::SimResult r = expectSimulatorMatchesInterpreter(p, 3);
  return r.stats.engines[size_t(engine)].busy_cycles;
}

// Engine cycles by NKI's formulas, reported in cycles of the 1.4 GHz reporting clock: DVE runs at 1.12 GHz (x 1.25),
// PE at 2.8 GHz (x 0.5), POOL at 1.4 GHz (the architecture guide's engine table).
TEST(NkiInstructions, SimulatorChargesNkiCostFormulas) {
  EXPECT_EQ(busyOf("tt_scan y, x, y, 0.0, add, add", Engine::DVE), 250u);           // max(64, 2 * 100) = 200
  EXPECT_EQ(busyOf("tt_scan y[:, 0:20], x[:, 0:20], y[:, 0:20], 0.0, add, add", Engine::DVE), 80u);  // max(64, 40)
  EXPECT_EQ(busyOf("bn_stats s[:, 0:6], x", Engine::DVE), 125u);                   // max(64, 100) = 100
  EXPECT_EQ(busyOf("bn_aggr g, s", Engine::DVE), 195u);                            // max(64, 13 * 36/3) = 156
  EXPECT_EQ(busyOf("bn_aggr g, s[:, 0:12]", Engine::DVE), 80u);                    // max(64, 13 * 4) = 64
  const uint64_t memsets = busyOf("", Engine::POOL);  // the three memsets before
  EXPECT_EQ(busyOf("iota x, p=1, e=1, c=0", Engine::POOL) - memsets, 250u);           // 150 + 100
  EXPECT_EQ(busyOf("iota x[:, 0:10], p=1, e=1, c=0", Engine::POOL) - memsets, 160u);  // 150 + 10
  EXPECT_EQ(busyOf("transpose t, x[:, 0:64]", Engine::PE), 32u);                   // max(8, min(64, 64)) = 64
  EXPECT_EQ(busyOf("transpose t[0:4, :], x[:, 0:4]", Engine::PE), 4u);             // max(8, min(64, 4)) = 8
  // The matmul of ones [1, 8] with an f32 row of 40: max(min(64, 8), 40) = 40, times 4 for f32.
  EXPECT_EQ(busyOf("broadcast u, x[0:1, 0:40]", Engine::PE), 80u);
}

// --- allocated programs through the oracles and the simulator --------------------------------------------------

const std::string kKernel =
    "arch tiny\ndram X [8, 64] f32 input\ndram O [8, 42] f32 output\nsbuf x [8, 32] f32\nsbuf st [8, 12] f32\n"
    "sbuf mv [8, 2] f32\nsbuf sc [8, 32] f32\nsbuf idx [8, 32] f32\nsbuf out [8, 42] f32\npsum tr [8, 8] f32\n"
    "psum bc [8, 8] f32\nsbuf trs [8, 8] f32\nreg n\n\n"
    "loop n = 0, 2, 1 {\n  dma x, X[:, n*32:32]\n  bn_stats st[:, n*6:6], x\n}\n"
    "bn_aggr mv, st\niota idx, p=0, e=1, c=0\ntt_scan sc, x, idx, mv[:, 0:1], add, max\n"
    "transpose tr, sc[:, 0:8]\ncopy trs, tr\nbroadcast bc, trs[3:1, :]\ncopy out[:, 0:8], bc\ncopy out[:, 8:32], sc\n"
    "copy out[:, 40:2], mv\ndma O, out\n";

TEST(NkiInstructions, AllocatesVerifiesAndSimulates) {
  const Program p = parseProgram(kKernel);
  const std::vector<Diagnostic> d = checkProgram(p);
  ASSERT_TRUE(d.empty()) << formatDiagnostic("t", d[0]);
  expectEveryLevelCorrectAndSimulated(p, {1, 2, 3, 6, 8}, 7);
}

// An allocation that places the statistics tensor on the chunk it is computed from (both live in the loop) fails the
// oracles.
TEST(NkiInstructions, OraclesCatchAClobberedStatisticsTensor) {
  const Program p = parseProgram(kKernel);
  Program bad = allocatedAt(p, 2);
  const TensorId st = bad.findTensor("st"), x = bad.findTensor("x");
  ASSERT_TRUE(bad.tensors[st].placement && bad.tensors[x].placement);
  ASSERT_NE(bad.tensors[st].placement, bad.tensors[x].placement);
  bad.tensors[st].placement = bad.tensors[x].placement;
  EXPECT_EQ(verdictAgainst(p, bad, 0).defect, Defect::Findings);
}

TEST(NkiInstructions, GeneratedProgramsAllocateVerifyAndSimulate) {
  uint32_t ops[6] = {};
  const GeneratedChecks g = checkGeneratedPrograms(30, [&](const Program& p) {
    uint32_t n = 0;
    forEachInstruction(p.body, [&](const Instruction& i) {
      if (i.op >= Op::Iota && i.op <= Op::BnAggr) ++n, ++ops[uint32_t(i.op) - uint32_t(Op::Iota)];
    });
    return n;
  });
  for (uint32_t k = 0; k < 6; ++k) EXPECT_GT(ops[k], 0u) << opName(Op(uint32_t(Op::Iota) + k));
  EXPECT_GE(g.with, 20u);
  EXPECT_GE(g.verified, g.with * 3 / 4);
}

}  // namespace
}  // namespace allocsim
