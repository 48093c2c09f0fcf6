// The reference interpreter: each instruction on small programs, checked against values computed here with
// plain loops from the same inputs; loops and registers; errors with their locations; determinism; the operand
// hash.
#include "ir/interp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "ir/inputs.h"
#include "ir/parse.h"
#include "ir/values.h"

namespace allocsim {
namespace {

template <typename T>
std::vector<T> as(const std::vector<uint8_t>& bytes) {
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

struct Ran {
  Program p;
  std::vector<std::vector<uint8_t>> inputs;
  InterpResult r;
  explicit Ran(const std::string& text, uint64_t seed = 1) : p(parseProgram(text)) {
    inputs = makeInputs(p, seed);
    InterpOptions o;
    o.input_seed = seed;
    r = interpret(p, o);
  }
  template <typename T>
  std::vector<T> in(const char* name) const { return as<T>(inputs.at(p.findTensor(name))); }
  template <typename T>
  std::vector<T> out(const char* name) const { return as<T>(r.outputs.at(p.findTensor(name))); }
};

// "line:col: message" of the InputError the program raises when it runs, or "ran".
std::string runError(const Program& p, const InterpOptions& o = {}) {
  try {
    interpret(p, o);
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
  }
  return "ran";
}
std::string runError(const std::string& text) { return runError(parseProgram(text)); }

uint32_t bits(float f) { return f32Bits(f); }

// --- inputs -----------------------------------------------------------------------------------------------

TEST(Inputs, RangesAndDeterminism) {
  Program p = parseProgram(
      "arch tiny\ndram F [8, 64] f32 input\ndram H [8, 64] bf16 input\ndram U [8, 64] u32 input\n"
      "dram S [8, 64] u16 input\ndram O [8, 64] f32 output\nsbuf x [8, 64] f32\n");
  auto in = makeInputs(p, 7);
  ASSERT_EQ(in.size(), 6u);
  EXPECT_EQ(in[0].size(), 8u * 64 * 4);
  EXPECT_EQ(in[1].size(), 8u * 64 * 2);
  EXPECT_EQ(in[3].size(), 8u * 64 * 2);
  EXPECT_TRUE(in[4].empty());
  EXPECT_TRUE(in[5].empty());
  std::set<float> distinct;
  for (float f : as<float>(in[0])) {
    EXPECT_GE(f, -2.0f);
    EXPECT_LT(f, 2.0f);
    EXPECT_EQ(f * 256.0f, std::floor(f * 256.0f));
    distinct.insert(f);
  }
  EXPECT_GT(distinct.size(), 200u);
  // bf16: the 256 multiples of 1/64 in [-2, 2); 512 draws reach both signs and both ends of the range.
  std::set<float> distinctBf16;
  for (uint16_t h : as<uint16_t>(in[1])) {
    float f = bf16ToF32(h);
    EXPECT_GE(f, -2.0f);
    EXPECT_LT(f, 2.0f);
    EXPECT_EQ(f * 64.0f, std::floor(f * 64.0f));
    distinctBf16.insert(f);
  }
  ASSERT_FALSE(distinctBf16.empty());
  EXPECT_LT(*distinctBf16.begin(), -1.5f);
  EXPECT_GT(*distinctBf16.rbegin(), 1.5f);
  EXPECT_GT(distinctBf16.size(), 150u);
  EXPECT_LT(*distinct.begin(), -1.5f);  // f32 too
  EXPECT_GT(*distinct.rbegin(), 1.5f);
  uint32_t orBits = 0, andBits = ~0u;
  for (uint32_t u : as<uint32_t>(in[2])) orBits |= u, andBits &= u;
  EXPECT_EQ(orBits, ~0u);  // every bit varies
  EXPECT_EQ(andBits, 0u);
  EXPECT_EQ(makeInputs(p, 7), in);
  EXPECT_NE(makeInputs(p, 8)[0], in[0]);
  // Seeded by name: another program with a tensor of the same name and shape gets the same bytes.
  Program q = parseProgram("arch tiny\ndram Z [2, 2] u32 input\ndram U [8, 64] u32 input\n");
  EXPECT_EQ(makeInputs(q, 7)[1], in[2]);
}

// --- data movement and elementwise ---------------------------------------------------------------------------

const std::string kAB = "arch tiny\ndram A [8, 16] f32 input\ndram B [8, 16] f32 input\ndram C [8, 16] f32 output\n"
                        "sbuf a [8, 16] f32\nsbuf b [8, 16] f32\nsbuf c [8, 16] f32\n";

TEST(Interp, DmaMovesBytes) {
  Ran t(kAB + "dma a, A\ndma C, a\n");
  EXPECT_EQ(t.r.outputs[t.p.findTensor("C")], t.inputs[t.p.findTensor("A")]);
  EXPECT_TRUE(t.r.outputs[t.p.findTensor("A")].empty());
  EXPECT_EQ(t.r.steps, 2u);
  ASSERT_EQ(t.r.reads.size(), 2u);
  EXPECT_EQ(t.r.reads[1].inst_id, 1u);
}

TEST(Interp, DmaWithSlicesAndASecondDimension) {
  // c[p, 0:4] = A[p, 0:2] ++ A[p, 8:10]  (step 8, count 2, twice)
  Ran t(kAB + "dma a, A\nmemset c, 0\ndma c[2:3, 0:4], a[1:3, 0:2, 8:2]\ndma C, c\n");
  auto A = t.in<float>("A"), C = t.out<float>("C");
  for (int p = 0; p < 8; ++p)
    for (int e = 0; e < 16; ++e) {
      float want = 0;
      if (p >= 2 && p < 5 && e < 4) want = A[(p - 1) * 16 + (e < 2 ? e : e + 6)];
      EXPECT_EQ(C[p * 16 + e], want) << p << "," << e;
    }
}

TEST(Interp, TensorTensorFloat) {
  for (const char* alu : {"add", "sub", "mul", "max", "min"}) {
    Ran t(kAB + "dma a, A\ndma b, B\ntt c, a, b, " + alu + "\ndma C, c\n");
    auto A = t.in<float>("A"), B = t.in<float>("B"), C = t.out<float>("C");
    for (size_t i = 0; i < C.size(); ++i) {
      std::string op = alu;
      float want = op == "add" ? A[i] + B[i] : op == "sub" ? A[i] - B[i] : op == "mul" ? A[i] * B[i]
                   : op == "max" ? std::fmax(A[i], B[i]) : std::fmin(A[i], B[i]);
      ASSERT_EQ(bits(C[i]), bits(want)) << alu << " " << i;
    }
  }
}

TEST(Interp, TensorTensorIntegers) {
  const std::string decls =
      "arch tiny\ndram A [4, 8] i32 input\ndram B [4, 8] u32 input\ndram C [4, 8] i32 output\n"
      "dram D [4, 8] u32 output\nsbuf a [4, 8] i32\nsbuf b [4, 8] u32\nsbuf c [4, 8] i32\nsbuf d [4, 8] u32\n"
      "dma a, A\ndma b, B\n";
  struct Case {
    const char* alu;
    int32_t (*signedOp)(int32_t, uint32_t);
    uint32_t (*unsignedOp)(uint32_t, int32_t);
  };
  const Case cases[] = {
      {"add", [](int32_t x, uint32_t y) { return int32_t(uint32_t(x) + y); }, [](uint32_t y, int32_t x) { return y + uint32_t(x); }},
      {"mul", [](int32_t x, uint32_t y) { return int32_t(uint32_t(x) * y); }, [](uint32_t y, int32_t x) { return y * uint32_t(x); }},
      {"max", [](int32_t x, uint32_t y) { return std::max(x, int32_t(y)); }, [](uint32_t y, int32_t x) { return std::max(y, uint32_t(x)); }},
      {"min", [](int32_t x, uint32_t y) { return std::min(x, int32_t(y)); }, [](uint32_t y, int32_t x) { return std::min(y, uint32_t(x)); }},
      {"shr", [](int32_t x, uint32_t y) { return x >> (y % 32); }, [](uint32_t y, int32_t x) { return y >> (uint32_t(x) % 32); }},
      {"shl", [](int32_t x, uint32_t y) { return int32_t(uint32_t(x) << (y % 32)); }, [](uint32_t y, int32_t x) { return y << (uint32_t(x) % 32); }},
      {"xor", [](int32_t x, uint32_t y) { return int32_t(uint32_t(x) ^ y); }, [](uint32_t y, int32_t x) { return y ^ uint32_t(x); }},
  };
  for (const Case& k : cases) {
    // c = a op b in a's (signed) class; d = b op a in b's (unsigned) class.
    Ran t(decls + "tt c, a, b, " + k.alu + "\ntt d, b, a, " + k.alu + "\ndma C, c\ndma D, d\n");
    auto A = t.in<int32_t>("A");
    auto B = t.in<uint32_t>("B");
    auto C = t.out<int32_t>("C");
    auto D = t.out<uint32_t>("D");
    for (size_t i = 0; i < A.size(); ++i) {
      EXPECT_EQ(C[i], k.signedOp(A[i], B[i])) << k.alu << i;
      EXPECT_EQ(D[i], k.unsignedOp(B[i], A[i])) << k.alu << i;
    }
  }
}

TEST(Interp, U16WrapsMod65536) {
  Ran t("arch tiny\ndram A [2, 8] u16 input\ndram C [2, 8] u16 output\nsbuf a [2, 8] u16\nsbuf c [2, 8] u16\n"
        "dma a, A\ntt c, a, a, mul\nts c, c, 40000, add\ndma C, c\n");
  auto A = t.in<uint16_t>("A"), C = t.out<uint16_t>("C");
  for (size_t i = 0; i < A.size(); ++i) EXPECT_EQ(C[i], uint16_t((uint32_t(A[i]) * A[i] + 40000u) % 65536u));
}

TEST(Interp, Bf16ComputesInF32AndRoundsToNearestEven) {
  Ran t("arch tiny\ndram A [2, 8] bf16 input\ndram B [2, 8] bf16 input\ndram C [2, 8] bf16 output\n"
        "sbuf a [2, 8] bf16\nsbuf b [2, 8] bf16\nsbuf c [2, 8] bf16\n"
        "dma a, A\ndma b, B\ntt c, a, b, mul\nts c, c, 0.01, add\ndma C, c\n");
  auto A = t.in<uint16_t>("A"), B = t.in<uint16_t>("B"), C = t.out<uint16_t>("C");
  for (size_t i = 0; i < A.size(); ++i) {
    uint16_t prod = f32ToBf16(bf16ToF32(A[i]) * bf16ToF32(B[i]));
    EXPECT_EQ(C[i], f32ToBf16(bf16ToF32(prod) + 0.01f)) << i;
  }
}

TEST(Interp, TensorScalarOperands) {
  Ran t("arch tiny\ndram A [4, 8] f32 input\ndram I [4, 8] u32 input\ndram S [4, 1] f32 input\n"
        "dram C [4, 8] f32 output\ndram D [4, 8] f32 output\ndram E [4, 8] u32 output\ndram F [4, 8] f32 output\n"
        "sbuf a [4, 8] f32\nsbuf i [4, 8] u32\nsbuf s [4, 1] f32\nsbuf c [4, 8] f32\nsbuf d [4, 8] f32\n"
        "sbuf e [4, 8] u32\nsbuf f [4, 8] f32\nreg r\nreg x\n"
        "dma a, A\ndma i, I\ndma s, S\nli r, 3\nli x, 1.5\n"
        "ts c, a, 0.5, mul\n"          // float immediate
        "ts d, a, x, mul\n"            // register holding f32 bits
        "ts e, i, r, shr\n"            // integer register
        "ts f, a, s, sub\n"            // per-partition scalar
        "dma C, c\ndma D, d\ndma E, e\ndma F, f\n");
  auto A = t.in<float>("A"), S = t.in<float>("S");
  auto I = t.in<uint32_t>("I");
  auto C = t.out<float>("C"), D = t.out<float>("D"), F = t.out<float>("F");
  auto E = t.out<uint32_t>("E");
  for (size_t k = 0; k < A.size(); ++k) {
    EXPECT_EQ(C[k], A[k] * 0.5f);
    EXPECT_EQ(D[k], A[k] * 1.5f);
    EXPECT_EQ(E[k], I[k] >> 3);
    EXPECT_EQ(F[k], A[k] - S[k / 8]);
  }
}

TEST(Interp, ActivationFunctions) {
  // The transcendental functions' values are checked against libm in tests/ir/transcendental_test.cpp; here, that
  // the interpreter computes each through ir/transcendental.h.
  for (const char* fn : {"identity", "relu", "neg", "abs", "square", "exp", "tanh", "sigmoid", "silu", "gelu", "sqrt",
                         "rsqrt", "reciprocal"}) {
    Ran t(kAB + "dma a, A\nact c, a, " + fn + "\ndma C, c\n");
    auto A = t.in<float>("A"), C = t.out<float>("C");
    std::string f = fn;
    for (size_t i = 0; i < A.size(); ++i) {
      float x = A[i];
      float want = f == "identity" ? x : f == "relu" ? (x > 0 ? x : 0.0f) : f == "neg" ? -x : f == "abs" ? std::fabs(x)
                 : f == "square" ? x * x : f == "exp" ? expF32(x) : f == "tanh" ? tanhF32(x)
                 : f == "sigmoid" ? sigmoidF32(x) : f == "silu" ? siluF32(x) : f == "gelu" ? geluF32(x)
                 : f == "sqrt" ? sqrtF32(x) : f == "rsqrt" ? rsqrtF32(x) : reciprocalF32(x);
      ASSERT_EQ(bits(C[i]), bits(want)) << fn << " " << x;
    }
  }
}

TEST(Interp, IntegerActivationsWrap) {
  Ran t("arch tiny\ndram A [4, 8] i32 input\ndram C [4, 8] i32 output\ndram D [4, 8] i32 output\n"
        "dram E [4, 8] i32 output\nsbuf a [4, 8] i32\nsbuf c [4, 8] i32\nsbuf d [4, 8] i32\nsbuf e [4, 8] i32\n"
        "dma a, A\nact c, a, neg\nact d, a, square\nact e, a, relu\nmemset a[0:1, 0:1], 0x80000000\n"
        "act a, a, abs\ndma C, c\ndma D, d\ndma E, e\n");
  auto A = t.in<int32_t>("A"), C = t.out<int32_t>("C"), D = t.out<int32_t>("D"), E = t.out<int32_t>("E");
  for (size_t i = 0; i < A.size(); ++i) {
    EXPECT_EQ(uint32_t(C[i]), 0u - uint32_t(A[i]));
    EXPECT_EQ(uint32_t(D[i]), uint32_t(A[i]) * uint32_t(A[i]));
    EXPECT_EQ(E[i], std::max(A[i], 0));
  }
}

TEST(Interp, CopyConvertsWithTruncationSaturationAndNaNToZero) {
  Ran t("arch tiny\ndram A [1, 8] f32 input\ndram C [1, 8] i32 output\ndram D [1, 8] bf16 output\n"
        "dram E [1, 4] u16 output\ndram F [1, 2] f32 output\n"
        "sbuf a [1, 8] f32\nsbuf c [1, 8] i32\nsbuf d [1, 8] bf16\nsbuf e [1, 4] u16\nsbuf f [1, 2] f32\n"
        "sbuf g [1, 2] i32\n"
        "dma a, A\ncopy c, a\ncopy d, a\n"
        "memset a[0:1, 0:1], 1e10\nmemset a[0:1, 1:1], -1e10\nmemset a[0:1, 2:1], nan\nmemset a[0:1, 3:1], -2.75\n"
        "copy e, a[0:1, 0:4]\ncopy c[0:1, 4:4], a[0:1, 0:4]\n"
        "memset g[0:1, 0:1], -16777217\nmemset g[0:1, 1:1], 2147483647\ncopy f, g\n"
        "dma C, c\ndma D, d\ndma E, e\ndma F, f\n");
  auto A = t.in<float>("A");
  auto C = t.out<int32_t>("C");
  auto D = t.out<uint16_t>("D");
  auto E = t.out<uint16_t>("E");
  auto F = t.out<float>("F");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(C[i], int32_t(A[i]));  // truncation toward zero
  for (int i = 0; i < 8; ++i) EXPECT_EQ(D[i], uint16_t(bits(A[i]) >> 16) + ((bits(A[i]) & 0xffff) > 0x8000 || ((bits(A[i]) & 0xffff) == 0x8000 && (bits(A[i]) >> 16 & 1))));
  EXPECT_EQ(C[4], INT32_MAX);
  EXPECT_EQ(C[5], INT32_MIN);
  EXPECT_EQ(C[6], 0);
  EXPECT_EQ(C[7], -2);
  EXPECT_EQ(E[0], 65535);
  EXPECT_EQ(E[1], 0);
  EXPECT_EQ(E[2], 0);
  EXPECT_EQ(E[3], 0);
  EXPECT_EQ(F[0], -16777216.0f);  // nearest even
  EXPECT_EQ(F[1], 2147483648.0f);
}

TEST(Interp, ReduceFoldsTheFreeAxisInOrder) {
  Ran t("arch tiny\ndram A [8, 16] f32 input\ndram I [8, 16] i32 input\ndram C [8, 1] f32 output\n"
        "dram D [8, 1] i32 output\nsbuf a [8, 16] f32\nsbuf i [8, 16] i32\nsbuf c [8, 1] f32\nsbuf d [8, 1] i32\n"
        "dma a, A\ndma i, I\nreduce c, a, add\nreduce d, i, max\ndma C, c\ndma D, d\n");
  auto A = t.in<float>("A"), C = t.out<float>("C");
  auto I = t.in<int32_t>("I"), D = t.out<int32_t>("D");
  for (int p = 0; p < 8; ++p) {
    float s = A[p * 16];
    int32_t m = I[p * 16];
    for (int e = 1; e < 16; ++e) s = s + A[p * 16 + e], m = std::max(m, I[p * 16 + e]);
    EXPECT_EQ(bits(C[p]), bits(s));
    EXPECT_EQ(D[p], m);
  }
}

TEST(Interp, MemsetConvertsTheImmediate) {
  Ran t("arch tiny\ndram C [2, 4] u16 output\ndram D [2, 4] bf16 output\nsbuf c [2, 4] u16\nsbuf d [2, 4] bf16\n"
        "memset c, 70000\nmemset d, 1.00390625\ndma C, c\ndma D, d\n");
  for (uint16_t v : t.out<uint16_t>("C")) EXPECT_EQ(v, 70000 % 65536);
  for (uint16_t v : t.out<uint16_t>("D")) EXPECT_EQ(v, 0x3f80);  // tie 1 + 2^-8 rounds to even
}

// --- matmul ----------------------------------------------------------------------------------------------------

const std::string kMM =
    "arch tiny\ndram S [8, 4] f32 input\ndram M [8, 6] f32 input\ndram C [4, 6] f32 output\n"
    "sbuf s [8, 4] f32\nsbuf m [8, 6] f32\npsum acc [4, 6] f32\nsbuf c [4, 6] f32\ndma s, S\ndma m, M\n";

TEST(Interp, MatmulAccumulatesOverKInOrder) {
  Ran t(kMM + "matmul acc, s, m, start\nmatmul acc, s, m, stop\ncopy c, acc\ndma C, c\n");
  auto S = t.in<float>("S"), M = t.in<float>("M"), C = t.out<float>("C");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      float acc = 0;
      for (int rep = 0; rep < 2; ++rep)
        for (int k = 0; k < 8; ++k) acc = acc + S[k * 4 + i] * M[k * 6 + j];
      EXPECT_EQ(bits(C[i * 6 + j]), bits(acc)) << i << "," << j;
    }
}

TEST(Interp, MatmulKLoopWithStartAtFirstEqualsOneMatmul) {
  Ran whole(kMM + "matmul acc, s, m, start, stop\ncopy c, acc\ndma C, c\n");
  Ran tiled(kMM + "reg k\nloop k = 0, 4, 1 {\n  matmul acc, s[k*2:2, :], m[k*2:2, :], start@first, stop@last\n}\n"
                  "copy c, acc\ndma C, c\n");
  EXPECT_EQ(whole.r.outputs, tiled.r.outputs);
  // and start@first really restarts: run the loop twice
  Ran twice(kMM + "reg k\nreg q\nloop q = 0, 2, 1 {\n  loop k = 0, 4, 1 {\n"
                  "    matmul acc, s[k*2:2, :], m[k*2:2, :], start@first, stop@last\n  }\n}\ncopy c, acc\ndma C, c\n");
  EXPECT_EQ(whole.r.outputs, twice.r.outputs);
}

// (ir/check.h rejects a bf16 PSUM tensor; the interpreter still defines it: the accumulator is bf16 at every step.)
TEST(Interp, MatmulIntegerWrapsAndBf16RoundsEveryStep) {
  Ran t("arch tiny\ndram S [8, 2] u32 input\ndram M [8, 3] u32 input\ndram C [2, 3] u32 output\n"
        "dram H [8, 2] bf16 input\ndram G [8, 3] bf16 input\ndram D [2, 3] bf16 output\n"
        "sbuf s [8, 2] u32\nsbuf m [8, 3] u32\npsum acc [2, 3] u32\nsbuf c [2, 3] u32\n"
        "sbuf h [8, 2] bf16\nsbuf g [8, 3] bf16\npsum bacc [2, 3] bf16\nsbuf d [2, 3] bf16\n"
        "dma s, S\ndma m, M\nmatmul acc, s, m, start, stop\ncopy c, acc\ndma C, c\n"
        "dma h, H\ndma g, G\nmatmul bacc, h, g, start, stop\ncopy d, bacc\ndma D, d\n");
  auto S = t.in<uint32_t>("S"), M = t.in<uint32_t>("M"), C = t.out<uint32_t>("C");
  auto H = t.in<uint16_t>("H"), G = t.in<uint16_t>("G"), D = t.out<uint16_t>("D");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      uint32_t acc = 0;
      float bacc = 0;
      for (int k = 0; k < 8; ++k) {
        acc += S[k * 2 + i] * M[k * 3 + j];
        bacc = bf16ToF32(f32ToBf16(bacc + bf16ToF32(H[k * 2 + i]) * bf16ToF32(G[k * 3 + j])));
      }
      EXPECT_EQ(C[i * 3 + j], acc);
      EXPECT_EQ(D[i * 3 + j], f32ToBf16(bacc));
    }
}

TEST(Interp, Gen2TiledMatmulIsCorrect) {
  const std::string text = R"(arch gen2
dram A [128, 128] f32 input
dram B [128, 1024] f32 input
dram C [128, 1024] f32 output
sbuf a [128, 128] f32
sbuf b [128, 512] f32
psum acc [128, 512] f32
sbuf c [128, 512] f32
reg n
dma a, A
loop n = 0, 2, 1 {
  dma b, B[:, n*512:512]
  matmul acc, a, b, start, stop
  copy c, acc
  dma C[:, n*512:512], c
}
)";
  Ran t(text);
  auto A = t.in<float>("A"), B = t.in<float>("B"), C = t.out<float>("C");
  for (int m = 0; m < 128; m += 7)
    for (int n = 0; n < 1024; n += 13) {
      float acc = 0;
      for (int k = 0; k < 128; ++k) acc = acc + A[k * 128 + m] * B[k * 1024 + n];
      ASSERT_EQ(bits(C[m * 1024 + n]), bits(acc)) << m << "," << n;
    }
}

