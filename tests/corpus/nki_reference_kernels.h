// Plain C++ references for some NKI sample kernels (corpus/nki_samples/), written from the tutorials' math in the
// evaluation order each kernel's header states, not from the interpreter: nki_samples_test.cpp beside this file compares them
// bit for bit with what the interpreter computes. The conventions of tests/corpus/reference_kernels.h hold: one f32
// operation at a time, matmul sums k ascending from +0, a reduction folds left from the first element, bf16 rounds
// to nearest even, float immediates are the decimal read as a double and rounded to f32, and the transcendental
// functions are ir/transcendental.h's (the format defines them that way).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/transcendental.h"
#include "tests/corpus/reference_kernels.h"

namespace allocsim::nki_reference {

using reference::Matrix;

inline float bf16Round(float f) { return reference::fromBf16(reference::toBf16(f)); }

inline float rowSum(const Matrix& a, uint32_t r) {
  float s = a.at(r, 0);
  for (uint32_t c = 1; c < a.cols; ++c) s = s + a.at(r, c);
  return s;
}

// matmul_fully_optimized: C = lhsT^T . rhs with K in blocks of k_block rows; each block's product is summed in f32
// (k ascending from +0, one PSUM accumulation group) and added into a bf16 running tile that starts at 0:
// acc = bf16(acc + block).
inline Matrix blockedMatmulBf16Accumulate(const Matrix& lhsT, const Matrix& rhs, uint32_t k_block) {
  Matrix acc(lhsT.cols, rhs.cols);
  for (uint32_t k0 = 0; k0 < lhsT.rows; k0 += k_block) {
    Matrix block(acc.rows, acc.cols);  // all +0; each element sums its k ascending (n innermost for the cache)
    for (uint32_t m = 0; m < acc.rows; ++m)
      for (uint32_t k = k0; k < k0 + k_block; ++k)
        for (uint32_t n = 0; n < acc.cols; ++n) block.at(m, n) = block.at(m, n) + lhsT.at(k, m) * rhs.at(k, n);
    for (size_t i = 0; i < acc.v.size(); ++i) acc.v[i] = bf16Round(acc.v[i] + block.v[i]);
  }
  return acc;
}

// softmax per row: m = max (fold), e = exp(x - m), s = sum(e) (fold), out = e / s.
inline Matrix softmax(const Matrix& a) {
  Matrix out(a.rows, a.cols);
  for (uint32_t r = 0; r < a.rows; ++r) {
    float m = a.at(r, 0);
    for (uint32_t c = 1; c < a.cols; ++c) m = reference::max2(m, a.at(r, c));
    Matrix e(1, a.cols);
    for (uint32_t c = 0; c < a.cols; ++c) e.at(0, c) = expF32(a.at(r, c) - m);
    const float s = rowSum(e, 0);
    for (uint32_t c = 0; c < a.cols; ++c) out.at(r, c) = e.at(0, c) / s;
  }
  return out;
}

// rmsnorm per row: ss = sum(x*x) (fold); rms = rsqrt(ss / N); out = (x * rms) * g.
inline Matrix rmsnorm(const Matrix& a, const Matrix& g) {
  Matrix out(a.rows, a.cols);
  const float n = float(double(a.cols));
  for (uint32_t r = 0; r < a.rows; ++r) {
    float ss = a.at(r, 0) * a.at(r, 0);
    for (uint32_t c = 1; c < a.cols; ++c) ss = ss + a.at(r, c) * a.at(r, c);
    const float rms = rsqrtF32(ss / n);
    for (uint32_t c = 0; c < a.cols; ++c) out.at(r, c) = (a.at(r, c) * rms) * g.at(0, c);
  }
  return out;
}

// layernorm_v1 per row: mean = sum(x) / N; var = sum(x*x) / N - mean*mean; rstd = rsqrt(var + eps);
// out = ((x - mean) * rstd) * gamma + beta.
inline Matrix layernormV1(const Matrix& x, const Matrix& gamma, const Matrix& beta, float eps) {
  Matrix out(x.rows, x.cols);
  const float n = float(double(x.cols));
  for (uint32_t r = 0; r < x.rows; ++r) {
    const float mean = rowSum(x, r) / n;
    float ss = x.at(r, 0) * x.at(r, 0);
    for (uint32_t c = 1; c < x.cols; ++c) ss = ss + x.at(r, c) * x.at(r, c);
    const float var = ss / n - mean * mean;
    const float rstd = rsqrtF32(var + eps);
    for (uint32_t c = 0; c < x.cols; ++c) out.at(r, c) = ((x.at(r, c) - mean) * rstd) * gamma.at(0, c) + beta.at(0, c);
  }
  return out;
}

// layernorm_v2 per row: per chunk of `chunk` elements its sum and its sum of squares (folds); the row's sum and sum
// of squares fold those over the chunks; mean = sum / N, var = sumsq / N - mean*mean, scale = rsqrt(var + eps);
// out = ((x - mean) * scale) * gamma + beta.
inline Matrix layernormV2(const Matrix& x, const Matrix& gamma, const Matrix& beta, float eps, uint32_t chunk) {
  Matrix out(x.rows, x.cols);
  const float n = float(double(x.cols));
  for (uint32_t r = 0; r < x.rows; ++r) {
    float sum = 0, sumsq = 0;
    for (uint32_t c0 = 0; c0 < x.cols; c0 += chunk) {
      float s = x.at(r, c0), q = x.at(r, c0) * x.at(r, c0);
      for (uint32_t c = c0 + 1; c < c0 + chunk; ++c) s = s + x.at(r, c), q = q + x.at(r, c) * x.at(r, c);
      sum = c0 == 0 ? s : sum + s;
      sumsq = c0 == 0 ? q : sumsq + q;
    }
    const float mean = sum / n;
    const float var = sumsq / n - mean * mean;
    const float scale = rsqrtF32(var + eps);
    for (uint32_t c = 0; c < x.cols; ++c) out.at(r, c) = ((x.at(r, c) - mean) * scale) * gamma.at(0, c) + beta.at(0, c);
  }
  return out;
}

// rotary on row tiles: out = x * cos; out[:, :D/2] += (-1 * x[:, D/2:]) * sin[:, :D/2]; out[:, D/2:] += x[:, :D/2] *
// sin[:, D/2:]. x has heads*seq rows (row h*seq + s), cos and sin seq rows.
inline Matrix rotary(const Matrix& x, const Matrix& cos, const Matrix& sin) {
  Matrix out(x.rows, x.cols);
  const uint32_t half = x.cols / 2;
  for (uint32_t r = 0; r < x.rows; ++r) {
    const uint32_t s = r % cos.rows;
    for (uint32_t c = 0; c < x.cols; ++c) {
      float v = x.at(r, c) * cos.at(s, c);
      if (c < half) v = v + (x.at(r, c + half) * -1.0f) * sin.at(s, c);
      else v = v + x.at(r, c - half) * sin.at(s, c);
      out.at(r, c) = v;
    }
  }
  return out;
}

// attention_fwd_v2 with q, k, v [d, seq]: s = q^T k (k ascending from +0); per row m = max (fold), e = exp(s - m),
// sum (fold), recip = 1/sum, p = e * recip; out[i][j] = sum over t ascending of p[i][t] * v[j][t]. The PE transposes
// by identity are exact for finite data without -0 (reference_kernels.h), and p >= 0.
inline Matrix attentionFwdV2(const Matrix& q, const Matrix& k, const Matrix& v) {
  const Matrix s = reference::matmulTransposedA(q, k);
  Matrix p(s.rows, s.cols);
  for (uint32_t i = 0; i < s.rows; ++i) {
    float m = s.at(i, 0);
    for (uint32_t t = 1; t < s.cols; ++t) m = reference::max2(m, s.at(i, t));
    for (uint32_t t = 0; t < s.cols; ++t) p.at(i, t) = expF32(s.at(i, t) - m);
    const float recip = reciprocalF32(rowSum(p, i));
    for (uint32_t t = 0; t < s.cols; ++t) p.at(i, t) = p.at(i, t) * recip;
  }
  return reference::matmulTransposedA(reference::transpose(p), reference::transpose(v));
}

// 2x2/stride-2 average pooling of one h x w image per row: ((x[2i][2j] + x[2i][2j+1]) + (x[2i+1][2j] +
// x[2i+1][2j+1])) / 4 in f32 (horizontal pairs first, then vertical).
inline Matrix averagePool2x2(const Matrix& x, uint32_t h, uint32_t w) {
  Matrix out(x.rows, (h / 2) * (w / 2));
  for (uint32_t r = 0; r < x.rows; ++r)
    for (uint32_t i = 0; i < h / 2; ++i)
      for (uint32_t j = 0; j < w / 2; ++j) {
        const float top = x.at(r, (2 * i) * w + 2 * j) + x.at(r, (2 * i) * w + 2 * j + 1);
        const float bottom = x.at(r, (2 * i + 1) * w + 2 * j) + x.at(r, (2 * i + 1) * w + 2 * j + 1);
        out.at(r, i * (w / 2) + j) = (top + bottom) / 4.0f;
      }
  return out;
}

// transpose2d on raw 2-byte elements: row p holds a row-major [x, y] matrix; out[p][f2*x + f1] = in[p][f1*y + f2].
inline std::vector<uint8_t> transpose2dU16(const std::vector<uint8_t>& in, uint32_t rows, uint32_t x, uint32_t y) {
  std::vector<uint8_t> out(in.size());
  for (uint32_t p = 0; p < rows; ++p)
    for (uint32_t f1 = 0; f1 < x; ++f1)
      for (uint32_t f2 = 0; f2 < y; ++f2)
        for (uint32_t b = 0; b < 2; ++b)
          out[(size_t(p) * x * y + f2 * x + f1) * 2 + b] = in[(size_t(p) * x * y + f1 * y + f2) * 2 + b];
  return out;
}

}  // namespace allocsim::nki_reference
