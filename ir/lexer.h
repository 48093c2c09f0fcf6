// Tokens of the program text format (docs/format.md "Lexical rules"). The lexer works on demand with
// one token of lookahead, so memory stays proportional to one token whatever the input holds.
#pragma once

#include <algorithm>

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diag.h"

namespace allocsim {

enum class TokKind : uint8_t {
  Name,        // [A-Za-z_][A-Za-z0-9_.]*
  Int,         // decimal or 0x hex, unsigned: a leading '-' is its own token and the parser applies it
  Float,       // digits with '.' and/or an exponent (inf and nan are names; the parser reads them)
  Punct,       // one of , [ ] : * + - @ ! { } = ( ) > < % /
  EndOfLine,   // '\n' (a comment ends at it; "\r\n" is accepted)
  EndOfInput,
};

struct Token {
  TokKind kind = TokKind::EndOfInput;
  std::string_view text;  // points into the source
  SourceLoc loc;
  uint64_t magnitude = 0;  // Int
  double value = 0;        // Float

  bool is(char punct) const { return kind == TokKind::Punct && text.size() == 1 && text[0] == punct; }
  bool isName(std::string_view s) const { return kind == TokKind::Name && text == s; }
  bool endsStatement() const { return kind == TokKind::EndOfLine || kind == TokKind::EndOfInput; }
  // True when `next` starts right where this token ends (no blank between them).
  bool touches(const Token& next) const;
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(source) {}
  // The current token (lexed on first use). Throws InputError for a bad character or number.
  const Token& peek();
  // Returns the current token and moves past it.
  Token next();
  // The source after the current token (or after the last one returned), for a look ahead that needs no tokens.
  std::string_view rest() const { return src_.substr(std::min(pos_, src_.size())); }

 private:
  Token lex();
  void skipBlanks();
  Token lexNumber();
  char at(size_t i) const { return i < src_.size() ? src_[i] : '\0'; }
  void advance(size_t n);
  SourceLoc here() const { return SourceLoc{line_, col_}; }

  std::string_view src_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
  Token current_;
  bool has_current_ = false;
};

// `text` quoted for a message: 'abc', with unprintable bytes as \xHH and long text cut to 40 bytes.
std::string quoted(std::string_view text);
// How a token reads in a message: 'foo', end of line, end of input.
std::string describe(const Token& t);

}  // namespace allocsim