// --- registers and loops ---------------------------------------------------------------------------------------

TEST(Interp, ScalarRegisterOpsWrapAtTheirWidth) {
  Ran t("arch tiny\ndram C [1, 8] u32 output\nsbuf c [1, 8] u32\nreg a\nreg b\nreg w 64\nreg v 64\n"
        "li a, 0xffffffff\naddi b, a, 2\n"       // 32-bit wrap: 1
        "li w, 0xffffffff\naddi w, w, 2\n"       // 64-bit: 0x1_00000001
        "add v, w, w\n"                          // 0x2_00000002
        "mov a, v\n"                             // truncated: 2
        "addi v, v, -3\n"                        // 0x1_ffffffff
        "reg_store c[0:1, 0:1], b\nreg_store c[0:1, 1:2], w\nreg_store c[0:1, 3:1], a\nreg_store c[0:1, 4:2], v\n"
        "memset c[0:1, 6:2], 9\ndma C, c\n");
  std::vector<uint32_t> want = {1, 1, 1, 2, 0xffffffffu, 1, 9, 9};
  EXPECT_EQ(t.out<uint32_t>("C"), want);
}

TEST(Interp, RegLoadReadsLittleEndianLanes) {
  Ran t("arch tiny\ndram A [1, 4] u32 input\ndram C [1, 4] u32 output\nsbuf a [1, 4] u32\nreg w 64\nreg r\n"
        "dma a, A\nreg_load w, a[0:1, 1:2]\nreg_load r, a[0:1, 0:1]\naddi w, w, 1\n"
        "reg_store a[0:1, 2:2], w\nadd r, r, r\nreg_store a[0:1, 0:1], r\ndma C, a\n");
  auto A = t.in<uint32_t>("A"), C = t.out<uint32_t>("C");
  uint64_t w = (uint64_t(A[1]) | uint64_t(A[2]) << 32) + 1;
  EXPECT_EQ(C[0], A[0] * 2);
  EXPECT_EQ(C[1], A[1]);
  EXPECT_EQ(C[2], uint32_t(w));
  EXPECT_EQ(C[3], uint32_t(w >> 32));
}

