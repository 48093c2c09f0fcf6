// The corpus kernels (corpus/kernels/*.nki.txt): each parses, is well-formed, interprets, and its DRAM outputs
// equal, bit for bit, a plain C++ reference computed from the same inputs (tests/corpus/reference_kernels.h, which
// documents the evaluation order it shares with the kernels). Also each kernel keeps its sizing claim
// (tests/corpus/kernel_pressure.h): gen2 kernels fit, tiny kernels overfill the machine yet stay allocatable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "tests/common/files.h"
#include "tests/corpus/kernel_pressure.h"
#include "tests/corpus/kernel_run.h"
#include "tests/corpus/reference_kernels.h"

namespace allocsim {
namespace {

using reference::Matrix;

const std::string kKernelDir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/";

std::string readKernel(const std::string& file) { return readFile(kKernelDir + file); }

Expected attentionRef(const KernelRun& r) {
  Matrix qT = r.input("qT");
  // The kernel's immediate is 1/sqrt(d) printed as the shortest decimal that reads back to the same double.
  float scale = float(1.0 / std::sqrt(double(qT.rows)));
  reference::AttentionResult a = reference::attention(qT, r.input("kT"), r.input("v"), scale);
  return {{"o", r.encode("o", a.o)}, {"l", r.encode("l", a.l)}};
}

Expected layernormRef(const KernelRun& r) {
  Matrix x = r.input("X");
  // The kernel's immediate is the decimal of 1/cols (0.0009765625, 0.003125): the same double as 1.0/cols.
  float inv_cols = float(1.0 / x.cols);
  Matrix y = reference::layernorm(x, r.input("gamma"), r.input("beta"), inv_cols, float(1e-05), 4);
  return {{"Y", r.encode("Y", y)}};
}

ReferenceFn poolingRef(uint32_t images, uint32_t h, uint32_t w) {
  return [=](const KernelRun& r) {
    return Expected{{"Y", r.encode("Y", reference::maxPool2x2(r.input("X"), images, h, w))}};
  };
}

Expected transposeRef(const KernelRun& r) { return {{"Out", r.encode("Out", reference::transpose(r.input("In")))}}; }

// Block q of the result sums, for each key block k <= q in order and within it each contraction row in order,
// lhsT[kk, m] * rhs[kk, k*B + n]: one accumulation group per query block, as the kernel's matmuls add up.
Expected causalRef(const KernelRun& r) {
  const Matrix w = r.input("lhsT"), x = r.input("rhs");
  const uint32_t blocks = x.cols == 1024 ? 16 : 4, b = x.cols / blocks;
  Matrix c(w.cols, x.cols);
  for (uint32_t q = 0; q < blocks; ++q)
    for (uint32_t m = 0; m < c.rows; ++m)
      for (uint32_t n = 0; n < b; ++n) {
        float acc = 0;
        for (uint32_t k = 0; k <= q; ++k)
          for (uint32_t kk = 0; kk < w.rows; ++kk) acc = acc + w.at(kk, m) * x.at(kk, k * b + n);
        c.at(m, q * b + n) = acc;
      }
  return {{"result", r.encode("result", c)}};
}

Expected addRef(const KernelRun& r) { return {{"C", r.encode("C", reference::add(r.input("A"), r.input("B")))}}; }

// Which resource a tiny kernel is sized to overfill.
enum class Overfills { Nothing, Sbuf, Psum };

struct KernelCase {
  const char* file;
  ReferenceFn reference;
  Overfills overfills;
};

const std::vector<KernelCase>& kernelCases() {
  static const std::vector<KernelCase> cases = {
      {"matmul_tiled.nki.txt", matmulRef, Overfills::Nothing},
      {"matmul_tiled_tiny.nki.txt", matmulRef, Overfills::Sbuf},
      {"matmul_hoisted.nki.txt", matmulRef, Overfills::Nothing},
      {"matmul_hoisted_tiny.nki.txt", matmulRef, Overfills::Sbuf},
      {"matmul_blocked.nki.txt", matmulRef, Overfills::Nothing},
      {"matmul_blocked_tiny.nki.txt", matmulRef, Overfills::Psum},
      {"attention_block.nki.txt", attentionRef, Overfills::Nothing},
      {"attention_block_tiny.nki.txt", attentionRef, Overfills::Sbuf},
      {"layernorm.nki.txt", layernormRef, Overfills::Nothing},
      {"layernorm_tiny.nki.txt", layernormRef, Overfills::Sbuf},
      {"pooling.nki.txt", poolingRef(4, 32, 32), Overfills::Nothing},
      {"pooling_tiny.nki.txt", poolingRef(4, 16, 32), Overfills::Sbuf},
      {"transpose_identity.nki.txt", transposeRef, Overfills::Nothing},
      {"transpose_identity_tiny.nki.txt", transposeRef, Overfills::Sbuf},
      {"looped_add.nki.txt", addRef, Overfills::Nothing},
      {"looped_add_tiny.nki.txt", addRef, Overfills::Sbuf},
      {"causal_blocks.nki.txt", causalRef, Overfills::Nothing},
      {"causal_blocks_tiny.nki.txt", causalRef, Overfills::Sbuf},
  };
  return cases;
}

void PrintTo(const KernelCase& c, std::ostream* os) { *os << c.file; }

// "" when equal, else where and how the first differing element differs.
class CorpusKernel : public ::testing::TestWithParam<KernelCase> {};

TEST_P(CorpusKernel, IsWellFormed) {
  Program p = parseProgram(readKernel(GetParam().file));
  std::string all;
  for (const Diagnostic& d : checkProgram(p)) all += formatDiagnostic(GetParam().file, d) + "\n";
  EXPECT_EQ(all, "");
}

TEST_P(CorpusKernel, InterpreterMatchesTheReferenceBitForBit) {
  const KernelCase& c = GetParam();
  for (uint64_t seed : {uint64_t(1), uint64_t(0x5eed)}) {
    const KernelRun run(readKernel(c.file), seed);
    // The references transpose exactly where the kernels multiply by an identity: true for finite inputs
    // without -0 (reference_kernels.h). Hold the input generator to that.
    for (TensorId id = 0; id < run.p.tensors.size(); ++id) {
      const Tensor& t = run.p.tensors[id];
      if (!t.input) continue;
      Matrix m = run.input(t.name);
      for (float f : m.v) ASSERT_TRUE(std::isfinite(f) && !(f == 0.0f && std::signbit(f))) << t.name << " " << f;
    }
    expectOutputsEqual(run, seed, c.reference(run), c.file);
  }
}

TEST_P(CorpusKernel, KeepsItsSizingClaim) {
  const KernelCase& c = GetParam();
  Program p = parseProgram(readKernel(c.file));
  pressure::Pressure m = pressure::measure(p);
  const Arch& a = p.arch;
  SCOPED_TRACE(std::string(c.file) + ": peak SBUF " + std::to_string(m.peak_sbuf_bytes) + " B, peak PSUM " +
               std::to_string(m.peak_psum_banks) + " banks, largest instruction " +
               std::to_string(m.max_inst_sbuf_bytes) + " B / " + std::to_string(m.max_inst_psum_banks) + " banks");
  // Allocation must be possible: every tensor and every instruction's operands fit at once.
  EXPECT_LE(m.largest_sbuf_tensor, a.sbuf_bytes);
  EXPECT_LE(m.largest_psum_tensor, a.psum_banks);
  EXPECT_LE(m.max_inst_sbuf_bytes, a.sbuf_bytes);
  EXPECT_LE(m.max_inst_psum_banks, a.psum_banks);
  switch (c.overfills) {
    case Overfills::Nothing:
      EXPECT_EQ(a.name, "gen2");
      EXPECT_LE(m.peak_sbuf_bytes, a.sbuf_bytes);
      EXPECT_LE(m.peak_psum_banks, a.psum_banks);
      break;
    case Overfills::Sbuf:
      EXPECT_EQ(a.name, "tiny");
      EXPECT_GT(m.peak_sbuf_bytes, a.sbuf_bytes);
      break;
    case Overfills::Psum:
      EXPECT_EQ(a.name, "tiny");
      EXPECT_GT(m.peak_psum_banks, a.psum_banks);
      break;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, CorpusKernel, ::testing::ValuesIn(kernelCases()),
                         [](const ::testing::TestParamInfo<KernelCase>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           return name;
                         });

// Every kernel file in the corpus is covered by a case above (a new kernel needs a reference).
TEST(Corpus, EveryKernelFileHasAReference) {
  std::vector<std::string> files, covered;
  for (const auto& e : std::filesystem::directory_iterator(kKernelDir)) {
    std::string name = e.path().filename().string();
    if (name.size() > 8 && name.substr(name.size() - 8) == ".nki.txt") files.push_back(name);
  }
  for (const KernelCase& c : kernelCases()) covered.push_back(c.file);
  std::sort(files.begin(), files.end());
  std::sort(covered.begin(), covered.end());
  EXPECT_EQ(files, covered);
}

// The comparison is not vacuous: one flipped bit in an output is reported with its element and both values.
TEST(Corpus, ComparisonReportsTheFirstDifferingElement) {
  const KernelRun run(readKernel("looped_add_tiny.nki.txt"), 1);
  InterpResult result = interpret(run.p, InterpOptions{1});
  TensorId c = run.p.findTensor("C");
  std::vector<uint8_t> want = addRef(run).at("C");
  std::vector<uint8_t> got = result.outputs.at(c);
  ASSERT_EQ(firstDifference(got, want, run.p.tensors[c]), "");
  size_t element = 4096 + 5;  // partition 1, element 5
  got[element * 4] ^= 1;
  std::string diff = firstDifference(got, want, run.p.tensors[c]);
  EXPECT_EQ(diff.rfind("C[1, 5]: interpreter ", 0), 0u) << diff;
  EXPECT_NE(diff.find(", reference "), std::string::npos) << diff;
}

}  // namespace
}  // namespace allocsim
