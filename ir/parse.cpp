// Statements of the program text format: arch, declarations, instructions, loop braces.
#include "ir/parse.h"

#include <algorithm>

#include "ir/enum_names.h"
#include "ir/parser.h"

namespace allocsim {
namespace {

std::optional<Op> opcode(std::string_view word) { return valueNamed<Op>(word, opName, size_t(kLastOp) + 1); }

std::string presetList() {
  std::string out;
  const auto& presets = archPresets();
  for (size_t i = 0; i < presets.size(); ++i) {
    if (i > 0) out += i + 1 == presets.size() ? " or " : ", ";
    out += presets[i].name;
  }
  return out;
}

bool digitsOnly(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The number after a placement prefix ("p12" -> 12); nullopt when it does not fit in 32 bits.
std::optional<uint32_t> placementNumber(std::string_view digits) {
  uint64_t v = 0;
  for (char c : digits) {
    v = v * 10 + uint64_t(c - '0');
    if (v > UINT32_MAX) return std::nullopt;
  }
  return uint32_t(v);
}

// Which space a placement as written belongs to: @pP+B sbuf, @bankN psum, @B dram, @rN a register.
enum class PlacementStyle { Sbuf, Psum, Dram, Register, Malformed };

PlacementStyle placementStyle(const Token& t) {
  if (t.kind == TokKind::Int) return PlacementStyle::Dram;
  if (t.kind != TokKind::Name) return PlacementStyle::Malformed;
  if (t.text.substr(0, 4) == "bank" && digitsOnly(t.text.substr(4))) return PlacementStyle::Psum;
  if (t.text[0] == 'p' && digitsOnly(t.text.substr(1))) return PlacementStyle::Sbuf;
  if (t.text[0] == 'r' && digitsOnly(t.text.substr(1))) return PlacementStyle::Register;
  return PlacementStyle::Malformed;
}

const char* placementForm(Space s) {
  switch (s) {
    case Space::Sbuf: return "@pP+B";
    case Space::Psum: return "@bankN";
    case Space::Dram: return "@B";
  }
  return "?";
}

}  // namespace

Program parseProgram(std::string_view text) { return Parser(text).parse(); }

Program Parser::parse() {
  prog_.arch = *archPreset("gen2");
  for (;;) {
    const Token& t = lex_.peek();
    if (t.kind == TokKind::EndOfInput) break;
    if (t.kind == TokKind::EndOfLine) {
      lex_.next();
      continue;
    }
    statement();
    seen_statement_ = true;
  }
  if (!open_loops_.empty())
    failAt(lex_.peek().loc, std::string("expected '}' to close the ") +
                                (open_loops_.back().op == Op::Loop ? "loop" : "if") + " at " +
                                locText(open_loops_.back().loc));
  prog_.renumber();
  prog_.tensors.shrink_to_fit();
  prog_.registers.shrink_to_fit();
  return std::move(prog_);
}

namespace {

// At least the number of statements outside loops and ifs in `text` when it is formatted one statement a line (as
// printProgram writes it; otherwise an estimate): the lines at depth 0 that are neither blank nor comments, a line
// ending in '{' opening a level and one starting with '}' closing it.
size_t topLevelLines(std::string_view text) {
  size_t count = 0, depth = 0;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    line = line.substr(0, line.find('#'));
    const size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    if (line[b] == '}') {
      depth -= depth > 0;
      continue;
    }
    count += depth == 0;
    depth += line[e] == '{';
  }
  return count;
}

}  // namespace

void Parser::append(Instruction&& inst) {
  if (!open_bodies_.empty()) {
    open_bodies_.back().push_back(std::move(inst));
    return;
  }
  // The program's body is reserved once, when its first instruction comes, for the statements that can follow:
  // grown by doubling and then shrunk to fit, it took up to three times its final size while the file was parsed.
  if (prog_.body.capacity() == 0) prog_.body.reserve(1 + topLevelLines(lex_.rest()));
  prog_.body.push_back(std::move(inst));
}

void Parser::statement() {
  Token first = lex_.next();
  if (first.is('}')) {
    closeLoop(first);
    endStatement("'}'");
    return;
  }
  if (first.kind != TokKind::Name) failAt(first.loc, "expected a statement, got " + describe(first));
  if (first.text == "arch") {
    if (seen_statement_) failAt(first.loc, "'arch' must be the first statement");
    archStatement(first);
    return;
  }
  bool tensor = first.text == "dram" || first.text == "sbuf" || first.text == "psum";
  if (tensor || first.text == "reg") {
    if (!open_loops_.empty()) failAt(first.loc, "declarations must be at the top level, not inside a loop");
    if (first.text == "reg") registerDeclaration();
    else tensorDeclaration(first.text == "dram" ? Space::Dram : first.text == "sbuf" ? Space::Sbuf : Space::Psum);
    return;
  }
  if (std::optional<Op> op = opcode(first.text)) {
    instruction(first, *op);
    return;
  }
  failAt(first.loc, "unknown statement " + quoted(first.text));
}

void Parser::endStatement(const char* what) {
  const Token& t = lex_.peek();
  if (!t.endsStatement()) failAt(t.loc, "unexpected " + describe(t) + " after the " + what);
  if (t.kind == TokKind::EndOfLine) lex_.next();
}

void Parser::archStatement(const Token& keyword) {
  Token name = lex_.next();
  if (name.kind != TokKind::Name) failAt(name.loc, "expected an arch preset name (" + presetList() + ")");
  std::optional<Arch> arch = archPreset(std::string(name.text));
  if (!arch) failAt(name.loc, "unknown arch preset " + quoted(name.text) + " (expected " + presetList() + ")");
  std::vector<std::string> seen;
  while (!lex_.peek().endsStatement()) archOverride(*arch, seen);
  std::string bad = validateArch(*arch);
  if (!bad.empty()) failAt(keyword.loc, "invalid arch: " + bad);
  prog_.arch = *arch;
  endStatement("arch statement");
}

// KEY=VALUE. Keys contain '-', which is its own token, so a key is names joined by touching '-'.
void Parser::archOverride(Arch& arch, std::vector<std::string>& seen) {
  Token first = lex_.next();
  if (first.kind != TokKind::Name) failAt(first.loc, "expected an arch parameter KEY=VALUE, got " + describe(first));
  std::string key(first.text);
  Token last = first;
  while (lex_.peek().is('-') && last.touches(lex_.peek())) {
    Token dash = lex_.next();
    const Token& part = lex_.peek();
    if (part.kind != TokKind::Name || !dash.touches(part))
      failAt(part.loc, "expected an arch parameter KEY=VALUE, got " + describe(part));
    last = lex_.next();
    key += "-";
    key += last.text;
  }
  std::vector<std::string> keys = archOverrideKeys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end())
    failAt(first.loc, "unknown arch parameter " + quoted(key));
  if (std::find(seen.begin(), seen.end(), key) != seen.end())
    failAt(first.loc, "duplicate arch parameter " + quoted(key));
  seen.push_back(key);
  expect('=', "expected '=' after the arch parameter " + quoted(key));
  Token value = lex_.next();
  if (value.kind != TokKind::Int)
    failAt(value.loc, "expected a positive integer value for the arch parameter " + quoted(key));
  std::string err = applyArchOverride(arch, key, std::to_string(value.magnitude));
  if (!err.empty()) failAt(value.loc, err.rfind("--", 0) == 0 ? err.substr(2) : err);
}

