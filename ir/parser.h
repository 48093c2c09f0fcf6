// The parser behind parseProgram (ir/parse.h); private to ir/parse*.cpp. Statements are in parse.cpp,
// operands (names, access patterns, numbers) in parse_operands.cpp.
//
// It never recurses on input structure: open loops are a stack (capped at kMaxLoopDepth), and every
// statement is one line, so no input can exhaust the call stack.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/lexer.h"
#include "ir/program.h"

namespace allocsim {

constexpr size_t kMaxLoopDepth = 64;

// A loop's or an if's body being parsed: its instructions in chunks that grow to a fixed size, moved into one vector
// of exactly their number when the body ends (a vector grown by doubling holds up to twice its instructions, and
// shrinking it to fit copies them).
class BodyBuilder {
 public:
  void push_back(Instruction&& inst) {
    if (chunks_.empty() || chunks_.back().size() == chunks_.back().capacity()) {
      chunks_.emplace_back();
      chunks_.back().reserve(std::min(kMaxChunk, std::max<size_t>(16, size_)));
    }
    chunks_.back().push_back(std::move(inst));
    ++size_;
  }
  // The instructions, in order; each chunk is freed once it is moved.
  std::vector<Instruction> take() {
    std::vector<Instruction> out;
    out.reserve(size_);
    for (std::vector<Instruction>& c : chunks_) {
      for (Instruction& i : c) out.push_back(std::move(i));
      std::vector<Instruction>().swap(c);
    }
    chunks_.clear();
    size_ = 0;
    return out;
  }

 private:
  static constexpr size_t kMaxChunk = 4096;
  std::vector<std::vector<Instruction>> chunks_;
  size_t size_ = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lex_(text) {}
  Program parse();

 private:
  // Statements (parse.cpp).
  void statement();
  void archStatement(const Token& keyword);
  void archOverride(Arch& arch, std::vector<std::string>& seen);
  void tensorDeclaration(Space space);
  void tensorPlacement(Tensor& t);
  void registerDeclaration();
  void instruction(const Token& opcode, Op op);
  void operands(Instruction& inst);
  void movementOperands(Instruction& in);
  void computeOperands(Instruction& in);
  void registerOperands(Instruction& in);
  void loopHeader(Instruction& in);
  void actScaleBias(Instruction& in);
  void tsOptions(Instruction& in);
  void fusedReduce(Instruction& in);
  void matmulFlags(Instruction& inst);
  void selectMask(SelectMask& m, const char* op, bool comparison);
  int64_t coefficient(const char* what);
  void closeLoop(const Token& brace);
  Origin originSuffix();
  void endStatement(const char* what);
  void append(Instruction&& inst);  // to the innermost open body, or the program's

  // Names (parse_operands.cpp).
  Token declarationName(const char* what);
  void declare(const Token& name, bool tensor, uint32_t id);
  TensorId tensorRef(const Token& name);
  RegId registerRef(const Token& name);

  // Operands (parse_operands.cpp). `what` names the operand in messages ("destination", ...).
  AccessPattern accessPattern(const char* what);
  void slice(Index& start, uint32_t& count, uint32_t full, const char* startName, const char* countName);
  Index index(const char* what);
  void loopBound(Instruction& in);
  void indexTerm(Index& ix, bool negative, bool unary_minus, const char* what);
  void divMod(IndexTerm& term, bool unary_minus, SourceLoc at);
  uint32_t divisor(const char* what);
  void condition(Instruction& in);
  uint32_t count(const char* what);
  uint32_t shapeDimension(const char* what);
  int64_t signedInt(const char* what);
  Immediate immediate(const char* what);
  ScalarOperand scalar();
  RegId reg(const char* what);
  AluOp alu();
  ActFunc actFunc();
  void expect(char punct, const std::string& message);
  void comma(const char* after) { expect(',', std::string("expected ',' after the ") + after); }
  // An operand that is not the last: its access pattern, then the comma after it.
  AccessPattern operandThenComma(const char* what) {
    AccessPattern p = accessPattern(what);
    comma(what);
    return p;
  }
  // A register operand that is not the last, then the comma after it.
  RegId regThenComma(const char* what) {
    const RegId r = reg(what);
    comma(what);
    return r;
  }

  Lexer lex_;
  Program prog_;
  struct Declared {
    bool tensor;
    uint32_t id;
    SourceLoc loc;
  };
  std::unordered_map<std::string, Declared> names_;
  std::vector<Instruction> open_loops_;  // innermost last; their bodies so far are in open_bodies_
  std::vector<BodyBuilder> open_bodies_;  // one per open loop
  bool seen_statement_ = false;
};

[[noreturn]] void failAt(SourceLoc loc, const std::string& message);
// "3:6"
std::string locText(SourceLoc loc);
bool isReservedWord(std::string_view word);

}  // namespace allocsim
