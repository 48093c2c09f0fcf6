// Helpers for tests that write a program as text: parse and check it, run it and read its u32 output `O`, or get its
// first error as `file:line:col: message` (file "t").
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ir/check.h"
#include "ir/interp.h"
#include "ir/parse.h"

namespace allocsim::testing_text {

// Parsed and checked (a diagnostic fails the test).
inline Program checked(const std::string& text) {
  Program p = parseProgram(text);
  const std::vector<Diagnostic> diags = checkProgram(p);
  EXPECT_TRUE(diags.empty()) << (diags.empty() ? "" : formatDiagnostic("t", diags[0]));
  return p;
}

// The u32 output O's elements after a run.
inline std::vector<uint32_t> outputWords(const std::string& text) {
  const Program p = checked(text);
  const InterpResult r = interpret(p);
  const std::vector<uint8_t>& bytes = r.outputs[p.findTensor("O")];
  std::vector<uint32_t> out(bytes.size() / 4, 0);
  std::memcpy(out.data(), bytes.data(), out.size() * 4);
  return out;
}

// The first parse or check error, "" when there is none.
inline std::string firstError(const std::string& text) {
  try {
    const Program p = parseProgram(text);
    const std::vector<Diagnostic> diags = checkProgram(p);
    return diags.empty() ? "" : formatDiagnostic("t", diags[0]);
  } catch (const InputError& e) {
    std::string message = e.format("t");
    while (!message.empty() && message.back() == '\n') message.pop_back();
    return message;
  }
}

}  // namespace allocsim::testing_text