TEST(Interp, LoopRegisterTakesEachValueAndEndsAtTheFirstValueNotBelowHi) {
  Ran t("arch tiny\ndram C [1, 8] u32 output\nsbuf c [1, 8] u32\nreg n\nreg k\nmemset c, 0\n"
        "loop n = 1, 8, 3 {\n  reg_store c[0:1, n:1], n\n}\nreg_store c[0:1, 0:1], n\n"
        "loop k = 5, 5, 1 {\n  li n, 0\n}\nreg_store c[0:1, 2:1], k\ndma C, c\n");
  std::vector<uint32_t> want = {10, 1, 5, 0, 4, 0, 0, 7};
  EXPECT_EQ(t.out<uint32_t>("C"), want);
  // memset + 3 iterations + 3 stores + 1 store + 0 iterations + 1 store + dma
  EXPECT_EQ(t.r.steps, 10u);
  EXPECT_EQ(t.r.reads.size(), 7u);
}

TEST(Interp, BodyWritesDoNotChangeTheTripCount) {
  Ran t("arch tiny\ndram C [1, 1] u32 output\nsbuf c [1, 1] u32\nreg n\nreg s\nli s, 0\n"
        "loop n = 0, 4, 1 {\n  addi s, s, 1\n  li n, 100\n}\nreg_store c, s\ndma C, c\n");
  EXPECT_EQ(t.out<uint32_t>("C")[0], 4u);
}

