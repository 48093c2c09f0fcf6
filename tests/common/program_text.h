// Programs written as text in the tests: what the parser or the checker says about one, and what a run of a
// well-formed one writes to an output. Messages are formatted as for a file named "t".
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "ir/check.h"
#include "ir/diag.h"
#include "ir/dtype.h"
#include "ir/interp.h"
#include "ir/parse.h"

namespace allocsim {

// The parser's error for `text` ("t:line:col: message\n"), or "parsed" when it parses.
inline std::string parseErrorOf(const std::string& text) {
  try {
    parseProgram(text);
  } catch (const InputError& e) {
    return e.format("t");
  }
  return "parsed";
}

// Every diagnostic of the checker on the program `text` parses to, one "t:line:col: message" line each; "" when
// the program is well-formed.
inline std::string diagnosticsOf(const std::string& text) {
  std::string out;
  for (const Diagnostic& d : checkProgram(parseProgram(text))) out += formatDiagnostic("t", d) + "\n";
  return out;
}

// The program `text` parses to; a diagnostic of the checker fails the test.
inline Program checkedProgram(const std::string& text) {
  Program p = parseProgram(text);
  const std::vector<Diagnostic> diags = checkProgram(p);
  EXPECT_TRUE(diags.empty()) << (diags.empty() ? "" : formatDiagnostic("t", diags[0]));
  return p;
}

// The elements of output `name` after a run of the program `text` (which must be well-formed), each element's bits
// in the low bits of a word (two bytes for bf16 and u16, four for the other dtypes).
inline std::vector<uint32_t> outputWords(const std::string& text, const std::string& name = "O") {
  const Program p = checkedProgram(text);
  const InterpResult r = interpret(p);
  const TensorId o = p.findTensor(name);
  const std::vector<uint8_t>& bytes = r.outputs[o];
  const size_t size = dtypeSize(p.tensors[o].dtype);
  std::vector<uint32_t> out(bytes.size() / size, 0);
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], bytes.data() + i * size, size);
  return out;
}

// The same for an f32 output, as floats.
inline std::vector<float> outputFloats(const std::string& text, const std::string& name = "O") {
  std::vector<float> out;
  for (uint32_t w : outputWords(text, name)) out.push_back(std::bit_cast<float>(w));
  return out;
}

}  // namespace allocsim
