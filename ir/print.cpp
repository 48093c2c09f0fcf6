#include "ir/print.h"

#include <charconv>
#include <cmath>
#include <initializer_list>
#include <string_view>

namespace allocsim {
namespace {

// Appends instead of `"literal" + std::string(...)`, which trips a GCC 12 -Wrestrict false positive.
std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view s : parts) out += s;
  return out;
}

// Names of ids a pass may have left dangling still print (as "<tensor 7>") instead of crashing.
std::string tensorName(const Program& p, TensorId id) {
  return id < p.tensors.size() ? p.tensors[id].name : concat({"<tensor ", std::to_string(id), ">"});
}

std::string registerName(const Program& p, RegId id) {
  return id < p.registers.size() ? p.registers[id].name : concat({"<register ", std::to_string(id), ">"});
}

// One register term: n, n*512, n//4, n%2*128, n//4%2*-1.
void printTerm(const Program& p, const IndexTerm& t, int64_t scale, std::string& out) {
  out += registerName(p, t.reg);
  if (t.div != 1) out += "//" + std::to_string(t.div);
  if (t.mod != 0) out += "%" + std::to_string(t.mod);
  if (scale != 1) {
    out += '*';
    out += std::to_string(scale);
  }
}

// 7, n, n*512, n*512+3, n*-2-1, i*512+j*128+3, i%2*64+j//4 (terms in register order, as Index keeps them)
std::string printIndex(const Program& p, const Index& ix) {
  if (ix.isConstant()) return std::to_string(ix.constant);
  std::string out;
  for (const IndexTerm& t : ix.terms) {
    if (!out.empty()) out += '+';
    printTerm(p, t, t.scale, out);
  }
  if (ix.constant > 0) out += "+";
  if (ix.constant != 0) out += std::to_string(ix.constant);
  return out;
}

// An if's condition c CMP 0 as LHS CMP RHS: the terms of positive scale (and of scale 0) and a positive constant on
// the left, the others negated on the right, an empty side as 0: `i >= j`, `i*4+3 < j*8`. The parser reads it back
// as LHS - RHS, the same c.
std::string printCondition(const Program& p, const SelectMask& m) {
  std::string lhs, rhs;
  for (const IndexTerm& t : m.c.terms) {
    const bool right = t.scale < 0 && t.scale != INT64_MIN;
    std::string& side = right ? rhs : lhs;
    if (!side.empty()) side += '+';
    printTerm(p, t, right ? -t.scale : t.scale, side);
  }
  if (m.c.constant > 0) lhs += (lhs.empty() ? "" : "+") + std::to_string(m.c.constant);
  if (m.c.constant < 0 && m.c.constant != INT64_MIN) rhs += (rhs.empty() ? "" : "+") + std::to_string(-m.c.constant);
  if (m.c.constant == INT64_MIN) lhs += std::to_string(m.c.constant);  // cannot be negated; lhs may be empty
  static const char* const kSymbols[] = {">=", ">", "==", "!=", "<=", "<"};
  return (lhs.empty() ? "0" : lhs) + " " + kSymbols[size_t(m.cmp)] + " " + (rhs.empty() ? "0" : rhs);
}

std::string printSlice(const Program& p, const Index& start, uint32_t count, uint32_t full) {
  if (start.isConstant() && start.constant == 0 && count == full) return ":";
  return printIndex(p, start) + ":" + std::to_string(count);
}

std::string originSuffix(Origin o) { return o == Origin::Source ? "" : std::string(" !") + originName(o); }

}  // namespace

std::string placementText(const Tensor& t) {
  if (!t.placement) return "unplaced";
  const Placement& pl = *t.placement;
  switch (t.space) {
    case Space::Sbuf: return concat({"@p", std::to_string(pl.partition), "+", std::to_string(pl.offset)});
    case Space::Psum: return concat({"@bank", std::to_string(pl.bank)});
    case Space::Dram: return concat({"@", std::to_string(pl.offset)});
  }
  return "?";
}