// --- errors ------------------------------------------------------------------------------------------------------

TEST(InterpError, AccessOutOfRangeIsReportedAtTheAccessPattern) {
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] f32\nreg n\nmemset a, 0\nloop n = 0, 3, 1 {\n"
                     "  copy a[:, 0:4], a[:, n*7:4]\n}\n"),
            "6:19: elements [14, 18) of 'a' out of range: it has 16 per partition");
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] f32\nreg n\nli n, 5\nmemset a[n:4, :], 0\n"),
            "5:8: partitions [5, 9) of 'a' out of range: it has 8");
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] f32\nreg n\nli n, 1\nmemset a[:, n*-2:1], 0\n"),
            "5:8: elements [-2, -1) of 'a' out of range: it has 16 per partition");
}

TEST(InterpError, ShapeMismatchAndBadRegisterViews) {
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] f32\nsbuf b [4, 16] f32\nmemset b, 1\ncopy a, b\n"),
            "5:9: source has shape [4, 16], expected [8, 16]");
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] f32\nsbuf b [8, 2] f32\nmemset a, 1\nreduce b, a, add\n"),
            "5:8: reduce destination has shape [8, 2], expected [8, 1]");
  EXPECT_EQ(runError("arch tiny\nsbuf a [8, 16] u32\nreg w 64\nmemset a, 1\nreg_load w, a[0:1, 0:1]\n"),
            "5:13: reg_load needs 2 element(s) of 4 bytes, the view has 1 of 4");
}

