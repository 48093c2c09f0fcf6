// The element loops of the interpreter: whole-buffer conversions and operations built from ir/values.h, with
// the operation chosen once per buffer (not per element) so that the loops stay simple enough to vectorize.
// Buffers are contiguous; element bytes are in the dtype's layout, class values are float or uint32_t.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/values.h"

namespace allocsim {

void decodeF32(DType t, const uint8_t* in, size_t n, float* out);
void decodeInt(DType t, const uint8_t* in, size_t n, NumClass c, uint32_t* out);
void encodeF32(DType t, const float* in, size_t n, uint8_t* out);
void encodeInt(DType t, const uint32_t* in, size_t n, NumClass c, uint8_t* out);

// out[i] = a[i] op b[i]   /   out[i] = a[i] op s
void aluF32(AluOp op, const float* a, const float* b, size_t n, float* out);
void aluF32(AluOp op, const float* a, float s, size_t n, float* out);
void aluInt(AluOp op, const uint32_t* a, const uint32_t* b, size_t n, NumClass c, uint32_t* out);
void aluInt(AluOp op, const uint32_t* a, uint32_t s, size_t n, NumClass c, uint32_t* out);

void actF32(ActFunc f, const float* in, size_t n, float* out);
void actInt(ActFunc f, const uint32_t* in, size_t n, NumClass c, uint32_t* out);

// x[0] op x[1] op ... left to right; n == 0 gives 0.
float reduceF32(AluOp op, const float* x, size_t n);
uint32_t reduceInt(AluOp op, const uint32_t* x, size_t n, NumClass c);

// acc[m][n] = acc[m][n] + stat[k][m] * mov[k][n] for k = 0..K-1 in order, one f32 multiply and one f32 add per
// step; with round_bf16 the accumulator is rounded to bf16 after every step (it is held in a bf16 PSUM tensor).
void matmulF32(const float* stat, const float* mov, size_t K, size_t M, size_t N, bool round_bf16, float* acc);
// The same in wrapping 32-bit integers.
void matmulInt(const uint32_t* stat, const uint32_t* mov, size_t K, size_t M, size_t N, uint32_t* acc);

}  // namespace allocsim
