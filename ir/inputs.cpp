#include "ir/inputs.h"

#include <cstring>

#include "ir/values.h"

namespace allocsim {
namespace {

// splitmix64 (the generator of gen/choices.h SeededChoices; ir/ cannot link gen/).
uint64_t nextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Seeded by name, not by id, so adding a tensor does not change the others' data.
uint64_t tensorSeed(uint64_t seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ULL;
  uint64_t state = seed ^ h;
  return nextRandom(state);
}

std::map<std::string, std::vector<uint8_t>>& providedInputs() {
  static std::map<std::string, std::vector<uint8_t>> inputs;
  return inputs;
}

}  // namespace

void setProvidedInputs(std::map<std::string, std::vector<uint8_t>> inputs) { providedInputs() = std::move(inputs); }

std::vector<std::vector<uint8_t>> makeInputs(const Program& p, uint64_t seed) {
  std::vector<std::vector<uint8_t>> out(p.tensors.size());
  for (size_t t = 0; t < p.tensors.size(); ++t) out[t] = inputBytes(p.tensors[t], seed);
  return out;
}

std::vector<uint8_t> inputBytes(const Tensor& tensor, uint64_t seed) {
  std::vector<uint8_t> bytes;
  if (!tensor.input || tensor.space != Space::Dram) return bytes;
  if (!providedInputs().empty()) {
    auto it = providedInputs().find(tensor.name);
    if (it != providedInputs().end() && it->second.size() == tensor.bytesPerPartition() * tensor.partitions)
      return it->second;
  }
  uint64_t state = tensorSeed(seed, tensor.name);
  uint64_t n = uint64_t(tensor.partitions) * tensor.elements;
  uint32_t size = dtypeSize(tensor.dtype);
  bytes.resize(n * size);
  {
    for (uint64_t e = 0; e < n; ++e) {
      uint64_t r = nextRandom(state);
      uint8_t* dst = bytes.data() + e * size;
      switch (tensor.dtype) {
        // The low bits (as a little-endian copy of r's first bytes was), each a store of a constant size: a copy
        // of `size` bytes was a sanitizer memcpy call per element in the fuzz targets.
        case DType::U32:
        case DType::I32: {
          const uint32_t low = uint32_t(r);
          std::memcpy(dst, &low, 4);
          break;
        }
        case DType::U16: {
          const uint16_t low = uint16_t(r);
          std::memcpy(dst, &low, 2);
          break;
        }
        case DType::F32: {
          uint32_t bits = f32Bits(float(int64_t(r >> 54) - 512) / 256.0f);  // [-2, 2) in steps of 1/256
          std::memcpy(dst, &bits, 4);
          break;
        }
        case DType::BF16: {
          // The top 8 bits, minus 128: [-128, 128) / 64 = [-2, 2) in steps of 1/64, each exact in bf16.
          uint16_t bits = f32ToBf16(float(int64_t(r >> 56) - 128) / 64.0f);
          std::memcpy(dst, &bits, 2);
          break;
        }
        case DType::I16:
        case DType::U8:
        case DType::I8: storeInt(tensor.dtype, dst, uint32_t(r), NumClass::Unsigned); break;  // the low bits
        // [-2, 2) in steps of 1/256 (f16) and 1/4 (the 8-bit floats), each exact in its format.
        case DType::F16: storeF32(tensor.dtype, dst, float(int64_t(r >> 54) - 512) / 256.0f); break;
        case DType::F8E4M3:
        case DType::F8E5M2:
        case DType::F8E4M3FN: storeF32(tensor.dtype, dst, float(int64_t(r >> 60) - 8) / 4.0f); break;
      }
    }
  }
  return bytes;
}

}  // namespace allocsim