TEST(InterpError, StepLimitAndLoopStep) {
  Program p = parseProgram("arch tiny\nreg n\nreg r\nloop n = 0, 1000000, 1 {\n  li r, 1\n}\n");
  InterpOptions o;
  o.max_steps = 1000;
  EXPECT_EQ(runError(p, o), "4:1: execution did not finish within 1000 steps");
  p.body[0].step = 0;  // the parser rejects this; the interpreter must not loop forever
  p.body[0].loc = {4, 1};
  EXPECT_EQ(runError(p), "4:1: loop step must be positive, got 0");
}

TEST(InterpError, StorageLimitAndMalformedIds) {
  Program p = parseProgram("arch tiny\nsbuf a [8, 1024] f32\nsbuf b [8, 1024] f32\nmemset a, 0\n");
  InterpOptions o;
  o.max_storage_bytes = 40000;
  EXPECT_EQ(runError(p, o), "3:6: the program's tensors need more than the interpreter's limit of 40000 bytes");
  Program q = p;
  q.body[0].dst.tensor = 17;
  EXPECT_EQ(runError(q), "4:8: access pattern names no tensor");
  Program r = parseProgram("arch tiny\nreg n\nli n, 1\n");
  r.body[0].rd = 5;
  EXPECT_EQ(runError(r), "3:1: li names no register");
}