void Parser::tensorDeclaration(Space space) {
  Token name = declarationName("tensor");
  Tensor t;
  t.name = std::string(name.text);
  t.space = space;
  t.loc = name.loc;
  expect('[', "expected '[' after the tensor name");
  uint32_t first = shapeDimension("partition count");
  uint32_t tiles = 1;
  if (lex_.peek().is(']')) {  // a tile array: [TILES] [PARTITIONS, ELEMENTS]
    lex_.next();
    tiles = first;
    expect('[', "expected '[' after the tile count");
    first = shapeDimension("partition count");
  }
  t.partitions = first;
  comma("partition count");
  SourceLoc elementsLoc = lex_.peek().loc;
  uint32_t elements = shapeDimension("element count");
  expect(']', "expected ']' after the element count");
  // The tiles lie side by side along the free axis: the tensor is [PARTITIONS, TILES * ELEMENTS].
  if (uint64_t(tiles) * elements > UINT32_MAX)
    failAt(elementsLoc, "tile array " + quoted(t.name) + " has " + std::to_string(uint64_t(tiles) * elements) +
                            " elements per partition in all; at most 4294967295");
  t.tiles = tiles;
  t.elements = tiles * elements;
  Token dtype = lex_.next();
  std::optional<DType> dt = dtype.kind == TokKind::Name ? parseDType(dtype.text) : std::nullopt;
  if (!dt) {
    const std::string known = "u32, i32, f32, bf16, u16, f16, i16, u8, i8, f8e4m3, f8e5m2 or f8e4m3fn)";
    if (dtype.kind == TokKind::Name) failAt(dtype.loc, "unknown dtype " + quoted(dtype.text) + " (expected " + known);
    failAt(dtype.loc, "expected a dtype (" + known);
  }
  t.dtype = *dt;
  for (;;) {
    const Token& flag = lex_.peek();
    bool* slot = flag.isName("input") ? &t.input : flag.isName("output") ? &t.output
               : flag.isName("pinned") ? &t.pinned : nullptr;
    if (!slot) break;
    if (*slot) failAt(flag.loc, "duplicate " + quoted(flag.text));
    if (slot != &t.pinned && space != Space::Dram)
      failAt(flag.loc, quoted(flag.text) + " is only allowed on dram tensors");
    *slot = true;
    lex_.next();
  }
  if (lex_.peek().is('@')) tensorPlacement(t);
  t.origin = originSuffix();
  if (t.origin != Origin::Source && lex_.peek().is('(')) {
    lex_.next();
    Token of = lex_.next();
    if (of.kind != TokKind::Name) failAt(of.loc, "expected the name of the tensor " + quoted(t.name) + " copies");
    t.copy_of = tensorRef(of);
    expect(')', "expected ')' after the copied tensor's name");
  }
  endStatement("declaration");
  declare(name, true, TensorId(prog_.tensors.size()));
  prog_.tensors.push_back(std::move(t));
}

