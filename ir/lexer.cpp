#include "ir/lexer.h"

#include <charconv>
#include <cstdio>
#include <limits>

namespace allocsim {
namespace {

bool isNameStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isNameChar(char c) { return isNameStart(c) || isDigit(c) || c == '.'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isPunct(char c) {
  switch (c) {
    case ',': case '[': case ']': case ':': case '*': case '+': case '-':
    case '@': case '!': case '{': case '}': case '=': case '(': case ')': case '>':
    case '<': case '%': case '/':
      return true;
    default:
      return false;
  }
}

// digits ['.' digits*] [('e'|'E') ['+'|'-'] digits], with a '.' or an exponent.
bool isDecimalFloat(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && isDigit(s[i])) ++i;
  if (i == 0) return false;
  bool marked = false;
  if (i < s.size() && s[i] == '.') {
    marked = true;
    ++i;
    while (i < s.size() && isDigit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    marked = true;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t digits = i;
    while (i < s.size() && isDigit(s[i])) ++i;
    if (i == digits) return false;
  }
  return marked && i == s.size();
}

uint32_t saturatingAdd(uint32_t a, size_t n) {
  uint64_t sum = uint64_t(a) + n;
  return sum > UINT32_MAX ? UINT32_MAX : uint32_t(sum);
}

}  // namespace

bool Token::touches(const Token& next) const {
  return next.loc.line == loc.line && uint64_t(next.loc.col) == uint64_t(loc.col) + text.size();
}

const Token& Lexer::peek() {
  if (!has_current_) {
    current_ = lex();
    has_current_ = true;
  }
  return current_;
}

Token Lexer::next() {
  Token t = peek();
  has_current_ = false;
  return t;
}

void Lexer::advance(size_t n) {
  pos_ += n;
  col_ = saturatingAdd(col_, n);
}

void Lexer::skipBlanks() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t') {
      advance(1);
    } else if (c == '\r') {
      // A carriage return not before a line feed would join what the writer saw as lines (classic Mac line ends):
      // the error there says so, rather than one about the text it joined. The blanks up to the line feed go at once.
      const size_t next = src_.find_first_not_of(" \t\r", pos_);
      if (next != std::string_view::npos && src_[next] != '\n')
        throw InputError(here(), "a carriage return without a line feed: lines end with \\n or \\r\\n");
      advance((next == std::string_view::npos ? src_.size() : next) - pos_);
    } else if (c == '#') {
      size_t end = src_.find('\n', pos_);
      advance((end == std::string_view::npos ? src_.size() : end) - pos_);
    } else {
      return;
    }
  }
}

Token Lexer::lex() {
  skipBlanks();
  Token t;
  t.loc = here();
  if (pos_ >= src_.size()) {
    t.kind = TokKind::EndOfInput;
    return t;
  }
  char c = src_[pos_];
  if (c == '\n') {
    t.kind = TokKind::EndOfLine;
    t.text = src_.substr(pos_, 1);
    pos_ += 1;
    line_ = saturatingAdd(line_, 1);
    col_ = 1;
    return t;
  }
  if (isDigit(c)) return lexNumber();
  if (isNameStart(c)) {
    size_t end = pos_ + 1;
    while (end < src_.size() && isNameChar(src_[end])) ++end;
    t.kind = TokKind::Name;
    t.text = src_.substr(pos_, end - pos_);
    advance(end - pos_);
    return t;
  }
  if (isPunct(c)) {
    t.kind = TokKind::Punct;
    t.text = src_.substr(pos_, 1);
    advance(1);
    return t;
  }
  // A byte-order mark (some Windows editors write one) and a lone carriage return (classic Mac line ends) are told
  // for what they are: the bytes alone would say little.
  if (pos_ == 0 && src_.compare(0, 3, "\xEF\xBB\xBF") == 0)
    throw InputError(t.loc, "the file starts with a UTF-8 byte-order mark (bytes EF BB BF); save it without one");
  if (static_cast<unsigned char>(c) >= 0x80)
    throw InputError(t.loc, "unexpected character " + quoted(src_.substr(pos_, 1)) +
                                " (a byte outside ASCII: names, numbers and keywords are ASCII)");
  throw InputError(t.loc, "unexpected character " + quoted(src_.substr(pos_, 1)));
}

// A number runs over name characters (so "12ab" is one malformed token, not "12" then "ab") and over a
// sign right after a decimal exponent ("1e-5").
Token Lexer::lexNumber() {
  Token t;
  t.loc = here();
  bool hex = at(pos_) == '0' && (at(pos_ + 1) == 'x' || at(pos_ + 1) == 'X');
  size_t end = pos_;
  while (end < src_.size()) {
    char c = src_[end];
    bool sign = (c == '+' || c == '-') && !hex && (src_[end - 1] == 'e' || src_[end - 1] == 'E');
    if (!isNameChar(c) && !sign) break;
    ++end;
  }
  t.text = src_.substr(pos_, end - pos_);
  advance(end - pos_);
  std::string_view s = t.text;
  const std::string malformed = "malformed number " + quoted(s);
  const std::string tooBig = "integer " + quoted(s) + " is out of range";
  if (hex) {
    std::string_view digits = s.substr(2);
    if (digits.empty()) throw InputError(t.loc, malformed);
    for (char d : digits)
      if (!isHexDigit(d)) throw InputError(t.loc, malformed);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), t.magnitude, 16);
    if (ec != std::errc()) throw InputError(t.loc, tooBig);
    t.kind = TokKind::Int;
    return t;
  }
  bool allDigits = true;
  for (char d : s) allDigits = allDigits && isDigit(d);
  if (allDigits) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), t.magnitude, 10);
    if (ec != std::errc()) throw InputError(t.loc, tooBig);
    t.kind = TokKind::Int;
    return t;
  }
  if (!isDecimalFloat(s)) throw InputError(t.loc, malformed);
  // from_chars does not depend on the C locale (strtod would read "1,5" in some locales).
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), t.value);
  if (ec != std::errc() || p != s.data() + s.size())
    throw InputError(t.loc, "float " + quoted(s) + " is out of range");
  t.kind = TokKind::Float;
  return t;
}

std::string quoted(std::string_view text) {
  constexpr size_t kMax = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  if (text.size() > kMax) out += "...";
  return out + "'";
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokKind::EndOfLine: return "end of line";
    case TokKind::EndOfInput: return "end of input";
    default: return quoted(t.text);
  }
}

}  // namespace allocsim