// --- determinism and the operand hash -----------------------------------------------------------------------

TEST(InterpHash, SameSeedSameResultsOtherSeedOtherData) {
  const std::string text = kAB + "dma a, A\ndma b, B\ntt c, a, b, mul\nact c, c, exp\ndma C, c\n";
  Ran x(text, 5), y(text, 5), z(text, 6);
  EXPECT_EQ(x.r.outputs, y.r.outputs);
  EXPECT_EQ(x.r.reads, y.r.reads);
  EXPECT_NE(x.r.outputs, z.r.outputs);
  EXPECT_NE(x.r.reads, z.r.reads);
}

TEST(InterpHash, ChangesWhenAnOperandByteChanges) {
  const std::string head = "arch tiny\nsbuf a [4, 8] u32\nsbuf b [4, 8] u32\nmemset a, 7\n";
  Ran same(head + "memset a[2:1, 5:1], 7\ncopy b, a\n");
  Ran changed(head + "memset a[2:1, 5:1], 8\ncopy b, a\n");
  ASSERT_EQ(same.r.reads.size(), 3u);
  EXPECT_EQ(same.r.reads[0], changed.r.reads[0]);
  EXPECT_EQ(same.r.reads[1], changed.r.reads[1]);  // memset reads no data
  EXPECT_NE(same.r.reads[2].hash, changed.r.reads[2].hash);
  EXPECT_EQ(same.r.reads[2].inst_id, 2u);
}

