// A small strict JSON reader (RFC 8259) for tests that check what the tools write: no trailing commas, no
// comments, no leading zeros, control characters escaped, the whole input one value. Independent of the writers.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace allocsim::json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool b = false;
  double num = 0;
  bool integer = false;  // written without fraction or exponent
  std::string str;
  std::vector<Value> arr;
  std::map<std::string, Value> obj;

  bool has(const std::string& k) const { return kind == Object && obj.count(k); }
  const Value& at(const std::string& k) const { return obj.at(k); }
};

class Reader {
 public:
  explicit Reader(const std::string& s) : s_(s) {}
  Value document() {
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) { throw std::runtime_error("JSON at byte " + std::to_string(i_) + ": " + why); }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  // Reads the character `c` if it comes next.
  bool eat(char c) {
    if (i_ >= s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  // The comma-separated items of an array or object up to `close` (its opening bracket read), each read by `item`.
  template <class Item>
  void items(char close, Item item) {
    ws();
    if (eat(close)) return;
    for (;;) {
      item();
      ws();
      if (eat(',')) continue;
      if (eat(close)) return;
      fail(std::string("',' or '") + close + "' expected");
    }
  }
  bool lit(const char* w) {
    std::string t(w);
    if (s_.compare(i_, t.size(), t) != 0) return false;
    i_ += t.size();
    return true;
  }
  Value value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    Value v;
    char c = s_[i_];
    if (c == '{') {
      v.kind = Value::Object;
      ++i_;
      items('}', [&] {
        ws();
        if (i_ >= s_.size() || s_[i_] != '"') fail("object key expected");
        std::string k = string();
        ws();
        if (!eat(':')) fail("':' expected");
        if (v.obj.count(k)) fail("duplicate key " + k);
        v.obj[k] = value();
      });
      return v;
    }
    if (c == '[') {
      v.kind = Value::Array;
      ++i_;
      items(']', [&] { v.arr.push_back(value()); });
      return v;
    }
    if (c == '"') {
      v.kind = Value::String;
      v.str = string();
      return v;
    }
    if (lit("true")) return v.kind = Value::Bool, v.b = true, v;
    if (lit("false")) return v.kind = Value::Bool, v;
    if (lit("null")) return v;
    return number();
  }
  std::string string() {
    ++i_;  // opening quote
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      unsigned char c = s_[i_++];
      if (c < 0x20) fail("unescaped control character");
      if (c != '\\') { out += char(c); continue; }
      if (i_ >= s_.size()) fail("bad escape");
      char e = s_[i_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u':
          if (i_ + 4 > s_.size()) fail("bad \\u escape");
          for (int k = 0; k < 4; ++k)
            if (!std::isxdigit((unsigned char)s_[i_ + k])) fail("bad \\u escape");
          out += '?';
          i_ += 4;
          break;
        default: fail("bad escape");
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  Value number() {
    size_t start = i_;
    Value v;
    v.kind = Value::Number;
    v.integer = true;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_])) fail("value expected");
    if (s_[i_] == '0' && i_ + 1 < s_.size() && std::isdigit((unsigned char)s_[i_ + 1])) fail("leading zero");
    while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_])) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      v.integer = false;
      ++i_;
      if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_])) fail("digit expected after '.'");
      while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      v.integer = false;
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !std::isdigit((unsigned char)s_[i_])) fail("exponent digits expected");
      while (i_ < s_.size() && std::isdigit((unsigned char)s_[i_])) ++i_;
    }
    v.num = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    return v;
  }
  const std::string& s_;
  size_t i_ = 0;
};

inline Value parse(const std::string& s) { return Reader(s).document(); }

}  // namespace allocsim::json
