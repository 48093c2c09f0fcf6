#include "ir/transcendental.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ir/values.h"

// Built with -ffp-contract=off (the top-level CMakeLists.txt): every a*b+c below is two roundings on every compiler.

namespace allocsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (the fdlibm constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtPi = 1.77245385090551602730e+00;
constexpr double kTwoOverSqrtPi = 1.12837916709551257390e+00;
constexpr double kInvSqrt2 = 7.07106781186547524401e-01;

float toF32(double d) { return canonicalNaN(float(d)); }

// 1/n!, n = 0..20, each the double nearest: the Taylor coefficients of e^r (a multiplication and an addition per
// term where dividing by n cost a division per term, the interpreter's and simulator's hottest loop in act).
constexpr double kInvFactorial[21] = {
    1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040, 1.0 / 40320, 1.0 / 362880,
    1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0, 1.0 / 87178291200.0,
    1.0 / 1307674368000.0, 1.0 / 20922789888000.0, 1.0 / 355687428096000.0, 1.0 / 6402373705728000.0,
    1.0 / 121645100408832000.0, 1.0 / 2432902008176640000.0};

// p * 2^k: by the exponent's bits when the result is normal (exact, as ldexp), else by ldexp.
double scaleByPowerOfTwo(double p, int k) {
  if (k < -1021 || k > 1022) return std::ldexp(p, k);
  const uint64_t bits = uint64_t(k + 1023) << 52;
  double s;
  std::memcpy(&s, &bits, sizeof s);
  return p * s;
}

}  // namespace

// e^x = 2^k * e^r with r = x - k ln2, |r| <= ln2/2; e^r by its Taylor series to r^17/17! (< 2^-60 relative),
// evaluated by Horner's rule.
double expDouble(double x) {
  if (x != x) return x;
  if (x > 709.8) return kInf;
  if (x < -745.2) return 0.0;
  double k = std::floor(x * kInvLn2 + 0.5);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;
  double p = kInvFactorial[17];
  for (int n = 16; n >= 0; --n) p = p * r + kInvFactorial[n];
  return scaleByPowerOfTwo(p, int(k));
}

// Near 0 its own series (x + x^2/2! + ... + x^20/20!), which e^x - 1 would lose to cancellation.
double expm1Double(double x) {
  if (x != x) return x;
  if (std::fabs(x) >= 0.5) return expDouble(x) - 1.0;
  double p = kInvFactorial[20];  // p = sum of x^(n-1) / n!, n = 1..20
  for (int n = 19; n >= 1; --n) p = p * x + kInvFactorial[n];
  return x * p;
}

// erfc(y) for y >= 2 by its continued fraction, evaluated backwards from a fixed depth of 80:
// erfc(y) = e^(-y^2) / sqrt(pi) / (y + (1/2) / (y + (2/2) / (y + (3/2) / ...))).
static double erfcContinuedFraction(double y) {
  double k = y;
  for (int n = 80; n >= 1; --n) k = y + (n * 0.5) / k;
  return expDouble(-y * y) / (kSqrtPi * k);
}

// |x| < 2: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)), until a term is below 2^-70 of the first.
static double erfSeries(double x) {
  double term = x, sum = x, x2 = x * x;
  for (int n = 1; n < 200 && std::fabs(term) > std::fabs(x) * 0x1p-70; ++n) {
    term = -term * x2 / n;
    sum += term / (2 * n + 1);
  }
  return kTwoOverSqrtPi * sum;
}

double erfcDouble(double x) {
  if (x != x) return x;
  if (x >= 2.0) return erfcContinuedFraction(x);
  if (x <= -2.0) return 2.0 - erfcContinuedFraction(-x);
  return 1.0 - erfSeries(x);
}

double erfDouble(double x) {
  if (x != x) return x;
  if (x >= 2.0) return 1.0 - erfcContinuedFraction(x);
  if (x <= -2.0) return erfcContinuedFraction(-x) - 1.0;
  return erfSeries(x);
}

float expF32(float x) { return toF32(expDouble(x)); }

float tanhF32(float x) {
  if (x != x) return quietNaN();
  double a = std::fabs(double(x));
  double t = a > 22.0 ? 1.0 : [&] {
    double e = expm1Double(2.0 * a);
    return e / (e + 2.0);
  }();
  return toF32(std::signbit(x) ? -t : t);  // tanh(-0) = -0
}

float sigmoidF32(float x) {
  if (x != x) return quietNaN();
  return toF32(1.0 / (1.0 + expDouble(-double(x))));
}

float siluF32(float x) {
  if (x != x) return quietNaN();
  if (std::isinf(x)) return x > 0 ? x : -0.0f;
  double d = x;
  return toF32(d / (1.0 + expDouble(-d)));
}

// 1 + erf(z) as erfc(-z), which keeps its digits where erf(z) is close to -1.
float geluF32(float x) {
  if (x != x) return quietNaN();
  if (std::isinf(x)) return x > 0 ? x : -0.0f;
  double d = x;
  return toF32(0.5 * d * erfcDouble(-d * kInvSqrt2));
}

float sqrtF32(float x) { return canonicalNaN(std::sqrt(x)); }

float rsqrtF32(float x) {
  if (x != x || x < 0) return quietNaN();
  return toF32(1.0 / std::sqrt(double(x)));
}

float reciprocalF32(float x) { return canonicalNaN(1.0f / x); }

}  // namespace allocsim
