// The one implementation of every transcendental activation function (docs/format.md "Activation functions").
// The interpreter, the simulator and every other executor compute exp, tanh, sigmoid, gelu, silu, sqrt, rsqrt and
// reciprocal only through these, so no result depends on the host's libm.
//
// Deterministic by construction: each function computes in double with +, -, *, / and sqrt only (IEEE-754
// correctly rounded on every conforming platform), floor, and exact scaling by powers of two; the file is compiled
// with -ffp-contract=off so that no compiler fuses a multiply-add; the double result is rounded once to f32. NaN
// inputs give the one quiet NaN (ir/values.h).
#pragma once

namespace allocsim {

float expF32(float x);         // e^x
float tanhF32(float x);        // expm1(2|x|) / (expm1(2|x|) + 2), sign restored; +-1 for |x| > 22
float sigmoidF32(float x);     // 1 / (1 + e^-x)
float siluF32(float x);        // x * sigmoid(x); silu(-inf) = -0
float geluF32(float x);        // 0.5 * x * (1 + erf(x / sqrt 2)), the exact (erf) form
float sqrtF32(float x);        // correctly rounded f32 square root; NaN below -0
float rsqrtF32(float x);       // 1 / sqrt(x) in double, rounded once: rsqrt(+-0) = +-inf
float reciprocalF32(float x);  // 1 / x in f32

// The double-precision kernels behind them, exposed for their tests.
double expDouble(double x);
double expm1Double(double x);
double erfDouble(double x);   // |x| < 2: its Taylor series; beyond, from erfc's continued fraction
double erfcDouble(double x);  // 1 - erf(x), accurate where erf(x) is close to -1 or 1

}  // namespace allocsim
