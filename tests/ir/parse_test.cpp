// parseProgram: what it builds, where it says things are, and for each class of error the exact location and
// message.
#include "ir/parse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

namespace allocsim {
namespace {

// "line:col: message" of the error parseProgram reports, or "accepted".
std::string errorOf(std::string_view text) {
  try {
    parseProgram(text);
  } catch (const InputError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
  }
  return "accepted";
}

std::string loc(SourceLoc l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

// Four lines of declarations, so that the statement under test is on line 5.
const std::string kDecls = "arch tiny\nsbuf a [8, 64] f32\nsbuf b [8, 64] f32\nreg n\n";
const std::string kMatmulDecls = "arch tiny\nsbuf a [8, 8] f32\nsbuf b [8, 8] f32\npsum p [8, 8] f32\n";

const char* const kDesignExample = R"(arch gen2
dram  A   [128, 128]  u32 input
dram  B   [128, 1024] u32 input
dram  C   [128, 1024] u32 output
sbuf  a   [128, 128]  u32
sbuf  b   [128, 512]  u32
psum  acc [128, 512]  u32
sbuf  c   [128, 512]  u32
reg   n
dma   a, A
loop n = 0, 2, 1 {
  dma    b, B[:, n*512 : 512]
  matmul acc, a, b, start, stop
  copy   c, acc
  dma    C[:, n*512 : 512], c
}
)";

TEST(Parse, BuildsTheDesignExample) {
  Program p = parseProgram(kDesignExample);
  EXPECT_EQ(p.arch.name, "gen2");
  ASSERT_EQ(p.tensors.size(), 7u);
  EXPECT_EQ(p.tensors[1].name, "B");
  EXPECT_EQ(p.tensors[1].space, Space::Dram);
  EXPECT_EQ(p.tensors[1].partitions, 128u);
  EXPECT_EQ(p.tensors[1].elements, 1024u);
  EXPECT_TRUE(p.tensors[1].input);
  EXPECT_TRUE(p.tensors[2].output);
  EXPECT_EQ(p.tensors[5].space, Space::Psum);
  ASSERT_EQ(p.registers.size(), 1u);
  EXPECT_EQ(p.registers[0].width, 32u);

  ASSERT_EQ(p.body.size(), 2u);
  EXPECT_EQ(p.body[0].op, Op::Dma);
  EXPECT_EQ(p.body[0].dst, wholeTensor(p, 3));
  const Instruction& loop = p.body[1];
  EXPECT_EQ(loop.op, Op::Loop);
  EXPECT_EQ(loop.rd, 0u);
  EXPECT_EQ(loop.lo, 0);
  EXPECT_EQ(loop.hi, 2);
  EXPECT_EQ(loop.step, 1);
  ASSERT_EQ(loop.body.size(), 4u);
  const AccessPattern& src = loop.body[0].a;
  EXPECT_EQ(src.tensor, 1u);
  EXPECT_EQ(src.partition, Index{});
  EXPECT_EQ(src.partitions, 128u);
  EXPECT_EQ(src.offset, Index::affine(0, 512, 0));
  EXPECT_EQ(src.count, 512u);
  EXPECT_EQ(src.count2, 1u);
  EXPECT_EQ(loop.body[1].op, Op::Matmul);
  EXPECT_EQ(loop.body[1].start, When::Always);
  EXPECT_EQ(loop.body[1].stop, When::Always);
  // Preorder ids: the loop before its body.
  EXPECT_EQ(p.body[0].id, 0u);
  EXPECT_EQ(loop.id, 1u);
  EXPECT_EQ(loop.body[3].id, 5u);
}

TEST(Parse, LocationsPointAtNamesAndOpcodes) {
  Program p = parseProgram(kDesignExample);
  EXPECT_EQ(loc(p.tensors[1].loc), "3:7");   // the name B
  EXPECT_EQ(loc(p.registers[0].loc), "9:7");  // the name n
  EXPECT_EQ(loc(p.body[0].loc), "10:1");      // dma
  EXPECT_EQ(loc(p.body[1].loc), "11:1");      // loop
  const Instruction& dma = p.body[1].body[0];
  EXPECT_EQ(loc(dma.loc), "12:3");
  EXPECT_EQ(loc(dma.dst.loc), "12:10");  // b
  EXPECT_EQ(loc(dma.a.loc), "12:13");    // B of B[...]
}

TEST(Parse, ArchDefaultsToGen2AndAppliesOverrides) {
  EXPECT_EQ(parseProgram("").arch, *archPreset("gen2"));
  Program p = parseProgram("arch tiny psum-banks=2 sbuf-partition-quantum=0x8 dram-limit=4096\n");
  Arch want = *archPreset("tiny");
  want.psum_banks = 2;
  want.sbuf_partition_quantum = 8;
  want.dram_limit = 4096;
  EXPECT_EQ(p.arch, want);
}

TEST(Parse, DeclarationsReadFlagsPlacementsAndOrigins) {
  Program p = parseProgram(
      "dram D [2, 3] bf16 input output pinned @4096 !spill\n"
      "sbuf s [4, 8] i32 pinned @p4+260\n"
      "psum q [8, 16] f32 @bank3 !reload\n"
      "reg w 64 @r6 !coalesced\n"
      "reg v 32\n");
  const Tensor& d = p.tensors[0];
  EXPECT_EQ(d.dtype, DType::BF16);
  EXPECT_TRUE(d.input && d.output && d.pinned);
  EXPECT_EQ(d.placement, (Placement{0, 4096, 0}));
  EXPECT_EQ(d.origin, Origin::Spill);
  EXPECT_EQ(p.tensors[1].placement, (Placement{4, 260, 0}));
  EXPECT_EQ(p.tensors[2].placement, (Placement{0, 0, 3}));
  EXPECT_EQ(p.tensors[2].origin, Origin::Reload);
  EXPECT_EQ(p.registers[0].width, 64u);
  EXPECT_EQ(p.registers[0].phys, 6u);
  EXPECT_EQ(p.registers[0].origin, Origin::Coalesced);
  EXPECT_EQ(p.registers[1].width, 32u);
  EXPECT_FALSE(p.registers[1].phys);
}

TEST(Parse, AffineIndexesAndSecondDimension) {
  Program p = parseProgram(kDecls + "reg m\n"
                           "dma a[n:1, 3+n*512:4, 16:2], b[m*-2-1:1, 7:1]\n"
                           "dma a[-n+5:1, 2*m:1], b[0:8, 0:64]\n");
  const Instruction& i0 = p.body[0];
  EXPECT_EQ(i0.dst.partition, Index::affine(0, 1, 0));
  EXPECT_EQ(i0.dst.offset, Index::affine(0, 512, 3));
  EXPECT_EQ(i0.dst.count, 4u);
  EXPECT_EQ(i0.dst.step2, 16u);
  EXPECT_EQ(i0.dst.count2, 2u);
  EXPECT_EQ(i0.a.partition, Index::affine(1, -2, -1));
  EXPECT_EQ(i0.a.offset, Index::constantIndex(7));
  const Instruction& i1 = p.body[1];
  EXPECT_EQ(i1.dst.partition, Index::affine(0, -1, 5));
  EXPECT_EQ(i1.dst.offset, Index::affine(1, 2, 0));
  EXPECT_EQ(i1.a, wholeTensor(p, 1));  // explicit full slices are the whole tensor
}

TEST(Parse, IndexesAffineInSeveralRegisters) {
  // Terms are kept in register order whatever order they are written in; a register named twice adds up.
  Program p = parseProgram(kDecls + "reg m\nreg k\n"
                           "dma a[k*2+n:1, 3+m*16-k+n*4:4], b[0:1, n-n+m*0:4]\n");
  const Instruction& i0 = p.body[0];
  Index part = Index::affine(0, 1, 0);
  part.terms.push_back({2, 2});
  EXPECT_EQ(i0.dst.partition, part);
  Index off = Index::affine(0, 4, 3);
  off.terms.push_back({1, 16});
  off.terms.push_back({2, -1});
  EXPECT_EQ(i0.dst.offset, off);
  Index zero = Index::affine(0, 0, 0);  // n - n still reads n; m*0 still reads m
  zero.terms.push_back({1, 0});
  EXPECT_EQ(i0.a.offset, zero);
}

TEST(Parse, ImmediatesKeepIntegerOrFloat) {
  Program p = parseProgram(kDecls +
                           "memset a, 1\nmemset a, 1.0\nmemset a, -2.5e-3\nmemset a, -inf\nmemset a, nan\n"
                           "li n, -9223372036854775808\nli n, 0x7fffffffffffffff\nli n, -0x10\nmemset a, 1e5\n");
  auto imm = [&](size_t i) { return p.body[i].imm; };
  EXPECT_EQ(imm(0), (Immediate{false, 1, 0}));
  EXPECT_EQ(imm(1), (Immediate{true, 0, 1.0}));
  EXPECT_EQ(imm(2), (Immediate{true, 0, -2.5e-3}));
  EXPECT_EQ(imm(3), (Immediate{true, 0, -std::numeric_limits<double>::infinity()}));
  EXPECT_TRUE(imm(4).is_float && std::isnan(imm(4).f));
  EXPECT_EQ(imm(5).i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(imm(6).i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(imm(7).i, -16);
  EXPECT_EQ(imm(8), (Immediate{true, 0, 1e5}));
}

TEST(Parse, ScalarOperandIsImmediateRegisterOrTensor) {
  Program p = parseProgram(kDecls + "sbuf s [8, 1] f32\nts a, b, 2, mul\nts a, b, n, add\nts a, b, s, max\n"
                                    "ts a, b, s[0:8, 0:1], sub\nts a, b, inf, min\n");
  EXPECT_EQ(p.body[0].scalar.kind, ScalarOperand::Kind::Imm);
  EXPECT_EQ(p.body[0].scalar.imm.i, 2);
  EXPECT_EQ(p.body[0].alu, AluOp::Mul);
  EXPECT_EQ(p.body[1].scalar.kind, ScalarOperand::Kind::Reg);
  EXPECT_EQ(p.body[1].scalar.reg, 0u);
  EXPECT_EQ(p.body[2].scalar.kind, ScalarOperand::Kind::Tensor);
  EXPECT_EQ(p.body[2].scalar.ap, wholeTensor(p, 2));
  EXPECT_EQ(p.body[3].scalar.ap, wholeTensor(p, 2));
  EXPECT_TRUE(p.body[4].scalar.imm.is_float);
}

TEST(Parse, MatmulFlags) {
  Program p = parseProgram(kMatmulDecls + "matmul p, a, b\nmatmul p, a, b, start@first\n"
                                          "matmul p, a, b, stop@last\nmatmul p, a, b, start, stop@last\n");
  EXPECT_EQ(p.body[0].start, When::Never);
  EXPECT_EQ(p.body[0].stop, When::Never);
  EXPECT_EQ(p.body[1].start, When::First);
  EXPECT_EQ(p.body[2].stop, When::Last);
  EXPECT_EQ(p.body[3].start, When::Always);
  EXPECT_EQ(p.body[3].stop, When::Last);
}

TEST(Parse, CommentsBlankLinesTabsAndCrlf) {
  std::string lf = std::string(kDesignExample);
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(parseProgram(crlf), parseProgram(lf));
  std::string noisy = "# header\n\n" + std::string(kDecls) + "\tdma\ta ,b # copy\n   \n# end";
  EXPECT_EQ(parseProgram(noisy), parseProgram(kDecls + "dma a, b\n"));
}

TEST(Parse, DeclarationMayFollowInstructionsThatDoNotUseIt) {
  Program p = parseProgram(kDecls + "dma a, b\nsbuf c [8, 64] f32\ndma c, a\n");
  EXPECT_EQ(p.tensors.size(), 3u);
  EXPECT_EQ(p.body[1].dst.tensor, 2u);
}

// ---- Errors: exact location and message, by class of error. ----

// One malformed input per case, named by its class of error, with the exact "line:col: message" parseProgram must
// report.
struct ParseErrorCase {
  const char* kind;
  std::string text;
  std::string message;
};

void PrintTo(const ParseErrorCase& c, std::ostream* os) { *os << c.kind; }

const std::vector<ParseErrorCase> kParseErrors = {
    {"UnexpectedCharacter", kDecls + "dma a, b $", "5:10: unexpected character '$'"},
    {"UnexpectedCharacter", std::string("sbuf c [8, 64] f32\0", 19), "1:19: unexpected character '\\x00'"},
    {"UnexpectedCharacter", "sbuf \xC3\xA9 [8, 64] f32",
     "1:6: unexpected character '\\xC3' (a byte outside ASCII: names, numbers and keywords are ASCII)"},
    {"ByteOrderMark", "\xEF\xBB\xBFsbuf c [8, 64] f32",
     "1:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF); save it without one"},
    {"LoneCarriageReturn", "arch tiny\rsbuf c [8, 64] f32\r",
     "1:10: a carriage return without a line feed: lines end with \\n or \\r\\n"},
    {"UnexpectedCharacter", kDecls + "dma a[:, .5:1], b", "5:10: unexpected character '.'"},
    {"MalformedNumber", kDecls + "memset a, 12ab", "5:11: malformed number '12ab'"},
    {"MalformedNumber", kDecls + "memset a, 0x", "5:11: malformed number '0x'"},
    {"MalformedNumber", kDecls + "memset a, 1.2.3", "5:11: malformed number '1.2.3'"},
    {"MalformedNumber", kDecls + "memset a, 1e+", "5:11: malformed number '1e+'"},
    {"IntegerOutOfRange", kDecls + "li n, 9223372036854775808", "5:7: integer '9223372036854775808' is out of range"},
    {"IntegerOutOfRange", kDecls + "li n, -9223372036854775809", "5:7: integer '-9223372036854775809' is out of range"},
    {"IntegerOutOfRange", kDecls + "li n, 18446744073709551616", "5:7: integer '18446744073709551616' is out of range"},
    {"IntegerOutOfRange", kDecls + "li n, 0x10000000000000000", "5:7: integer '0x10000000000000000' is out of range"},
    {"IntegerOutOfRange", kDecls + "loop n = 0, 9223372036854775808, 1 {\n}",
     "5:13: integer '9223372036854775808' is out of range"},
    {"FloatOutOfRange", kDecls + "memset a, 1e999", "5:11: float '1e999' is out of range"},
    {"ShapeMustBePositiveAndFit", "sbuf c [0, 4] f32", "1:9: the partition count must be at least 1"},
    {"ShapeMustBePositiveAndFit", "sbuf c [-1, 4] f32", "1:9: the partition count must be at least 1"},
    {"ShapeMustBePositiveAndFit", "sbuf c [8, 4294967296] f32",
     "1:12: the element count 4294967296 does not fit in 32 bits"},
    {"ShapeMustBePositiveAndFit", "sbuf c [8, x] f32", "1:12: expected the element count (a non-negative integer)"},
    {"UnknownStatement", kDecls + "frob a", "5:1: unknown statement 'frob'"},
    {"UnknownStatement", kDecls + "5", "5:1: expected a statement, got '5'"},
    {"ArchMustComeFirst", "sbuf c [8, 4] f32\narch tiny", "2:1: 'arch' must be the first statement"},
    {"ArchMustComeFirst", "arch tiny\narch gen2", "2:1: 'arch' must be the first statement"},
    {"UnknownArchPreset", "arch gen9", "1:6: unknown arch preset 'gen9' (expected gen2, gen1, gen3 or tiny)"},
    {"BadArchOverride", "arch tiny psum-bankz=2", "1:11: unknown arch parameter 'psum-bankz'"},
    {"BadArchOverride", "arch tiny psum-banks=2 psum-banks=3", "1:24: duplicate arch parameter 'psum-banks'"},
    {"BadArchOverride", "arch tiny psum-banks=0", "1:22: psum-banks must be between 1 and 64, got 0"},
    {"BadArchOverride", "arch tiny psum-banks 2", "1:22: expected '=' after the arch parameter 'psum-banks'"},
    {"BadArchOverride", "arch tiny psum - banks=2", "1:11: unknown arch parameter 'psum'"},
    {"BadArchOverride", "arch tiny sbuf-align=3", "1:1: invalid arch: sbuf-bytes must be a multiple of sbuf-align"},
    {"ReservedWord", "sbuf start [8, 4] f32", "1:6: 'start' is a reserved word"},
    {"ReservedWord", "reg inf", "1:5: 'inf' is a reserved word"},
    {"ReservedWord", "reg dma", "1:5: 'dma' is a reserved word"},
    {"DuplicateName", kDecls + "sbuf a [8, 4] f32", "5:6: duplicate name 'a' (first declared at 2:6)"},
    {"DuplicateName", kDecls + "reg a", "5:5: duplicate name 'a' (first declared at 2:6)"},
    {"MissingPunctuation", kDecls + "dma a b", "5:7: expected ',' after the destination"},
    {"MissingPunctuation", "sbuf c 8, 4] f32", "1:8: expected '[' after the tensor name"},
    {"MissingPunctuation", kDecls + "dma a[:, :, 1:2, 3], b", "5:16: expected ']' to close the access pattern"},
    {"MissingPunctuation", kDecls + "dma a[0 1, :], b", "5:9: expected ':' after the partition start"},
    {"MissingPunctuation", kDecls + "loop n 0, 2, 1 {\n}", "5:8: expected '=' after the loop register"},
    {"MissingPunctuation", kDecls + "loop n = 0, 2, 1", "5:17: expected '{' to open the loop body"},
    {"TrailingTokens", kDecls + "dma a, b, c", "5:9: unexpected ',' after the instruction"},
    {"TrailingTokens", "sbuf c [8, 4] f32 foo", "1:19: unexpected 'foo' after the declaration"},
    {"TrailingTokens", kDecls + "loop n = 0, 2, 1 { dma a, b\n}", "5:20: unexpected 'dma' after the '{'"},
    {"TrailingTokens", kDecls + "loop n = 0, 2, 1 {\n} x", "6:3: unexpected 'x' after the '}'"},
    {"UnknownDtype", "sbuf c [8, 4] f64",
     "1:15: unknown dtype 'f64' (expected u32, i32, f32, bf16, u16, f16, i16, u8, i8, f8e4m3, f8e5m2 or f8e4m3fn)"},
    {"UnknownDtype", "sbuf c [8, 4]",
     "1:14: expected a dtype (u32, i32, f32, bf16, u16, f16, i16, u8, i8, f8e4m3, f8e5m2 or f8e4m3fn)"},
    {"TensorFlags", "sbuf c [8, 4] f32 input", "1:19: 'input' is only allowed on dram tensors"},
    {"TensorFlags", "dram c [8, 4] f32 input input", "1:25: duplicate 'input'"},
    {"TensorFlags", "dram c [8, 4] f32 @0 input", "1:22: unexpected 'input' after the declaration"},
    {"Placement", "sbuf c [8, 4] f32 @bank2", "1:19: placement @bank2 given for sbuf tensor 'c'"},
    {"Placement", "dram c [8, 4] f32 @p0+0", "1:19: placement @p0 given for dram tensor 'c'"},
    {"Placement", "psum c [8, 4] f32 @b2", "1:20: malformed placement for psum tensor 'c' (expected @bankN)"},
    {"Placement", "sbuf c [8, 4] f32 @p1", "1:22: expected '+' and a byte offset after the placement partition"},
    {"Placement", "psum c [8, 4] f32 @bank4294967296",
     "1:20: bank number in placement 'bank4294967296' is out of range"},
    {"Placement", "reg r @p1", "1:8: malformed placement for register 'r' (expected @rN)"},
    {"UnknownOrigin", kDecls + "dma a, b !spilled",
     "5:11: unknown origin 'spilled' (expected spill, reload, coalesced, partial or copy)"},
    {"UnknownOrigin", "reg r !source",
     "1:8: unknown origin 'source' (expected spill, reload, coalesced, partial or copy)"},
    {"RegisterWidth", "reg r 16", "1:7: register width must be 32 or 64"},
    {"DeclarationInsideLoop", kDecls + "loop n = 0, 2, 1 {\n  sbuf c [8, 4] f32\n}",
     "6:3: declarations must be at the top level, not inside a loop"},
    {"NameResolution", kDecls + "dma a, foo", "5:8: unknown tensor 'foo'"},
    {"NameResolution", kDecls + "dma a, c\nsbuf c [8, 64] f32", "5:8: unknown tensor 'c'"},  // use before declaration
    {"NameResolution", kDecls + "dma a, n", "5:8: 'n' is a register, not a tensor"},
    {"NameResolution", kDecls + "mov n, a", "5:8: 'a' is a tensor, not a register"},
    {"NameResolution", kDecls + "li m, 1", "5:4: unknown register 'm'"},
    {"NameResolution", kDecls + "ts a, b, zz, add", "5:10: unknown tensor or register 'zz'"},
    {"NameResolution", kDecls + "dma a[:, b:1], b", "5:10: 'b' is a tensor, not a register"},
    {"Index", kDecls + "reg m\nreg k\nreg j\nreg i\nreg h\nreg g\nreg f\nreg e\ndma a[n+m+k+j+i+h+g+f+e:1, :], b",
     "13:23: an index may have at most 8 register terms"},
    {"Index", kDecls + "reg m\ndma a[:, n*9223372036854775807+n:1], b", "6:32: index scale out of range"},
    {"Index", kDecls + "dma a[:, 9223372036854775807+1:1], b", "5:30: index constant out of range"},
    {"Index", kDecls + "dma a[:, 0:4294967296], b", "5:12: the free count 4294967296 does not fit in 32 bits"},
    {"Index", kDecls + "dma a[:, 1.5:2], b",
     "5:10: expected the free offset (an integer or a register term such as n*512)"},
    {"Index", kDecls + "dma a[:, -n*-9223372036854775808:1], b", "5:11: index scale out of range"},
    {"UnknownFunctionOrAluOp", kDecls + "act a, b, softsign",
     "5:11: unknown activation function 'softsign' (expected identity, relu, neg, abs, square, exp, tanh, sigmoid, "
     "silu, gelu, sqrt, rsqrt, reciprocal, log, sin, cos, erf, softplus, gelu_apprx_tanh, sign, arctan or mish)"},
    {"UnknownFunctionOrAluOp", kDecls + "tt a, a, b, pow",
     "5:13: unknown ALU operation 'pow' (expected add, sub, mul, max, min, and, or, xor, shl, shr, div, eq, ne, lt, le, gt, ge or keep)"},
    {"Immediate", kDecls + "memset a, b", "5:11: expected the fill value (an integer or a float)"},
    {"Immediate", kDecls + "li n, -nan", "5:8: expected the immediate operand (an integer or a float)"},
    {"MatmulFlags", kMatmulDecls + "matmul p, a, b, stop, start", "5:23: 'start' must come before 'stop'"},
    {"MatmulFlags", kMatmulDecls + "matmul p, a, b, start, start", "5:24: duplicate matmul flag 'start'"},
    {"MatmulFlags", kMatmulDecls + "matmul p, a, b, begin",
     "5:17: expected a matmul flag (start, start@first, stop or stop@last)"},
    {"MatmulFlags", kMatmulDecls + "matmul p, a, b, start@last", "5:23: expected 'first' after 'start@'"},
    {"LoopBraces", kDecls + "}", "5:1: unmatched '}'"},
    {"LoopBraces", kDecls + "loop n = 0, 2, 1 {\n  dma a, b\n", "7:1: expected '}' to close the loop at 5:1"},
    {"LoopBraces", kDecls + "loop n = 0, 2, 1 {\n  loop n = 0, 2, 1 {\n  }",
     "7:4: expected '}' to close the loop at 5:1"},
};

class ParseErrorMessage : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(ParseErrorMessage, IsLocatedAndExact) { EXPECT_EQ(errorOf(GetParam().text), GetParam().message); }

// Named by class and ordinal within it: UnexpectedCharacter0, UnexpectedCharacter1, ...
INSTANTIATE_TEST_SUITE_P(Classes, ParseErrorMessage, ::testing::ValuesIn(kParseErrors),
                         [](const ::testing::TestParamInfo<ParseErrorCase>& info) {
                           size_t ordinal = 0;
                           for (size_t i = 0; i < info.index; ++i)
                             ordinal += std::string(kParseErrors[i].kind) == info.param.kind;
                           return info.param.kind + std::to_string(ordinal);
                         });


TEST(ParseError, LoopNestingIsCapped) {
  std::string deep = "reg n\n";
  for (int i = 0; i < 64; ++i) deep += "loop n = 0, 1, 1 {\n";
  for (int i = 0; i < 64; ++i) deep += "}\n";
  EXPECT_EQ(errorOf(deep), "accepted");
  std::string tooDeep = "reg n\n";
  for (int i = 0; i < 1000000; ++i) tooDeep += "loop n = 0, 1, 1 {\n";
  EXPECT_EQ(errorOf(tooDeep), "66:1: loops nested deeper than 64");
}

// ---- Hostile input: bounded time and memory, a clean error. ----

TEST(ParseRobustness, HugeLinesAndTokensGiveShortMessages) {
  std::string longName(10'000'000, 'x');
  EXPECT_EQ(errorOf(longName), "1:1: unknown statement 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
  std::string commas = kDecls + "dma a";
  for (int i = 0; i < 1'000'000; ++i) commas += ", b";
  EXPECT_EQ(errorOf(commas), "5:9: unexpected ',' after the instruction");
  std::string digits = kDecls + "li n, " + std::string(1'000'000, '7');
  EXPECT_EQ(errorOf(digits).substr(0, 19), "5:7: integer '77777");
}

TEST(ParseRobustness, EveryByteValueIsHandled) {
  for (int c = 0; c < 256; ++c) {
    std::string text = kDecls + "dma a, b" + std::string(1, char(c)) + "\n";
    std::string err = errorOf(text);
    bool fine = c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '#';
    if (fine) EXPECT_EQ(err, "accepted") << c;
    else EXPECT_NE(err, "accepted") << c;
  }
}

}  // namespace
}  // namespace allocsim