void Parser::tensorPlacement(Tensor& t) {
  Token at = lex_.next();
  Token v = lex_.next();
  PlacementStyle style = placementStyle(v);
  PlacementStyle wanted = t.space == Space::Sbuf ? PlacementStyle::Sbuf
                          : t.space == Space::Psum ? PlacementStyle::Psum : PlacementStyle::Dram;
  if (style == PlacementStyle::Malformed)
    failAt(v.loc, "malformed placement for " + std::string(spaceName(t.space)) + " tensor " + quoted(t.name) +
                      " (expected " + placementForm(t.space) + ")");
  if (style != wanted)
    failAt(at.loc, "placement @" + std::string(v.text) + " given for " + spaceName(t.space) + " tensor " +
                       quoted(t.name));
  Placement p;
  if (style == PlacementStyle::Dram) {
    p.offset = v.magnitude;
  } else if (style == PlacementStyle::Psum) {
    std::optional<uint32_t> bank = placementNumber(v.text.substr(4));
    if (!bank) failAt(v.loc, "bank number in placement " + quoted(v.text) + " is out of range");
    p.bank = *bank;
  } else {
    std::optional<uint32_t> partition = placementNumber(v.text.substr(1));
    if (!partition) failAt(v.loc, "partition number in placement " + quoted(v.text) + " is out of range");
    p.partition = *partition;
    expect('+', "expected '+' and a byte offset after the placement partition");
    Token offset = lex_.next();
    if (offset.kind != TokKind::Int) failAt(offset.loc, "expected the placement byte offset (an integer)");
    p.offset = offset.magnitude;
  }
  t.placement = p;
}

