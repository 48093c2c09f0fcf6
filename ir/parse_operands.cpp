// Operands of the program text format: names, access patterns, affine indexes, numbers, immediates.
#include <cmath>
#include <limits>

#include "ir/parser.h"

namespace allocsim {
namespace {

// docs/format.md "Lexical rules"; inf and nan are reserved too, so that an immediate is never also a name.
const char* const kReservedWords[] = {"arch",  "dram",   "sbuf",   "psum", "reg", "loop", "start",
                                      "stop",  "input",  "output", "pinned", "inf", "nan"};

constexpr uint64_t kInt64Magnitude = uint64_t(1) << 63;  // |INT64_MIN|

// The value of an integer literal with an optional '-', or nullopt when it does not fit in int64.
std::optional<int64_t> signedValue(bool negative, uint64_t magnitude) {
  if (!negative) {
    if (magnitude > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return int64_t(magnitude);
  }
  if (magnitude > kInt64Magnitude) return std::nullopt;
  if (magnitude == kInt64Magnitude) return std::numeric_limits<int64_t>::min();
  return -int64_t(magnitude);
}

int64_t checkedSigned(bool negative, const Token& t, SourceLoc loc) {
  std::optional<int64_t> v = signedValue(negative, t.magnitude);
  if (!v) failAt(loc, "integer " + quoted((negative ? "-" : "") + std::string(t.text)) + " is out of range");
  return *v;
}

}  // namespace

void failAt(SourceLoc loc, const std::string& message) { throw InputError(loc, message); }

std::string locText(SourceLoc loc) { return std::to_string(loc.line) + ":" + std::to_string(loc.col); }

bool isReservedWord(std::string_view word) {
  for (const char* w : kReservedWords)
    if (word == w) return true;
  for (int i = 0; i <= int(kLastOp); ++i)
    if (word == opName(Op(i))) return true;
  return false;
}

void Parser::expect(char punct, const std::string& message) {
  const Token& t = lex_.peek();
  if (!t.is(punct)) failAt(t.loc, message);
  lex_.next();
}

Token Parser::declarationName(const char* what) {
  Token name = lex_.next();
  if (name.kind != TokKind::Name) failAt(name.loc, std::string("expected a ") + what + " name");
  if (isReservedWord(name.text)) failAt(name.loc, quoted(name.text) + " is a reserved word");
  auto it = names_.find(std::string(name.text));
  if (it != names_.end())
    failAt(name.loc, "duplicate name " + quoted(name.text) + " (first declared at " + locText(it->second.loc) + ")");
  return name;
}

void Parser::declare(const Token& name, bool tensor, uint32_t id) {
  names_.emplace(std::string(name.text), Declared{tensor, id, name.loc});
}

TensorId Parser::tensorRef(const Token& name) {
  auto it = names_.find(std::string(name.text));
  if (it == names_.end()) failAt(name.loc, "unknown tensor " + quoted(name.text));
  if (!it->second.tensor) failAt(name.loc, quoted(name.text) + " is a register, not a tensor");
  return it->second.id;
}

RegId Parser::registerRef(const Token& name) {
  auto it = names_.find(std::string(name.text));
  if (it == names_.end()) failAt(name.loc, "unknown register " + quoted(name.text));
  if (it->second.tensor) failAt(name.loc, quoted(name.text) + " is a tensor, not a register");
  return it->second.id;
}

RegId Parser::reg(const char* what) {
  Token t = lex_.next();
  if (t.kind != TokKind::Name) failAt(t.loc, std::string("expected a register for the ") + what);
  return registerRef(t);
}

// NAME | NAME[PSLICE, FSLICE] | NAME[PSLICE, FSLICE, STEP:COUNT2], each optionally with a tile: NAME{TILE}...
AccessPattern Parser::accessPattern(const char* what) {
  Token name = lex_.next();
  if (name.kind != TokKind::Name) failAt(name.loc, std::string("expected a tensor for the ") + what);
  TensorId id = tensorRef(name);
  AccessPattern ap = wholeTensor(prog_, id);
  ap.loc = name.loc;
  const Tensor& t = prog_.tensors[id];
  std::optional<Index> tile;
  if (lex_.peek().is('{')) {
    lex_.next();
    tile = index("tile index");
    expect('}', "expected '}' after the tile index");
    ap.count = t.tileElements();
  }
  if (lex_.peek().is('[')) {
    lex_.next();
    slice(ap.partition, ap.partitions, t.partitions, "partition start", "partition count");
    comma("partition slice");
    slice(ap.offset, ap.count, tile ? t.tileElements() : t.elements, "free offset", "free count");
    if (lex_.peek().is(',')) {
      lex_.next();
      ap.step2 = count("second-dimension step");
      expect(':', "expected ':' after the second-dimension step");
      ap.count2 = count("second-dimension count");
    }
    expect(']', "expected ']' to close the access pattern");
  }
  if (tile) {
    // The offset in the whole row: the offset inside the tile + tile * tileElements().
    const int64_t e = t.tileElements();
    for (const IndexTerm& term : tile->terms) {
      int64_t scale;
      if (__builtin_mul_overflow(term.scale, e, &scale) || !ap.offset.addTerm(term.reg, scale, term.div, term.mod))
        failAt(ap.loc, "tile index of " + quoted(t.name) + " out of range");
    }
    int64_t c;
    if (__builtin_mul_overflow(tile->constant, e, &c) || __builtin_add_overflow(ap.offset.constant, c, &ap.offset.constant))
      failAt(ap.loc, "tile index of " + quoted(t.name) + " out of range");
    ap.tile = std::move(tile);
  }
  return ap;
}

// ':' (everything) or START:COUNT.
void Parser::slice(Index& start, uint32_t& n, uint32_t full, const char* startName, const char* countName) {
  if (lex_.peek().is(':')) {
    lex_.next();
    start = Index{};
    n = full;
    return;
  }
  start = index(startName);
  expect(':', std::string("expected ':' after the ") + startName);
  n = count(countName);
}

// Terms joined by '+' / '-': integers and register terms (n, n*S, S*n, n//D, n%M, n//D%M*S); a term named twice adds
// up.
Index Parser::index(const char* what) {
  Index ix;
  bool negative = false;
  if (lex_.peek().is('-')) {
    lex_.next();
    negative = true;
  }
  indexTerm(ix, negative, negative, what);
  for (;;) {
    const Token& op = lex_.peek();
    if (!op.is('+') && !op.is('-')) return ix;
    negative = op.is('-');
    lex_.next();
    indexTerm(ix, negative, false, what);
  }
}

// After a register: `//D` and then `%M`, each at most once, in that order (Python's left-to-right reading of
// n//D%M). The divisor and the modulus are integers from 1 to 2^32-1.
void Parser::divMod(IndexTerm& term, bool unary_minus, SourceLoc at) {
  if (lex_.peek().is('/')) {
    Token first = lex_.next();
    if (!lex_.peek().is('/') || !first.touches(lex_.peek()))
      failAt(first.loc, "expected '//' (floor division); an index has no '/'");
    lex_.next();
    term.div = divisor("divisor");
  }
  if (lex_.peek().is('%')) {
    lex_.next();
    term.mod = divisor("modulus");
  }
  if (lex_.peek().is('/'))
    failAt(lex_.peek().loc, "write the floor division before the remainder (n//2%4), at most one of each");
  if (lex_.peek().is('%')) failAt(lex_.peek().loc, "an index term takes at most one remainder");
  if (unary_minus && !term.isAffine())
    failAt(at, "a leading '-' before a floor division or remainder is ambiguous (Python reads -n%2 as (-n)%2); "
               "write the scale last: n%2*-1");
}

uint32_t Parser::divisor(const char* what) {
  Token t = lex_.next();
  if (t.kind != TokKind::Int) failAt(t.loc, std::string("expected the ") + what + " (an integer from 1 to 4294967295)");
  if (t.magnitude == 0 || t.magnitude > UINT32_MAX)
    failAt(t.loc, std::string("the ") + what + " " + std::string(t.text) + " must be from 1 to 4294967295");
  return uint32_t(t.magnitude);
}

void Parser::indexTerm(Index& ix, bool negative, bool unary_minus, const char* what) {
  Token t = lex_.next();
  IndexTerm term;
  if (t.kind == TokKind::Int) {
    int64_t v = checkedSigned(negative, t, t.loc);
    if (!lex_.peek().is('*')) {
      if (__builtin_add_overflow(ix.constant, v, &ix.constant)) failAt(t.loc, "index constant out of range");
      return;
    }
    lex_.next();
    Token r = lex_.next();
    if (r.kind != TokKind::Name) failAt(r.loc, "expected a register after '*'");
    term.reg = registerRef(r);
    term.scale = v;
    if (lex_.peek().is('/') || lex_.peek().is('%'))
      failAt(lex_.peek().loc, "write the scale last: n%2*128 (Python reads 128*n%2 as (128*n)%2)");
  } else if (t.kind == TokKind::Name) {
    term.reg = registerRef(t);
    term.scale = 1;
    divMod(term, unary_minus, t.loc);
    if (lex_.peek().is('*')) {
      lex_.next();
      term.scale = signedInt("index scale");
    }
    if (negative && __builtin_sub_overflow(int64_t(0), term.scale, &term.scale)) failAt(t.loc, "index scale out of range");
  } else {
    failAt(t.loc, std::string("expected the ") + what + " (an integer or a register term such as n*512)");
  }
  bool known = false;
  for (const IndexTerm& x : ix.terms) known |= x.sameKey(term);
  if (!known && ix.terms.size() == kMaxIndexTerms)
    failAt(t.loc, "an index may have at most " + std::to_string(kMaxIndexTerms) + " register terms");
  if (!ix.addTerm(term.reg, term.scale, term.div, term.mod)) failAt(t.loc, "index scale out of range");
}

uint32_t Parser::count(const char* what) {
  Token t = lex_.next();
  if (t.kind != TokKind::Int) failAt(t.loc, std::string("expected the ") + what + " (a non-negative integer)");
  if (t.magnitude > UINT32_MAX)
    failAt(t.loc, std::string("the ") + what + " " + std::string(t.text) + " does not fit in 32 bits");
  return uint32_t(t.magnitude);
}

uint32_t Parser::shapeDimension(const char* what) {
  const Token& t = lex_.peek();
  if (t.is('-') || (t.kind == TokKind::Int && t.magnitude == 0))
    failAt(t.loc, std::string("the ") + what + " must be at least 1");
  return count(what);
}

int64_t Parser::signedInt(const char* what) {
  bool negative = false;
  SourceLoc start = lex_.peek().loc;
  if (lex_.peek().is('-')) {
    lex_.next();
    negative = true;
  }
  Token t = lex_.next();
  if (t.kind != TokKind::Int) failAt(t.loc, std::string("expected the ") + what + " (an integer)");
  return checkedSigned(negative, t, start);
}

Immediate Parser::immediate(const char* what) {
  bool negative = false;
  SourceLoc start = lex_.peek().loc;
  if (lex_.peek().is('-')) {
    lex_.next();
    negative = true;
  }
  Token t = lex_.next();
  Immediate imm;
  if (t.kind == TokKind::Int) {
    imm.i = checkedSigned(negative, t, start);
    return imm;
  }
  imm.is_float = true;
  if (t.kind == TokKind::Float) {
    imm.f = negative ? -t.value : t.value;
  } else if (t.isName("inf")) {
    imm.f = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  } else if (t.isName("nan") && !negative) {
    imm.f = std::numeric_limits<double>::quiet_NaN();
  } else {
    failAt(t.loc, std::string("expected the ") + what + " (an integer or a float)");
  }
  return imm;
}

// An immediate, a register, or a [P, 1] tensor view.
ScalarOperand Parser::scalar() {
  ScalarOperand s;
  const Token& t = lex_.peek();
  if (t.kind != TokKind::Name || t.isName("inf") || t.isName("nan")) {
    s.imm = immediate("scalar");
    return s;
  }
  auto it = names_.find(std::string(t.text));
  if (it == names_.end()) failAt(t.loc, "unknown tensor or register " + quoted(t.text));
  if (it->second.tensor) {
    s.kind = ScalarOperand::Kind::Tensor;
    s.ap = accessPattern("scalar");
  } else {
    s.kind = ScalarOperand::Kind::Reg;
    s.reg = it->second.id;
    lex_.next();
  }
  return s;
}

namespace {
// "a, b, c or d": every name of an enum, from its name function, so a new operation shows up in the message.
template <typename E>
std::string namesList(uint8_t count, const char* (*name)(E)) {
  std::string out;
  for (uint8_t i = 0; i < count; ++i) out += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + name(E(i));
  return out;
}

// The next token as one of an enum's `count` values, named `what` in the messages ("an ALU operation").
template <typename E>
E enumValue(Lexer& lex, const char* what, uint8_t count, const char* (*name)(E),
            std::optional<E> (*parse)(const std::string&)) {
  Token t = lex.next();
  const std::string known = namesList<E>(count, name) + ")";
  std::optional<E> v = t.kind == TokKind::Name ? parse(std::string(t.text)) : std::nullopt;
  if (!v) {
    const std::string a_noun = what, noun = a_noun.substr(a_noun.find(' ') + 1);  // "an ALU operation", "ALU operation"
    if (t.kind == TokKind::Name) failAt(t.loc, "unknown " + noun + " " + quoted(t.text) + " (expected " + known);
    failAt(t.loc, "expected " + a_noun + " (" + known);
  }
  return *v;
}
}  // namespace

AluOp Parser::alu() { return enumValue<AluOp>(lex_, "an ALU operation", uint8_t(kLastAlu) + 1, aluName, parseAlu); }

ActFunc Parser::actFunc() {
  return enumValue<ActFunc>(lex_, "an activation function", uint8_t(kLastActFunc) + 1, actName, parseAct);
}

}  // namespace allocsim