TEST(InterpHash, CoversAddressRegistersScalarsAndTheAccumulator) {
  // The same bytes read through a different register value: the hash differs.
  const std::string head = "arch tiny\nsbuf a [4, 8] u32\nsbuf b [4, 1] u32\nreg n\nmemset a, 7\n";
  Ran r0(head + "li n, 0\ncopy b, a[:, n:1]\n"), r1(head + "li n, 1\ncopy b, a[:, n:1]\n");
  EXPECT_NE(r0.r.reads.back().hash, r1.r.reads.back().hash);
  // A ts register scalar.
  const std::string ts = "arch tiny\nsbuf a [4, 8] u32\nreg n\nmemset a, 7\n";
  Ran s0(ts + "li n, 0\nts a, a, n, add\n"), s1(ts + "li n, 1\nts a, a, n, add\n");
  EXPECT_NE(s0.r.reads.back().hash, s1.r.reads.back().hash);
  // The accumulator of a matmul without start, and only then.
  const std::string mm = "arch tiny\nsbuf s [2, 2] f32\nsbuf m [2, 2] f32\npsum acc [2, 2] f32\n"
                         "memset s, 1\nmemset m, 1\n";
  Ran a0(mm + "memset acc, 0\nmatmul acc, s, m\n"), a1(mm + "memset acc, 1\nmatmul acc, s, m\n");
  EXPECT_NE(a0.r.reads.back().hash, a1.r.reads.back().hash);
  Ran b0(mm + "memset acc, 0\nmatmul acc, s, m, start\n"), b1(mm + "memset acc, 1\nmatmul acc, s, m, start\n");
  EXPECT_EQ(b0.r.reads.back().hash, b1.r.reads.back().hash);
}

// A storage that clobbers one byte of a tensor the first time the interpreter asks for one of its rows after
// `after` rows were handed out: the physical-storage situation the hash exists for.
class ClobberingStorage : public PrivateStorage {
 public:
  ClobberingStorage(const Program& p, TensorId t, int after) : PrivateStorage(p), t_(t), after_(after) {}
  uint8_t* row(TensorId t, uint32_t partition) override {
    uint8_t* r = PrivateStorage::row(t, partition);
    if (t == t_ && after_-- == 0) r[0] ^= 1;
    return r;
  }

 private:
  TensorId t_;
  int after_;
};