namespace {

std::string printTensor(const Program& p, const Tensor& t) {
  std::string out = std::string(spaceName(t.space)) + " " + t.name + " ";
  if (t.tiles > 1) out += concat({"[", std::to_string(t.tiles), "] "});
  out += concat({"[", std::to_string(t.partitions), ", ", std::to_string(t.tileElements()), "] ", dtypeName(t.dtype)});
  if (t.input) out += " input";
  if (t.output) out += " output";
  if (t.pinned) out += " pinned";
  if (t.placement) out += " " + placementText(t);
  out += originSuffix(t.origin);
  if (t.origin != Origin::Source && t.copy_of < p.tensors.size()) out += concat({"(", p.tensors[t.copy_of].name, ")"});
  return out;
}

std::string printRegister(const Program& p, const Register& r) {
  std::string out = "reg " + r.name;
  if (r.width != 32) out += concat({" ", std::to_string(r.width)});
  if (r.phys) out += concat({" @r", std::to_string(*r.phys)});
  out += originSuffix(r.origin);
  if (r.origin != Origin::Source && r.copy_of < p.registers.size())
    out += concat({"(", p.registers[r.copy_of].name, ")"});
  return out;
}

std::string printArch(const Arch& a) {
  std::string out = "arch " + a.name;
  for (const auto& [key, value] : archOverridesFromPreset(a)) out += concat({" ", key, "=", std::to_string(value)});
  return out;
}

std::string matmulFlag(const char* name, When w) {
  switch (w) {
    case When::Never: return "";
    case When::Always: return std::string(", ") + name;
    case When::First: return std::string(", ") + name + "@first";
    case When::Last: return std::string(", ") + name + "@last";
  }
  return "";
}

std::string printScalar(const Program& p, const ScalarOperand& s) {
  switch (s.kind) {
    case ScalarOperand::Kind::Imm: return printImmediate(s.imm);
    case ScalarOperand::Kind::Reg: return registerName(p, s.reg);
    case ScalarOperand::Kind::Tensor: return printAccessPattern(p, s.ap);
    case ScalarOperand::Kind::None: return "";
  }
  return "?";
}

// act's and ts's optional ", reduce=OP -> R" (docs/format.md "Fused reduction").
std::string fusedReduce(const Program& p, const Instruction& in) {
  if (!hasFusedReduce(in)) return "";
  return std::string(", reduce=") + aluName(in.reduce_alu) + " -> " + printAccessPattern(p, in.rare->reduce_dst);
}

std::string operands(const Program& p, const Instruction& in) {
  auto ap = [&](const AccessPattern& a) { return printAccessPattern(p, a); };
  auto reg = [&](RegId r) { return registerName(p, r); };
  switch (in.op) {
    case Op::Dma:
    case Op::Copy: return ap(in.dst) + ", " + ap(in.a);
    case Op::Matmul:
      return ap(in.dst) + ", " + ap(in.a) + ", " + ap(in.b) + matmulFlag("start", in.start) +
             matmulFlag("stop", in.stop);
    case Op::Act: {
      std::string out = ap(in.dst) + ", " + ap(in.a) + ", " + actName(in.func);
      if (in.rare->scale.kind != ScalarOperand::Kind::None) out += ", scale=" + printScalar(p, in.rare->scale);
      if (in.rare->bias.kind != ScalarOperand::Kind::None) out += ", bias=" + printScalar(p, in.rare->bias);
      return out + fusedReduce(p, in);
    }
    case Op::TT: return ap(in.dst) + ", " + ap(in.a) + ", " + ap(in.b) + ", " + aluName(in.alu);
    case Op::TS: {
      std::string out = ap(in.dst) + ", " + ap(in.a) + ", " + printScalar(p, in.scalar) + ", " + aluName(in.alu);
      if (hasSecondOp(in)) out += ", " + printScalar(p, in.rare->scalar2) + ", " + aluName(in.alu2);
      return out + fusedReduce(p, in);
    }
    case Op::Reduce: return ap(in.dst) + ", " + ap(in.a) + ", " + aluName(in.alu);
    case Op::Memset: return ap(in.dst) + ", " + printImmediate(in.imm);
    case Op::Select:
      return ap(in.dst) + ", " + ap(in.a) + ", p=" + std::to_string(in.rare->mask.p_scale) +
             ", e=" + std::to_string(in.rare->mask.e_scale) + ", c=" + printIndex(p, in.rare->mask.c) + ", " + cmpName(in.rare->mask.cmp) +
             ", " + printImmediate(in.imm);
    case Op::Iota:
      return ap(in.dst) + ", p=" + std::to_string(in.rare->mask.p_scale) + ", e=" + std::to_string(in.rare->mask.e_scale) +
             ", c=" + printIndex(p, in.rare->mask.c);
    case Op::Transpose:
    case Op::Broadcast:
    case Op::BnStats:
    case Op::BnAggr: return ap(in.dst) + ", " + ap(in.a);
    case Op::TTScan:
      return ap(in.dst) + ", " + ap(in.a) + ", " + ap(in.b) + ", " + printScalar(p, in.scalar) + ", " +
             aluName(in.alu) + ", " + aluName(in.alu2);
    case Op::Li: return reg(in.rd) + ", " + printImmediate(in.imm);
    case Op::Addi: return reg(in.rd) + ", " + reg(in.rs) + ", " + printImmediate(in.imm);
    case Op::Add: return reg(in.rd) + ", " + reg(in.rs) + ", " + reg(in.rt);
    case Op::Mov: return reg(in.rd) + ", " + reg(in.rs);
    case Op::RegLoad: return reg(in.rd) + ", " + ap(in.a);
    case Op::RegStore: return ap(in.dst) + ", " + reg(in.rs);
    case Op::If: return printCondition(p, in.rare->mask);
    case Op::Loop:
      return reg(in.rd) + " = " + std::to_string(in.lo) + ", " +
             (hasRegisterBound(in) ? printIndex(p, in.rare->mask.c) : std::to_string(in.hi)) + ", " +
             std::to_string(in.step);
  }
  return "";
}

void printBody(const Program& p, const std::vector<Instruction>& body, int depth, std::string& out) {
  const std::string indent(size_t(depth) * 2, ' ');
  for (const Instruction& in : body) {
    out += indent + printInstruction(p, in) + "\n";
    if (!hasBody(in.op)) continue;
    printBody(p, in.body, depth + 1, out);
    out += indent + "}\n";
  }
}

}  // namespace

