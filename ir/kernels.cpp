#include "ir/kernels.h"

#include <type_traits>
#include <utility>

namespace allocsim {
namespace {

// Calls f(std::integral_constant<E, v>{}) for the run-time value v of an enum whose values are 0 .. last (an ALU
// operation, an activation function), so that the element loop is instantiated once per value.
template <typename E, E last, typename F>
void withConstant(E v, F&& f) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    (void)((v == E(I) && (f(std::integral_constant<E, E(I)>{}), true)) || ...);
  }(std::make_index_sequence<size_t(last) + 1>{});
}

template <typename F>
void withAlu(AluOp op, F&& f) {
  withConstant<AluOp, kLastAlu>(op, f);
}

template <typename F>
void withAct(ActFunc fn, F&& f) {
  withConstant<ActFunc, kLastActFunc>(fn, f);
}

template <typename T>
T loadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void storeAs(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

void decodeF32(DType t, const uint8_t* in, size_t n, float* out) {
  switch (t) {
    case DType::F32: std::memcpy(out, in, n * 4); return;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) out[i] = bf16ToF32(loadAs<uint16_t>(in + 2 * i));
      return;
    case DType::U32:
      for (size_t i = 0; i < n; ++i) out[i] = float(loadAs<uint32_t>(in + 4 * i));
      return;
    case DType::I32:
      for (size_t i = 0; i < n; ++i) out[i] = float(loadAs<int32_t>(in + 4 * i));
      return;
    case DType::U16:
      for (size_t i = 0; i < n; ++i) out[i] = float(loadAs<uint16_t>(in + 2 * i));
      return;
    default:  // the narrow types, one element at a time
      for (size_t i = 0; i < n; ++i) out[i] = loadF32(t, in + dtypeSize(t) * i);
      return;
  }
}

void decodeInt(DType t, const uint8_t* in, size_t n, NumClass c, uint32_t* out) {
  switch (t) {
    case DType::U32:
    case DType::I32: std::memcpy(out, in, n * 4); return;
    case DType::U16:
      for (size_t i = 0; i < n; ++i) out[i] = loadAs<uint16_t>(in + 2 * i);
      return;
    case DType::F32:
    case DType::BF16:
    default:  // the narrow types, one element at a time
      for (size_t i = 0; i < n; ++i) out[i] = loadInt(t, in + dtypeSize(t) * i, c);
      return;
  }
}

void encodeF32(DType t, const float* in, size_t n, uint8_t* out) {
  switch (t) {
    case DType::F32: std::memcpy(out, in, n * 4); return;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) storeAs<uint16_t>(out + 2 * i, f32ToBf16(in[i]));
      return;
    case DType::U32:
      for (size_t i = 0; i < n; ++i) storeAs<uint32_t>(out + 4 * i, floatToU32(in[i]));
      return;
    case DType::I32:
      for (size_t i = 0; i < n; ++i) storeAs<uint32_t>(out + 4 * i, floatToI32Bits(in[i]));
      return;
    case DType::U16:
      for (size_t i = 0; i < n; ++i) storeAs<uint16_t>(out + 2 * i, uint16_t(floatToU16(in[i])));
      return;
    default:  // the narrow types, one element at a time
      for (size_t i = 0; i < n; ++i) storeF32(t, out + dtypeSize(t) * i, in[i]);
      return;
  }
}

void encodeInt(DType t, const uint32_t* in, size_t n, NumClass c, uint8_t* out) {
  switch (t) {
    case DType::U32:
    case DType::I32: std::memcpy(out, in, n * 4); return;
    case DType::U16:
      for (size_t i = 0; i < n; ++i) storeAs<uint16_t>(out + 2 * i, uint16_t(in[i]));
      return;
    case DType::F32:
      if (c == NumClass::Signed)
        for (size_t i = 0; i < n; ++i) storeAs<float>(out + 4 * i, float(int32_t(in[i])));
      else
        for (size_t i = 0; i < n; ++i) storeAs<float>(out + 4 * i, float(in[i]));
      return;
    case DType::BF16:
    default:  // the narrow types, one element at a time
      for (size_t i = 0; i < n; ++i) storeInt(t, out + dtypeSize(t) * i, in[i], c);
      return;
  }
}