TEST(InterpHash, ACorruptedReadShowsUpAtTheReadingInstruction) {
  Program p = parseProgram("arch tiny\nsbuf a [1, 4] u32\nsbuf b [1, 4] u32\nsbuf c [1, 4] u32\n"
                           "memset a, 3\ncopy b, a\ncopy c, a\n");
  InterpResult clean = interpret(p);
  // rows of a: memset (1), copy b (2), copy c (3): clobber at the third
  ClobberingStorage storage(p, p.findTensor("a"), 2);
  InterpResult dirty = interpret(p, storage, {});
  EXPECT_EQ(clean.reads[1], dirty.reads[1]);
  EXPECT_NE(clean.reads[2], dirty.reads[2]);
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// Random damage to a valid program's operands: every run either finishes or stops with an InputError (the
// sanitizer build turns anything undefined into a failure too).
TEST(InterpRobustness, MutatedProgramsRunOrRaiseInputError) {
  const Program base = parseProgram(
      "arch tiny\ndram A [8, 16] f32 input\ndram C [8, 16] f32 output\nsbuf a [8, 16] f32\nsbuf b [8, 16] i32\n"
      "sbuf s [8, 1] f32\npsum acc [8, 16] f32\nreg n\nreg w 64\n"
      "dma a, A\nloop n = 0, 2, 1 {\n  tt a[:, n*8:8], a[:, n*8:8], a[:, 0:8], add\n}\nreduce s, a, max\n"
      "ts a, a, s, mul\nmatmul acc, a[:, 0:8], a, start, stop\ncopy b, acc\nreg_store b[0:1, 0:2], w\n"
      "reg_load n, b[1:1, 3:1]\nact a, a, exp\ndma C, a\n");
  uint64_t seed = 99;
  auto next = [&](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  const int64_t edges[] = {0, 1, 2, 7, 8, 15, 16, 17, -1, INT32_MAX, INT64_MAX, INT64_MIN, 1LL << 32};
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    Program p = base;
    std::vector<AccessPattern*> aps;
    std::vector<Instruction*> insts;
    std::function<void(std::vector<Instruction>&)> collect = [&](std::vector<Instruction>& body) {
      for (Instruction& i : body) {
        insts.push_back(&i);
        for (AccessPattern* ap : {&i.dst, &i.a, &i.b, &i.scalar.ap.mut()})
          if (ap->tensor != kNone) aps.push_back(ap);
        collect(i.body);
      }
    };
    collect(p.body);
    for (int m = 0, count = 1 + int(next(3)); m < count; ++m) {
      AccessPattern& ap = *aps[next(aps.size())];
      int64_t e = edges[next(std::size(edges))];
      switch (next(9)) {
        case 0: ap.tensor = uint32_t(next(p.tensors.size() + 1)); break;
        case 1: ap.partition.constant = e; break;
        case 2: ap.offset.constant = e; break;
        case 3: ap.count = uint32_t(e); break;
        case 4: ap.count2 = uint32_t(e); ap.step2 = uint32_t(next(20)); break;
        case 5: ap.partitions = uint32_t(e); break;
        case 6: ap.offset.addTerm(uint32_t(next(3)), e); break;
        case 7: ap.partition.addTerm(uint32_t(next(3)), e); break;
        default: {
          Instruction& i = *insts[next(insts.size())];
          if (i.op == Op::Loop) i.hi = e, i.step = edges[next(std::size(edges))];
          else i.rd = uint32_t(next(3)), i.rs = uint32_t(next(3));
        }
      }
    }
    InterpOptions o;
    o.max_steps = 10000;
    try {
      interpret(p, o);
    } catch (const InputError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 300);  // the mutations do hit the checks
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// Storage that cannot give memory for one tensor: the run must stop with a located input error naming the step and
// the tensors of the instruction, not a bare "out of memory".
class NoRoomFor : public PrivateStorage {
 public:
  NoRoomFor(const Program& p, TensorId t) : PrivateStorage(p), t_(t) {}
  uint8_t* row(TensorId t, uint32_t partition) override {
    if (t == t_) throw std::bad_alloc();
    return PrivateStorage::row(t, partition);
  }

 private:
  TensorId t_;
};

TEST(Interp, OutOfMemoryNamesTheStepInstructionAndTensors) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram x [8, 16] f32 input\n"
      "sbuf a [8, 16] f32\n"
      "sbuf big [8, 16] f32\n"
      "dram y [8, 16] f32 output\n"
      "dma a, x\n"
      "act big, a, exp\n"
      "dma y, big\n");
  NoRoomFor storage(p, p.findTensor("big"));
  try {
    interpret(p, storage, InterpOptions{});
    FAIL() << "expected an input error";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].loc.line, 7u);  // the act
    // Then what was held at the peak and what could be got, in parentheses (ir/memory_available.h).
    const std::string& m = e.diagnostics()[0].message;
    const std::string where =
        "out of memory at step 2, executing act on 'big', 'a': the tensors in use need more memory than this machine "
        "can give (";
    EXPECT_EQ(m.substr(0, where.size()), where) << m;
    EXPECT_TRUE(m.find("more: ") != std::string::npos || m.find("no limit known") != std::string::npos) << m;
    EXPECT_EQ(m.back(), ')') << m;
  }
}

}  // namespace
}  // namespace allocsim
