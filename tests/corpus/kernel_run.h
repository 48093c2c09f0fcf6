// What the corpus reference tests share: a kernel with the inputs the interpreter loads for a seed, the expected
// outputs a plain C++ reference computes from them (tests/corpus/reference_kernels.h, nki_reference_kernels.h), and
// the bit-for-bit comparison of the interpreter's outputs with them.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "tests/corpus/reference_kernels.h"

namespace allocsim {

// A parsed kernel and the input bytes the interpreter loads for `seed`.
struct KernelRun {
  Program p;
  std::vector<std::vector<uint8_t>> inputs;

  KernelRun(const std::string& text, uint64_t seed) : p(parseProgram(text)), inputs(makeInputs(p, seed)) {}

  const Tensor& tensor(const std::string& name) const {
    const TensorId id = p.findTensor(name);
    if (id == kNone) throw std::runtime_error("kernel has no tensor '" + name + "'");
    return p.tensors[id];
  }
  const std::vector<uint8_t>& bytes(const std::string& name) const { return inputs.at(p.findTensor(name)); }
  reference::Matrix input(const std::string& name) const {
    const Tensor& t = tensor(name);
    return reference::decode(bytes(name), t.partitions, t.elements, t.dtype);
  }
  std::vector<uint8_t> encode(const std::string& name, const reference::Matrix& m) const {
    return reference::encode(m, tensor(name).dtype);
  }
};

// Expected output bytes by output tensor name.
using Expected = std::map<std::string, std::vector<uint8_t>>;
using ReferenceFn = std::function<Expected(const KernelRun&)>;

// The NKI matmul tutorial's result = lhsT^T . rhs, the kernel corpus's and the NKI samples'.
inline Expected matmulRef(const KernelRun& r) {
  return {{"result", r.encode("result", reference::matmulTransposedA(r.input("lhsT"), r.input("rhs")))}};
}

// The first element of `t` where `got` differs from `want`, with both values ("C[1, 5]: interpreter ..., reference
// ..."), or the sizes when they differ; "" when the bytes are equal.
inline std::string firstDifference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                                   const Tensor& t) {
  if (got.size() != want.size()) return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
  const uint32_t size = dtypeSize(t.dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    const size_t e = i / size;
    auto value = [&](const std::vector<uint8_t>& b) {
      uint32_t u = 0;
      for (uint32_t k = 0; k < size; ++k) u |= uint32_t(b[e * size + k]) << (8 * k);
      const float f = size == 2 ? reference::fromBf16(uint16_t(u)) : reference::floatOf(u);
      std::ostringstream os;
      os.precision(9);
      os << f << " (0x" << std::hex << u << ")";
      return os.str();
    };
    return t.name + "[" + std::to_string(e / t.elements) + ", " + std::to_string(e % t.elements) +
           "]: interpreter " + value(got) + ", reference " + value(want);
  }
  return "";
}

// The interpreter's run of `run` (with the seed its inputs were made for) writes exactly the outputs `want` names,
// each equal to it bit for bit.
inline void expectOutputsEqual(const KernelRun& run, uint64_t seed, const Expected& want, const std::string& what) {
  const InterpResult result = interpret(run.p, InterpOptions{seed});
  size_t outputs = 0;
  for (TensorId id = 0; id < run.p.tensors.size(); ++id) {
    const Tensor& t = run.p.tensors[id];
    if (!t.output) continue;
    ++outputs;
    ASSERT_TRUE(want.count(t.name)) << what << ": no reference for output " << t.name;
    EXPECT_EQ(firstDifference(result.outputs.at(id), want.at(t.name), t), "") << what << " seed " << seed;
  }
  EXPECT_EQ(outputs, want.size()) << what;
}

}  // namespace allocsim