void aluF32(AluOp op, const float* a, const float* b, size_t n, float* out) {
  withAlu(op, [&](auto k) {
    for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluF32(k.value, a[i], b[i]);
  });
}
void aluF32(AluOp op, const float* a, float s, size_t n, float* out) {
  withAlu(op, [&](auto k) {
    for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluF32(k.value, a[i], s);
  });
}
void aluInt(AluOp op, const uint32_t* a, const uint32_t* b, size_t n, NumClass c, uint32_t* out) {
  withAlu(op, [&](auto k) {
    if (c == NumClass::Signed)
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluInt(k.value, a[i], b[i], NumClass::Signed);
    else
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluInt(k.value, a[i], b[i], NumClass::Unsigned);
  });
}
void aluInt(AluOp op, const uint32_t* a, uint32_t s, size_t n, NumClass c, uint32_t* out) {
  withAlu(op, [&](auto k) {
    if (c == NumClass::Signed)
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluInt(k.value, a[i], s, NumClass::Signed);
    else
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::aluInt(k.value, a[i], s, NumClass::Unsigned);
  });
}

void actF32(ActFunc f, const float* in, size_t n, float* out) {
  withAct(f, [&](auto k) {
    for (size_t i = 0; i < n; ++i) out[i] = allocsim::actF32(k.value, in[i]);
  });
}
void actInt(ActFunc f, const uint32_t* in, size_t n, NumClass c, uint32_t* out) {
  withAct(f, [&](auto k) {
    if (c == NumClass::Signed)
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::actInt(k.value, in[i], NumClass::Signed);
    else
      for (size_t i = 0; i < n; ++i) out[i] = allocsim::actInt(k.value, in[i], NumClass::Unsigned);
  });
}

float reduceF32(AluOp op, const float* x, size_t n) {
  if (n == 0) return 0.0f;
  float acc = x[0];
  for (size_t i = 1; i < n; ++i) acc = allocsim::aluF32(op, acc, x[i]);
  return acc;
}
uint32_t reduceInt(AluOp op, const uint32_t* x, size_t n, NumClass c) {
  if (n == 0) return 0;
  uint32_t acc = x[0];
  for (size_t i = 1; i < n; ++i) acc = allocsim::aluInt(op, acc, x[i], c);
  return acc;
}

void matmulF32(const float* stat, const float* mov, size_t K, size_t M, size_t N, bool round_bf16, float* acc) {
  // k outermost keeps each output's sum in k order; the n loop is independent and vectorizes.
  for (size_t k = 0; k < K; ++k) {
    const float* movRow = mov + k * N;
    for (size_t m = 0; m < M; ++m) {
      const float a = stat[k * M + m];
      float* out = acc + m * N;
      if (round_bf16)
        for (size_t n = 0; n < N; ++n) {
          float p = a * movRow[n];
          out[n] = bf16ToF32(f32ToBf16(canonicalNaN(out[n] + p)));
        }
      else
        for (size_t n = 0; n < N; ++n) {
          float p = a * movRow[n];
          out[n] = canonicalNaN(out[n] + p);
        }
    }
  }
}

void matmulInt(const uint32_t* stat, const uint32_t* mov, size_t K, size_t M, size_t N, uint32_t* acc) {
  for (size_t k = 0; k < K; ++k) {
    const uint32_t* movRow = mov + k * N;
    for (size_t m = 0; m < M; ++m) {
      const uint32_t a = stat[k * M + m];
      uint32_t* out = acc + m * N;
      for (size_t n = 0; n < N; ++n) out[n] += a * movRow[n];
    }
  }
}

}  // namespace allocsim