void Parser::registerDeclaration() {
  Token name = declarationName("register");
  Register r;
  r.name = std::string(name.text);
  r.loc = name.loc;
  if (lex_.peek().kind == TokKind::Int) {
    Token width = lex_.next();
    if (width.magnitude != 32 && width.magnitude != 64) failAt(width.loc, "register width must be 32 or 64");
    r.width = uint32_t(width.magnitude);
  }
  if (lex_.peek().is('@')) {
    lex_.next();
    Token v = lex_.next();
    if (placementStyle(v) != PlacementStyle::Register)
      failAt(v.loc, "malformed placement for register " + quoted(r.name) + " (expected @rN)");
    std::optional<uint32_t> phys = placementNumber(v.text.substr(1));
    if (!phys) failAt(v.loc, "register number in placement " + quoted(v.text) + " is out of range");
    r.phys = *phys;
  }
  r.origin = originSuffix();
  if (r.origin != Origin::Source && lex_.peek().is('(')) {
    lex_.next();
    Token of = lex_.next();
    if (of.kind != TokKind::Name) failAt(of.loc, "expected the name of the register " + quoted(r.name) + " copies");
    r.copy_of = registerRef(of);
    expect(')', "expected ')' after the copied register's name");
  }
  endStatement("declaration");
  declare(name, false, RegId(prog_.registers.size()));
  prog_.registers.push_back(std::move(r));
}

Origin Parser::originSuffix() {
  if (!lex_.peek().is('!')) return Origin::Source;
  lex_.next();
  Token t = lex_.next();
  const std::string known = "spill, reload, coalesced, partial or copy)";
  if (t.kind != TokKind::Name) failAt(t.loc, "expected an origin after '!' (" + known);
  std::optional<Origin> o = parseOrigin(std::string(t.text));
  if (!o) failAt(t.loc, "unknown origin " + quoted(t.text) + " (expected " + known);
  return *o;
}

void Parser::instruction(const Token& opcode, Op op) {
  if (hasBody(op) && open_loops_.size() >= kMaxLoopDepth)
    failAt(opcode.loc, std::string(op == Op::Loop ? "loops" : "loops and conditional blocks") + " nested deeper than " +
                           std::to_string(kMaxLoopDepth));
  Instruction inst;
  inst.op = op;
  inst.loc = opcode.loc;
  operands(inst);
  inst.origin = originSuffix();
  if (hasBody(op)) {
    expect('{', op == Op::Loop ? "expected '{' to open the loop body" : "expected '{' to open the if body");
    endStatement("'{'");
    open_loops_.push_back(std::move(inst));
    open_bodies_.emplace_back();
    return;
  }
  endStatement("instruction");
  append(std::move(inst));
}

// The operands after the opcode, by the kind of instruction.
void Parser::operands(Instruction& in) {
  switch (in.op) {
    case Op::Dma:
    case Op::Copy:
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr:
    case Op::Memset:
    case Op::Iota: return movementOperands(in);
    case Op::Matmul:
    case Op::Act:
    case Op::TT:
    case Op::TS:
    case Op::Reduce:
    case Op::Select:
    case Op::TTScan: return computeOperands(in);
    case Op::Li:
    case Op::Addi:
    case Op::Add:
    case Op::Mov:
    case Op::RegLoad:
    case Op::RegStore: return registerOperands(in);
    case Op::If: return condition(in);
    case Op::Loop: return loopHeader(in);
  }
}

// Instructions that move, convert or fill data: a destination and a source, or a destination and a fill (memset) or
// a mask (iota).
void Parser::movementOperands(Instruction& in) {
  in.dst = operandThenComma("destination");
  switch (in.op) {
    case Op::Memset: in.imm = immediate("fill value"); return;
    case Op::Iota: selectMask(in.rare.mut().mask, "iota", false); return;
    default: in.a = accessPattern("source");
  }
}

