// Plain C++ references for the corpus kernels (corpus/kernels/), written from the math, not from the
// interpreter: tests/corpus/corpus_test.cpp compares them bit for bit with what the interpreter computes.
//
// Bit-exactness needs the same f32 evaluation order as the kernels, so every reference fixes it (and the
// kernel's header comment shows the same steps):
// - one f32 operation at a time, no fused multiply-add (the build passes -ffp-contract=off);
// - a matmul sums k = 0, 1, ..., K-1 in order from an accumulator of +0 (start zeroes, then adds), one f32
//   multiply and one f32 add per step, through the K-tiles in loop order -- which is ascending k in every
//   kernel, so the whole product is one ascending loop over k;
// - a free-axis reduction folds left from the first element;
// - bf16 values widen exactly to f32; an f32 result stored as bf16 rounds to nearest, ties to even;
// - float immediates are the kernel's decimal text read as a double, then rounded to f32.
// The transposes by identity matmul are written as plain transposes: for finite data without -0 the identity
// product is exact (the one nonzero term is x*1 = x, every other term adds a zero), and the corpus test checks
// that the inputs are such data.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ir/dtype.h"
#include "ir/transcendental.h"

namespace allocsim::reference {

// A row-major matrix of f32 values.
struct Matrix {
  uint32_t rows = 0, cols = 0;
  std::vector<float> v;
  Matrix() = default;
  Matrix(uint32_t r, uint32_t c) : rows(r), cols(c), v(size_t(r) * c, 0.0f) {}
  float& at(uint32_t r, uint32_t c) { return v[size_t(r) * cols + c]; }
  float at(uint32_t r, uint32_t c) const { return v[size_t(r) * cols + c]; }
};

inline uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
inline float floatOf(uint32_t u) { return std::bit_cast<float>(u); }

// f32 -> bf16, round to nearest, ties to even: keep the top 16 bits and round up when the dropped half is
// more than half an ulp, or exactly half and the kept part is odd. (Only finite values occur here.)
inline uint16_t toBf16(float f) {
  uint32_t u = bitsOf(f);
  uint32_t kept = u >> 16, dropped = u & 0xffffu;
  if (dropped > 0x8000u || (dropped == 0x8000u && (kept & 1u))) ++kept;
  return uint16_t(kept);
}
inline float fromBf16(uint16_t b) { return floatOf(uint32_t(b) << 16); }

// Element bytes (little-endian, f32 or bf16 only) <-> matrix.
inline Matrix decode(const std::vector<uint8_t>& bytes, uint32_t rows, uint32_t cols, DType t) {
  Matrix m(rows, cols);
  for (size_t i = 0; i < m.v.size(); ++i) {
    if (t == DType::BF16) {
      m.v[i] = fromBf16(uint16_t(bytes[2 * i] | (bytes[2 * i + 1] << 8)));
    } else {
      uint32_t u = uint32_t(bytes[4 * i]) | uint32_t(bytes[4 * i + 1]) << 8 | uint32_t(bytes[4 * i + 2]) << 16 |
                   uint32_t(bytes[4 * i + 3]) << 24;
      m.v[i] = floatOf(u);
    }
  }
  return m;
}
inline std::vector<uint8_t> encode(const Matrix& m, DType t) {
  std::vector<uint8_t> out;
  for (float f : m.v) {
    uint32_t u = t == DType::BF16 ? toBf16(f) : bitsOf(f);
    for (uint32_t b = 0; b < dtypeSize(t); ++b) out.push_back(uint8_t(u >> (8 * b)));
  }
  return out;
}

// IEEE-754 maximum (no NaN occurs here): the larger value, +0 over -0.
inline float max2(float a, float b) {
  if (a > b) return a;
  if (b > a) return b;
  return std::signbit(a) ? b : a;
}

// C[m][n] = sum_k lhsT[k][m] * rhs[k][n]: the three loops, each C[m][n] summed over k ascending from +0
// (k is the middle loop only so that rhs is read along its rows; the order per element is the same).
inline Matrix matmulTransposedA(const Matrix& lhsT, const Matrix& rhs) {
  Matrix c(lhsT.cols, rhs.cols);  // all +0
  for (uint32_t m = 0; m < c.rows; ++m)
    for (uint32_t k = 0; k < lhsT.rows; ++k)
      for (uint32_t n = 0; n < c.cols; ++n) {
        float prod = lhsT.at(k, m) * rhs.at(k, n);
        c.at(m, n) = c.at(m, n) + prod;
      }
  return c;
}

inline Matrix transpose(const Matrix& a) {
  Matrix t(a.cols, a.rows);
  for (uint32_t r = 0; r < a.rows; ++r)
    for (uint32_t c = 0; c < a.cols; ++c) t.at(c, r) = a.at(r, c);
  return t;
}

inline Matrix add(const Matrix& a, const Matrix& b) {
  Matrix c(a.rows, a.cols);
  for (size_t i = 0; i < c.v.size(); ++i) c.v[i] = a.v[i] + b.v[i];
  return c;
}

// One attention head without the final division (corpus/kernels/attention_block.nki.txt):
//   S = Q.K^T; S' = S*scale; m = rowmax(S'); P = exp(S' - m) (f32); l = rowsum(P); O = bf16(P) . V.
struct AttentionResult {
  Matrix o;  // [seq_q, d]
  Matrix l;  // [seq_q, 1]
};
inline AttentionResult attention(const Matrix& qT, const Matrix& kT, const Matrix& v, float scale) {
  uint32_t d = qT.rows, sq = qT.cols, sk = kT.cols;
  AttentionResult r{Matrix(sq, d), Matrix(sq, 1)};
  std::vector<float> s(sk), p(sk);
  for (uint32_t q = 0; q < sq; ++q) {
    for (uint32_t k = 0; k < sk; ++k) {
      float acc = 0.0f;
      for (uint32_t i = 0; i < d; ++i) {
        float prod = qT.at(i, q) * kT.at(i, k);
        acc = acc + prod;
      }
      s[k] = acc * scale;
    }
    float m = s[0];
    for (uint32_t k = 1; k < sk; ++k) m = max2(m, s[k]);
    for (uint32_t k = 0; k < sk; ++k) {
      float shifted = s[k] - m;
      p[k] = expF32(shifted);  // the machine's exp (ir/transcendental: within 1 ulp of libm, tested there)
    }
    float l = p[0];
    for (uint32_t k = 1; k < sk; ++k) l = l + p[k];
    r.l.at(q, 0) = l;
    for (uint32_t j = 0; j < d; ++j) {
      float acc = 0.0f;
      for (uint32_t k = 0; k < sk; ++k) {
        float prod = fromBf16(toBf16(p[k])) * v.at(k, j);
        acc = acc + prod;
      }
      r.o.at(q, j) = acc;
    }
  }
  return r;
}

// Row-wise layer normalization (corpus/kernels/layernorm.nki.txt), rsqrt by `newton_steps` Newton steps
// y = y*(1.5 - 0.5*var*y*y) from y = 1, each written as the kernel's five operations.
inline Matrix layernorm(const Matrix& x, const Matrix& gamma, const Matrix& beta, float inv_cols, float eps,
                        int newton_steps) {
  Matrix out(x.rows, x.cols);
  std::vector<float> xc(x.cols);
  for (uint32_t r = 0; r < x.rows; ++r) {
    float sum = x.at(r, 0);
    for (uint32_t c = 1; c < x.cols; ++c) sum = sum + x.at(r, c);
    float mean = sum * inv_cols;
    for (uint32_t c = 0; c < x.cols; ++c) xc[c] = x.at(r, c) - mean;
    float sqsum = xc[0] * xc[0];
    for (uint32_t c = 1; c < x.cols; ++c) {
      float sq = xc[c] * xc[c];
      sqsum = sqsum + sq;
    }
    float var = sqsum * inv_cols;
    float vare = var + eps;
    float y = 1.0f;
    for (int i = 0; i < newton_steps; ++i) {
      float t1 = y * y;
      float t2 = t1 * vare;
      float t3 = t2 * -0.5f;
      float t4 = t3 + 1.5f;
      y = y * t4;
    }
    for (uint32_t c = 0; c < x.cols; ++c) {
      float xn = xc[c] * y;
      float xg = xn * gamma.at(0, c);
      out.at(r, c) = xg + beta.at(0, c);
    }
  }
  return out;
}

// 2x2 max pooling, stride 2, of `images` images of h x w per row (each row a channel), image b at columns
// b*h*w, row-major. The window's max is max(max(top pair), max(bottom pair)), as the kernel's two passes.
inline Matrix maxPool2x2(const Matrix& x, uint32_t images, uint32_t h, uint32_t w) {
  uint32_t oh = h / 2, ow = w / 2;
  Matrix o(x.rows, images * oh * ow);
  for (uint32_t ch = 0; ch < x.rows; ++ch)
    for (uint32_t b = 0; b < images; ++b)
      for (uint32_t y = 0; y < oh; ++y)
        for (uint32_t xx = 0; xx < ow; ++xx) {
          auto px = [&](uint32_t row, uint32_t col) { return x.at(ch, b * h * w + row * w + col); };
          float top = max2(px(2 * y, 2 * xx), px(2 * y, 2 * xx + 1));
          float bottom = max2(px(2 * y + 1, 2 * xx), px(2 * y + 1, 2 * xx + 1));
          o.at(ch, b * oh * ow + y * ow + xx) = max2(top, bottom);
        }
  return o;
}

}  // namespace allocsim::reference
