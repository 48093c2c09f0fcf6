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

namespace {

// 2 atanh(s) = 2 (s + s^3/3 + s^5/5 + ...), the first `terms` terms by Horner's rule in s^2.
double twoAtanhSeries(double s, int terms) {
  const double s2 = s * s;
  double p = 1.0 / (2 * terms - 1);
  for (int k = terms - 2; k >= 0; --k) p = p * s2 + 1.0 / (2 * k + 1);
  return 2.0 * s * p;
}

// ln(1 + t) for t in [0, 1]: 2 atanh(t / (2 + t)), |s| <= 1/3, 24 terms (< 2^-70 relative).
double log1pUnit(double t) { return twoAtanhSeries(t / (2.0 + t), 24); }

// atan t for t in [0, 1]: beyond tan(pi/8), pi/4 + atan((t - 1) / (t + 1)); the series
// t - t^3/3 + t^5/5 - ... for |t| <= tan(pi/8) (t^2 <= 0.1716), 32 terms (< 2^-80 relative).
constexpr double kPiOver4 = 7.85398163397448278999e-01;
constexpr double kPiOver2Hi = 1.57079632679489655800e+00;  // pi/2 = hi + lo (the fdlibm split)
constexpr double kPiOver2Lo = 6.12323399573676603587e-17;
double atanSeries(double t) {
  const double t2 = t * t;
  double p = 1.0 / 63;  // k = 31
  for (int k = 30; k >= 0; --k) p = -p * t2 + 1.0 / (2 * k + 1);
  return t * p;
}
double atanUnit(double t) {
  if (t > 0.41421356237309503) return kPiOver4 + atanSeries((t - 1.0) / (t + 1.0));
  return atanSeries(t);
}

// sin and cos of r, |r| <= pi/4 (a little more after rounding), by their Taylor series to r^19 / r^20.
double sinKernel(double r) {
  const double r2 = r * r;
  double p = kInvFactorial[19];
  for (int n = 17; n >= 1; n -= 2) p = -p * r2 + kInvFactorial[n];
  return r * p;
}
double cosKernel(double r) {
  const double r2 = r * r;
  double p = kInvFactorial[20];
  for (int n = 18; n >= 0; n -= 2) p = -p * r2 + kInvFactorial[n];
  return p;
}

// x = k pi/2 + r. pi/2 in three 33-bit parts and a tail (the fdlibm constants), so k * part is exact for
// |k| < 2^20; larger |x| are first reduced modulo the double nearest 2 pi (fmod is exact), so every x gives one
// deterministic r, and |x| < 2^19 gives the true remainder to double precision.
constexpr double kPio2_1 = 1.57079632673412561417e+00;
constexpr double kPio2_2 = 6.07710050630396597660e-11;
constexpr double kPio2_3 = 2.02226624871116645580e-21;
constexpr double kPio2_3t = 8.47842766036889956997e-32;
constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kTwoPi = 6.28318530717958623200e+00;
double reduceQuarterPi(double x, int& quadrant) {
  if (std::fabs(x) > 524288.0) x = std::fmod(x, kTwoPi);
  const double k = std::floor(x * kTwoOverPi + 0.5);
  quadrant = int(int64_t(k) & 3);
  return (((x - k * kPio2_1) - k * kPio2_2) - k * kPio2_3) - k * kPio2_3t;
}

}  // namespace

double logDouble(double x) {
  if (x != x || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kInf;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1): exact
  if (m < 0.70710678118654752440) m *= 2.0, --e;
  // m in [sqrt(1/2), sqrt(2)): ln m = 2 atanh((m - 1) / (m + 1)), |s| <= 0.1716, 16 terms (< 2^-80 relative).
  const double lnm = twoAtanhSeries((m - 1.0) / (m + 1.0), 16);
  return e * kLn2Hi + (e * kLn2Lo + lnm);
}

double log1pDouble(double t) {
  if (t != t || t < -1) return std::numeric_limits<double>::quiet_NaN();
  if (t >= 0 && t <= 1) return log1pUnit(t);
  return logDouble(1.0 + t);
}

double atanDouble(double x) {
  if (x != x) return x;
  const double a = std::fabs(x);
  const double r = a > 1.0 ? (kPiOver2Hi - atanUnit(1.0 / a)) + kPiOver2Lo : atanUnit(a);
  return std::copysign(r, x);
}

float logF32(float x) { return toF32(logDouble(x)); }

float sinF32(float x) {
  if (x != x || std::isinf(x)) return quietNaN();
  int q = 0;
  const double r = reduceQuarterPi(x, q);
  const double v = q == 0 ? sinKernel(r) : q == 1 ? cosKernel(r) : q == 2 ? -sinKernel(r) : -cosKernel(r);
  return toF32(v);
}

float cosF32(float x) {
  if (x != x || std::isinf(x)) return quietNaN();
  int q = 0;
  const double r = reduceQuarterPi(x, q);
  const double v = q == 0 ? cosKernel(r) : q == 1 ? -sinKernel(r) : q == 2 ? -cosKernel(r) : sinKernel(r);
  return toF32(v);
}

float erfF32(float x) { return toF32(erfDouble(x)); }

// ln(1 + e^x) = max(x, 0) + ln(1 + e^-|x|), the logarithm of a value in (1, 2].
float softplusF32(float x) {
  if (x != x) return quietNaN();
  const double d = x;
  return toF32((d > 0 ? d : 0.0) + log1pUnit(expDouble(-std::fabs(d))));
}

// 0.5 x (1 + tanh z) = x / (1 + e^(-2z)), z = sqrt(2/pi) (x + 0.044715 x^3).
float geluTanhF32(float x) {
  if (x != x) return quietNaN();
  if (std::isinf(x)) return x > 0 ? x : -0.0f;
  const double d = x;
  const double z = 7.97884560802865355880e-01 * (d + 0.044715 * (d * d * d));
  return toF32(d / (1.0 + expDouble(-2.0 * z)));
}

float signF32(float x) {
  if (x != x) return quietNaN();
  if (x == 0) return x;
  return x > 0 ? 1.0f : -1.0f;
}

float atanF32(float x) { return toF32(atanDouble(x)); }

// x tanh(ln(1 + e^x)) = x n / (n + 2), n = u (u + 2), u = e^x; x itself above 40 (n / (n + 2) is 1 in double).
float mishF32(float x) {
  if (x != x) return quietNaN();
  if (x > 40.0f) return x;
  if (std::isinf(x)) return -0.0f;
  const double d = x, u = expDouble(d), n = u * (u + 2.0);
  return toF32(d * n / (n + 2.0));
}

}  // namespace allocsim