// Instructions that compute on an engine: matmul, act, tt, ts, reduce, affine_select, tt_scan.
void Parser::computeOperands(Instruction& in) {
  in.dst = operandThenComma("destination");
  switch (in.op) {
    case Op::Matmul:
      in.a = operandThenComma("stationary operand");
      in.b = accessPattern("moving operand");
      matmulFlags(in);
      return;
    case Op::Act:
      in.a = operandThenComma("source");
      in.func = actFunc();
      actScaleBias(in);
      return;
    case Op::TT:
      in.a = operandThenComma("first source");
      in.b = operandThenComma("second source");
      in.alu = alu();
      return;
    case Op::TS:
      in.a = operandThenComma("source");
      in.scalar = scalar();
      comma("scalar");
      in.alu = alu();
      tsOptions(in);
      return;
    case Op::Reduce:
      in.a = operandThenComma("source");
      in.alu = alu();
      return;
    case Op::Select:
      in.a = operandThenComma("source");
      selectMask(in.rare.mut().mask, "affine_select", true);
      in.imm = immediate("fill value");
      return;
    default:  // tt_scan
      in.a = operandThenComma("first source");
      in.b = operandThenComma("second source");
      in.scalar = scalar();
      comma("initial value");
      in.alu = alu();
      comma("first operation");
      in.alu2 = alu();
  }
}

// Scalar-register instructions: li, addi, add, mov, and reg_load / reg_store between a register and SBUF.
void Parser::registerOperands(Instruction& in) {
  if (in.op == Op::RegStore) {
    in.dst = operandThenComma("destination");
    in.rs = reg("source");
    return;
  }
  in.rd = regThenComma("destination");
  switch (in.op) {
    case Op::Li: in.imm = immediate("immediate operand"); return;
    case Op::Addi:
      in.rs = regThenComma("source");
      in.imm = immediate("immediate operand");
      return;
    case Op::Add:
      in.rs = regThenComma("first source");
      in.rt = reg("second source");
      return;
    case Op::Mov: in.rs = reg("source"); return;
    default: in.a = accessPattern("source");  // reg_load
  }
}

// A loop's header: `REG = LO, HI, STEP`.
void Parser::loopHeader(Instruction& in) {
  in.rd = reg("loop register");
  expect('=', "expected '=' after the loop register");
  in.lo = signedInt("lower bound");
  comma("lower bound");
  loopBound(in);
  comma("upper bound");
  in.step = signedInt("step");
}

// act's [, scale=S] [, bias=B] [, reduce=OP -> R], in that order, the scale and bias each an immediate, a register
// or a [P, 1] view (docs/format.md "Activation with scale and bias", "Fused reduction").
void Parser::actScaleBias(Instruction& in) {
  bool seen_bias = false;
  while (lex_.peek().is(',')) {
    lex_.next();
    Token key = lex_.next();
    if (key.isName("reduce")) {
      fusedReduce(in);
      return;
    }
    if (seen_bias) failAt(key.loc, "only reduce=OP -> R may follow act's bias");
    const bool have_scale = in.rare->scale.kind != ScalarOperand::Kind::None;
    const bool is_scale = !have_scale && key.isName("scale");
    if (!is_scale && !key.isName("bias"))
      failAt(key.loc, have_scale ? "expected bias=B or reduce=OP -> R after act's scale"
                                 : "expected scale=S, bias=B or reduce=OP -> R after the activation function");
    expect('=', std::string("expected '=' after ") + (is_scale ? "scale" : "bias"));
    (is_scale ? in.rare.mut().scale : in.rare.mut().bias) = scalar();
    seen_bias = !is_scale;
  }
}