std::string printImmediate(const Immediate& imm) {
  if (!imm.is_float) return std::to_string(imm.i);
  if (std::isnan(imm.f)) return "nan";
  if (std::isinf(imm.f)) return imm.f < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, imm.f);  // shortest text that reads back exactly
  std::string out(buf, ec == std::errc() ? end : buf);
  // Keep it a float literal: "1" would read back as an integer.
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string printAccessPattern(const Program& p, const AccessPattern& ap) {
  std::string name = tensorName(p, ap.tensor);
  if (ap.tensor >= p.tensors.size()) return name;
  const Tensor& t = p.tensors[ap.tensor];
  bool second = ap.count2 != 1 || ap.step2 != 0;
  std::string ps = printSlice(p, ap.partition, ap.partitions, t.partitions);
  std::string fs;
  if (ap.tile) {
    name += "{" + printIndex(p, *ap.tile) + "}";
    fs = printSlice(p, offsetInTile(ap, t), ap.count, t.tileElements());
  } else {
    fs = printSlice(p, ap.offset, ap.count, t.elements);
  }
  if (ps == ":" && fs == ":" && !second) return name;
  std::string out = name + "[" + ps + ", " + fs;
  if (second) out += ", " + std::to_string(ap.step2) + ":" + std::to_string(ap.count2);
  return out + "]";
}

std::string printInstruction(const Program& p, const Instruction& in) {
  std::string out = std::string(opName(in.op)) + " " + operands(p, in) + originSuffix(in.origin);
  if (hasBody(in.op)) out += " {";
  return out;
}

std::string printProgram(const Program& p) {
  std::string out = printArch(p.arch) + "\n";
  for (const Tensor& t : p.tensors) out += printTensor(p, t) + "\n";
  for (const Register& r : p.registers) out += printRegister(p, r) + "\n";
  if (!p.body.empty()) out += "\n";
  printBody(p, p.body, 0, out);
  return out;
}

}  // namespace allocsim
