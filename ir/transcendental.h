// The one implementation of every transcendental activation function (docs/format.md "Activation functions").
// The interpreter, the simulator and every other executor compute every float-only activation function through
// these alone, so no result depends on the host's libm.
//
// Deterministic by construction: each function computes in double with +, -, *, / and sqrt only (IEEE-754
// correctly rounded on every conforming platform), floor, exact scaling by powers of two, frexp and fmod (both
// exact by definition); the file is compiled with -ffp-contract=off so that no compiler fuses a multiply-add; the
// double result is rounded once to f32. NaN inputs give the one quiet NaN (ir/values.h).
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
float logF32(float x);         // ln x: -inf at +-0, NaN below -0
float sinF32(float x);         // sin x, x reduced modulo pi/2 (see transcendental.cpp); NaN at +-inf
float cosF32(float x);         // cos x, likewise
float erfF32(float x);         // erf x
float softplusF32(float x);    // ln(1 + e^x)
float geluTanhF32(float x);    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), NKI's gelu_apprx_tanh
float signF32(float x);        // -1, +-0 (the zero kept), 1
float atanF32(float x);        // arctan x
float mishF32(float x);        // x tanh(softplus x); mish(-inf) = -0

// The double-precision kernels behind them, exposed for their tests.
double expDouble(double x);
double expm1Double(double x);
double erfDouble(double x);   // |x| < 2: its Taylor series; beyond, from erfc's continued fraction
double erfcDouble(double x);  // 1 - erf(x), accurate where erf(x) is close to -1 or 1
double logDouble(double x);    // ln x: frexp, then 2 atanh((m - 1) / (m + 1)) for m in [sqrt(1/2), sqrt(2))
double log1pDouble(double t);  // ln(1 + t); for t in [0, 1] without forming 1 + t
double atanDouble(double x);

}  // namespace allocsim