// ts's [, SCALAR2, OP2] [, reduce=OP -> R] after its first op (docs/format.md "Two-op ts", "Fused reduction").
// `reduce` is an opcode, so it never names a tensor or register: it tells the two apart.
void Parser::tsOptions(Instruction& in) {
  if (!lex_.peek().is(',')) return;
  lex_.next();
  if (lex_.peek().isName("reduce")) {
    lex_.next();
    return fusedReduce(in);
  }
  in.rare.mut().scalar2 = scalar();
  comma("second scalar");
  in.alu2 = alu();
  if (!lex_.peek().is(',')) return;
  lex_.next();
  Token key = lex_.next();
  if (!key.isName("reduce")) failAt(key.loc, "expected reduce=OP -> R after ts's second operation");
  fusedReduce(in);
}

// `reduce` has been read: =OP -> R, nothing after it.
void Parser::fusedReduce(Instruction& in) {
  expect('=', "expected '=' after reduce");
  in.reduce_alu = alu();
  const Token dash = lex_.next();
  if (!dash.is('-') || !lex_.peek().is('>') || !dash.touches(lex_.peek()))
    failAt(dash.loc, "expected '->' and the reduction's [P, 1] destination after reduce=" +
                         std::string(aluName(in.reduce_alu)));
  lex_.next();
  in.rare.mut().reduce_dst = accessPattern("reduction destination");
  if (lex_.peek().is(',')) failAt(lex_.peek().loc, "nothing may follow the fused reduction's destination");
}

// affine_select's `p=A, e=B, c=C, CMP,` (docs/format.md "Affine select") and iota's `p=A, e=B, c=C`: A and B
// integers, C an index (affine in registers), CMP one of ge gt eq ne le lt; each part is required, in this order.
void Parser::selectMask(SelectMask& m, const char* op, bool comparison) {
  auto key = [&](const char* name) {
    Token t = lex_.next();
    if (!t.isName(name))
      failAt(t.loc, std::string("expected ") + name + "=... (" + op + " takes p=A, e=B, c=C" +
                        (comparison ? ", then the comparison)" : ")"));
    expect('=', std::string("expected '=' after ") + name);
  };
  key("p");
  m.p_scale = coefficient("partition coefficient");
  comma("partition coefficient");
  key("e");
  m.e_scale = coefficient("element coefficient");
  comma("element coefficient");
  key("c");
  m.c = index("offset c");
  if (!comparison) return;
  comma("offset c");
  Token t = lex_.next();
  std::optional<CmpOp> c = t.kind == TokKind::Name ? parseCmp(std::string(t.text)) : std::nullopt;
  if (!c) failAt(t.loc, "expected a comparison with 0 (ge, gt, eq, ne, le or lt)");
  m.cmp = *c;
  comma("comparison");
}

// An integer coefficient: a float is named as such, since a mask's coefficients are integers.
int64_t Parser::coefficient(const char* what) {
  SourceLoc at = lex_.peek().loc;
  const bool negative = lex_.peek().is('-');
  if (negative) lex_.next();
  const Token& t = lex_.peek();
  if (t.kind == TokKind::Float || t.isName("inf") || t.isName("nan"))
    failAt(at, std::string("the ") + what + " must be an integer, not " + (negative ? "-" : "") + std::string(t.text));
  Token n = lex_.next();
  if (n.kind != TokKind::Int) failAt(n.loc, std::string("expected the ") + what + " (an integer)");
  const uint64_t limit = negative ? uint64_t(1) << 63 : uint64_t(INT64_MAX);
  if (n.magnitude > limit) failAt(at, "integer " + quoted((negative ? "-" : "") + std::string(n.text)) + " is out of range");
  return negative ? int64_t(0 - n.magnitude) : int64_t(n.magnitude);  // -2^63 wraps to itself
}

