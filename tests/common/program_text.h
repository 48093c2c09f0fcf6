// Programs written as text in the tests: what the parser or the checker says about one, and what a run of a
// well-formed one writes to an output. Messages are formatted as for a file named "t".
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ir/check.h"
#include "ir/diag.h"
#include "ir/dtype.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {

// `text` with the first occurrence of `from` replaced by `to`: a program edited into a variant. A failure where
// `text` does not contain `from`.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

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

// Cases of text appended to a program's head and the message each must give.
using TextCases = std::vector<std::pair<std::string, std::string>>;

// Each line after `head` (a newline is added) gives exactly the parser error given, or "parsed".
inline void expectParseErrors(const std::string& head, const TextCases& cases) {
  for (const auto& [line, error] : cases) EXPECT_EQ(parseErrorOf(head + line + "\n"), error) << line;
}

// Each body after `head` gives exactly the checker diagnostics given ("" for a well-formed program).
inline void expectDiagnostics(const std::string& head, const TextCases& cases) {
  for (const auto& [body, diagnostics] : cases) EXPECT_EQ(diagnosticsOf(head + body), diagnostics) << body;
}

// The program `text` parses to, after checking that it prints back to `text` word for word and that the printed
// text parses to the same program.
inline Program printedBack(const std::string& text) {
  Program p = parseProgram(text);
  EXPECT_EQ(printProgram(p), text);
  EXPECT_EQ(parseProgram(printProgram(p)), p);
  return p;
}

// The first error of the parser or the checker on `text` ("t:line:col: message", no newline); "" when the program
// is well-formed.
inline std::string firstErrorOf(const std::string& text) {
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

// The declarations of a causal-attention kernel small enough to spill on the tiny machine (320 bytes a partition, 2
// PSUM banks): queries q, a double-buffered key tile k, the output o, the score tiles m and t, the PSUM scores s and
// the loop registers i (query block) and j (key block). The tests of conditional blocks and of register-bounded
// loops write its body, each skipping the upper triangle their own way.
inline constexpr const char* kCausalAttentionDecls =
    "arch tiny sbuf-bytes=320 psum-banks=2\n"
    "dram Q [4, 64] f32 input\ndram K [4, 64] f32 input\ndram O [4, 64] f32 output\n"
    "sbuf q [4, 64] f32\nsbuf k [2] [4, 16] f32\nsbuf o [4, 64] f32\nsbuf m [4, 16] f32\nsbuf t [4, 16] f32\n"
    "psum s [4, 16] f32\nreg i\nreg j\n\n";

// A causal-attention program over kCausalAttentionDecls: q is loaded and o zeroed; for each query block i (0..3) the
// loop `key_loop` (its header, e.g. "loop j = 0, 4, 1") runs the key blocks j, and where `guard` is not empty an
// `if guard` around the block skips those above the diagonal. A block loads its key tile, scores it, masks the
// diagonal block's upper triangle, exponentiates and adds the result into o's slice. o is stored at the end.
inline std::string causalAttention(const std::string& key_loop, const std::string& guard) {
  const std::string in = guard.empty() ? "    " : "      ";
  std::string block = in + "dma k{j%2}, K[:, j*16:16]\n" +
                      in + "matmul s, q[:, i*16:4], k{j%2}, start, stop\n" +
                      in + "copy m, s\n" +
                      in + "if i == j {\n" +
                      in + "  affine_select m, m, p=1, e=-1, c=0, ge, -inf\n" +
                      in + "}\n" +
                      in + "act t, m, exp\n" +
                      in + "tt o[:, i*16:16], o[:, i*16:16], t, add\n";
  if (!guard.empty()) block = "    if " + guard + " {\n" + block + "    }\n";
  return std::string(kCausalAttentionDecls) + "dma q, Q\nmemset o, 0.0\nloop i = 0, 4, 1 {\n  " + key_loop + " {\n" +
         block + "  }\n}\ndma O, o\n";
}

// The declarations of a program on the tiny machine that moves A to O ([8, 64] f32 each) through SBUF tiles of the
// same shape, one for each name in `tiles` (space-separated), declared in that order.
inline std::string tinyTileDecls(const std::string& tiles) {
  std::string text = "arch tiny\ndram A [8, 64] f32 input\ndram O [8, 64] f32 output\n";
  size_t from = 0;
  while (from < tiles.size()) {
    size_t to = tiles.find(' ', from);
    if (to == std::string::npos) to = tiles.size();
    if (to > from) text += "sbuf " + tiles.substr(from, to - from) + " [8, 64] f32\n";
    from = to + 1;
  }
  return text;
}

// One tile loaded, added to itself and stored on the tiny machine: X is loaded into a, b = a + a is stored to Y
// (two SBUF tensors of 8 partitions x 256 bytes, both live at the add; instructions from line 7).
inline constexpr const char* kTinyTwoTileDecls =
    "arch tiny\ndram X [8, 64] f32 input\ndram Y [8, 64] f32 output\nsbuf a [8, 64] f32\nsbuf b [8, 64] f32\n\n";
inline const std::string kTinyLoadAddStore = std::string(kTinyTwoTileDecls) + "dma a, X\ntt b, a, a, add\ndma Y, b\n";

// The same for an f32 output, as floats.
inline std::vector<float> outputFloats(const std::string& text, const std::string& name = "O") {
  std::vector<float> out;
  for (uint32_t w : outputWords(text, name)) out.push_back(std::bit_cast<float>(w));
  return out;
}

}  // namespace allocsim