// [, start|start@first] [, stop|stop@last], in that order.
void Parser::matmulFlags(Instruction& in) {
  while (lex_.peek().is(',')) {
    lex_.next();
    Token flag = lex_.next();
    bool isStart = flag.isName("start");
    if (!isStart && !flag.isName("stop"))
      failAt(flag.loc, "expected a matmul flag (start, start@first, stop or stop@last)");
    When& slot = isStart ? in.start : in.stop;
    if (slot != When::Never) failAt(flag.loc, "duplicate matmul flag " + quoted(flag.text));
    if (isStart && in.stop != When::Never) failAt(flag.loc, "'start' must come before 'stop'");
    slot = When::Always;
    if (lex_.peek().is('@')) {
      lex_.next();
      Token when = lex_.next();
      const char* expected = isStart ? "first" : "last";
      if (!when.isName(expected))
        failAt(when.loc, std::string("expected '") + expected + "' after '" + std::string(flag.text) + "@'");
      slot = isStart ? When::First : When::Last;
    }
  }
}

// `if LHS CMP RHS`: two indexes and one of >= > == != <= <, kept as LHS - RHS CMP 0 (docs/format.md "Conditional
// blocks").
void Parser::condition(Instruction& in) {
  SourceLoc at = lex_.peek().loc;
  Index lhs = index("condition's left side");
  Token c = lex_.next();
  auto touching = [&](char second) {
    if (!lex_.peek().is(second) || !c.touches(lex_.peek())) return false;
    lex_.next();
    return true;
  };
  std::optional<CmpOp> cmp;
  if (c.is('>')) cmp = touching('=') ? CmpOp::Ge : CmpOp::Gt;
  else if (c.is('<')) cmp = touching('=') ? CmpOp::Le : CmpOp::Lt;
  else if (c.is('=') && touching('=')) cmp = CmpOp::Eq;
  else if (c.is('!') && touching('=')) cmp = CmpOp::Ne;
  if (!cmp) failAt(c.loc, "expected a comparison (>= > == != <= <) after the condition's left side, got " + describe(c));
  Index rhs = index("condition's right side");
  // lhs - rhs, exactly: the terms of both sides merged.
  Index& d = in.rare.mut().mask.c;
  d = std::move(lhs);
  if (__builtin_sub_overflow(d.constant, rhs.constant, &d.constant)) failAt(at, "the condition's constant is out of range");
  for (const IndexTerm& t : rhs.terms) {
    int64_t neg;
    bool known = false;
    for (const IndexTerm& x : d.terms) known |= x.sameKey(t);
    if (!known && d.terms.size() == kMaxIndexTerms)
      failAt(at, "a condition may have at most " + std::to_string(kMaxIndexTerms) + " register terms");
    if (__builtin_sub_overflow(int64_t(0), t.scale, &neg) || !d.addTerm(t.reg, neg, t.div, t.mod))
      failAt(at, "the condition's scale is out of range");
  }
  in.rare.mut().mask.cmp = *cmp;
}

// A loop's upper bound: an integer, or an index on the registers of enclosing loops (docs/format.md "Loops with
// register bounds"), kept in mask.c with its largest value in hi.
void Parser::loopBound(Instruction& in) {
  const SourceLoc at = lex_.peek().loc;
  Index bound = index("upper bound");
  if (bound.isConstant()) {
    in.hi = bound.constant;
    return;
  }
  auto controller = [&](RegId r) -> const InstructionHead* {
    for (auto it = open_loops_.rbegin(); it != open_loops_.rend(); ++it)
      if (it->op == Op::Loop && it->rd == r) return &*it;
    return nullptr;
  };
  RegId missing = kNone;
  std::optional<int64_t> max = loopBoundMaximum(bound, controller, &missing);
  if (!max)
    failAt(at, "loop bound uses register " + quoted(prog_.registers[missing].name) +
                   ", which no enclosing loop counts with; a bound is on the registers of enclosing loops");
  in.hi = *max;
  in.rare.mut().mask.c = std::move(bound);
}

void Parser::closeLoop(const Token& brace) {
  if (open_loops_.empty()) failAt(brace.loc, "unmatched '}'");
  Instruction loop = std::move(open_loops_.back());
  open_loops_.pop_back();
  loop.body = open_bodies_.back().take();
  open_bodies_.pop_back();
  append(std::move(loop));
}

}  // namespace allocsim
