// The well-formedness checker: one test per rule of docs/format.md "Well-formedness", each asserting the
// message and its line:col, plus the corpus kernels and the checker's own limits.
#include "ir/check.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ir/parse.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

// Lines 1-11 of every test program; the lines a test adds start at line 12.
constexpr uint32_t kFirst = 12;
const char* const kHeader =
    "arch tiny\n"
    "dram A [8, 64] f32 input\n"
    "sbuf a [8, 64] f32\n"
    "sbuf b [8, 64] f32\n"
    "sbuf i [8, 64] u32\n"
    "psum acc [8, 64] f32\n"
    "reg n\n"
    "reg w 64\n"
    "dma a, A\n"
    "dma b, A\n"
    "memset i, 0\n";

std::string program(const std::vector<std::string>& lines) {
  std::string text = kHeader;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

std::vector<Diagnostic> check(const std::string& text, const CheckOptions& opts = {}) {
  return checkProgram(parseProgram(text), opts);
}

std::string dump(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const Diagnostic& d : diags) s += "\n  " + formatDiagnostic("t", d);
  return s;
}

// Exactly one diagnostic, at line:col, whose message contains `text`.
::testing::AssertionResult only(const std::vector<Diagnostic>& diags, uint32_t line, uint32_t col,
                                const std::string& text) {
  if (diags.size() != 1)
    return ::testing::AssertionFailure() << "expected 1 diagnostic, got " << diags.size() << dump(diags);
  const Diagnostic& d = diags[0];
  if (d.loc.line != line || d.loc.col != col || d.message.find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "expected " << line << ":" << col << ": ..." << text << "..., got"
                                         << dump(diags);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult only(const std::string& text, uint32_t line, uint32_t col, const std::string& message) {
  return only(check(text), line, col, message);
}

// --- well-formed programs --------------------------------------------------------------------------------

TEST(Check, HeaderAloneIsWellFormed) { EXPECT_EQ(dump(check(program({}))), ""); }

TEST(Check, EveryCorpusKernelIsWellFormed) {
  const std::filesystem::path dir = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "corpus" / "kernels";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int kernels = 0;
  for (const std::filesystem::path& path : programFiles(dir)) {
    const std::string name = path.filename().string();
    Program p;
    try {
      p = parseProgram(readFile(path));
    } catch (const InputError& e) {
      ADD_FAILURE() << e.format(name);
      continue;
    }
    std::vector<Diagnostic> diags = checkProgram(p);
    EXPECT_TRUE(diags.empty()) << name << dump(diags);
    ++kernels;
  }
  EXPECT_GT(kernels, 0);
}

TEST(Check, TileViewsStayInsideTheirTile) {
  const std::string tiles = "sbuf q [4] [8, 16] f32\nsbuf t [8, 64] f32\n";
  auto text = [&](const std::string& body) { return std::string("arch tiny\n") + tiles + "reg n\n" + body; };
  EXPECT_EQ(dump(check(text("memset q, 0.0\nloop n = 0, 4, 1 {\n  copy t[:, n*16:16], q{n}\n}\n"))), "");
  EXPECT_TRUE(only(text("memset q, 0.0\nloop n = 0, 5, 1 {\n  copy t[:, 0:16], q{n}\n}\n"), 7, 20,
                   "q{4}[0:8, 0:16] is outside tile array 'q' [4] [8, 16]: a tile view stays inside one tile (n = 4)"));
  EXPECT_TRUE(only(text("memset q, 0.0\ncopy t[:, 0:2], q{1}[:, 15:2]\n"), 6, 17,
                   "q{1}[0:8, 15:2] is outside tile array 'q' [4] [8, 16]"));
  // Two registers in one index: the checker evaluates every term.
  EXPECT_TRUE(only(text("reg m\nli m, 1\nli n, 3\nmemset t[:, m*16+n*16:1], 0.0\n"), 8, 8,
                    "t[0:8, 64:1] is out of bounds of tensor 't' [8, 64] (n = 3, m = 1)"));
}

TEST(Check, KLoopAccumulationWithStartAtFirstAndStopAtLastIsWellFormed) {
  EXPECT_EQ(dump(check(program({
                "loop n = 0, 4, 1 {",
                "  matmul acc[:, 0:16], a[:, n*8:8], b[:, n*16:16], start@first, stop@last",
                "}",
                "copy b[:, 0:16], acc[:, 0:16]",
            }))),
            "");
}

TEST(Check, RequireWellFormedThrowsWithAllDiagnostics) {
  Program ok = parseProgram(program({}));
  EXPECT_NO_THROW(requireWellFormed(ok));
  Program bad = parseProgram(program({"copy a, A", "copy b, A"}));
  try {
    requireWellFormed(bad);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].loc.line, kFirst);
    EXPECT_EQ(e.diagnostics()[1].loc.line, kFirst + 1);
  }
}

// --- declarations ----------------------------------------------------------------------------------------

TEST(CheckDecl, ShapeAtLeastOne) {  // the parser rejects a 0 in the text; programs built through the API
  Program p = parseProgram("arch tiny\nsbuf s [8, 4] f32\n");
  p.tensors[0].elements = 0;
  EXPECT_TRUE(only(checkProgram(p), 2, 6, "tensor 's' has shape [8, 0]; both dimensions must be >= 1"));
}

TEST(CheckDecl, SbufPartitions) {
  EXPECT_TRUE(only("arch tiny\nsbuf s [16, 4] f32\n", 2, 6, "sbuf tensor 's' has 16 partitions; the machine has 8"));
}

TEST(CheckDecl, SbufBytesPerPartition) {
  EXPECT_TRUE(only("arch tiny\nsbuf s [8, 2048] f32\n", 2, 6,
                   "sbuf tensor 's' needs 8192 bytes per partition; SBUF has 4096"));
}

TEST(CheckDecl, PsumDtype) {
  EXPECT_TRUE(only("arch tiny\npsum s [8, 64] bf16\n", 2, 6, "psum tensor 's' has dtype bf16; PSUM holds f32, i32 or u32"));
}

TEST(CheckDecl, PsumPartitions) {
  EXPECT_TRUE(only("arch tiny\npsum s [9, 4] f32\n", 2, 6, "psum tensor 's' has 9 partitions; the machine has 8"));
}

TEST(CheckDecl, PsumCapacityGuardVerbatim) {
  std::vector<Diagnostic> d = check("arch tiny\npsum big [8, 320] f32\n");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].message, "big is too big for PSUM, requires 5 banks with PSUM size 4");
  EXPECT_EQ(d[0].loc.line, 2u);
  EXPECT_EQ(d[0].loc.col, 6u);
  EXPECT_TRUE(check("arch tiny\npsum fits [8, 256] f32\n").empty());  // exactly 4 banks
}

TEST(CheckDecl, TotalDramBytes) {
  EXPECT_TRUE(only("arch tiny\ndram x [8, 4] f32 input\ndram y [4096, 1024] f32 input\n", 3, 6,
                   "DRAM tensors need 16777344 bytes in total (through 'y'); dram-limit is 16777216"));
}

TEST(CheckDecl, InputOutputOnlyOnDram) {  // the parser rejects the flag in the text
  Program p = parseProgram(program({}));
  p.tensors[1].output = true;
  p.tensors[1].loc = SourceLoc{3, 6};
  EXPECT_TRUE(only(checkProgram(p), 3, 6, "tensor 'a' is marked output but is in sbuf; inputs and outputs live in DRAM"));
}

TEST(CheckDecl, PinnedNeedsPlacement) {
  EXPECT_TRUE(only("arch tiny\nsbuf s [8, 4] f32 pinned\n", 2, 6, "pinned tensor 's' has no placement"));
}

TEST(CheckDecl, SbufPlacementInBounds) {
  EXPECT_TRUE(only("arch tiny\nsbuf s [8, 4] f32 @p4+0\n", 2, 6,
                   "placement @p4+0 of 's' [8, 4] (16 bytes per partition) exceeds SBUF (8 partitions, 4096 bytes)"));
  EXPECT_TRUE(only("arch tiny\nsbuf s [4, 4] f32 @p0+4084\n", 2, 6, "placement @p0+4084 of 's'"));
  EXPECT_TRUE(check("arch tiny\nsbuf s [4, 4] f32 @p4+4080\n").empty());
}

TEST(CheckDecl, PsumPlacementInBounds) {
  EXPECT_TRUE(only("arch tiny\npsum s [8, 128] f32 @bank3\n", 2, 6, "placement @bank3 of 's' (2 banks) exceeds PSUM (4 banks)"));
  EXPECT_TRUE(check("arch tiny\npsum s [8, 128] f32 @bank2\n").empty());
}

TEST(CheckDecl, DramPlacementInBounds) {
  EXPECT_TRUE(only("arch tiny\ndram s [8, 4] f32 input @16777200\n", 2, 6,
                   "placement @16777200 of 's' (128 bytes) exceeds dram-limit 16777216"));
}

TEST(CheckDecl, RegisterPlacementInBounds) {
  EXPECT_TRUE(only("arch tiny\nreg r 64 @r3\n", 2, 5, "placement @r3 of register 'r' (2 lanes) exceeds the 4 SP registers"));
  EXPECT_TRUE(check("arch tiny\nreg r 64 @r2\n").empty());
}

TEST(CheckDecl, RegisterWidth) {  // the parser rejects other widths in the text
  Program p = parseProgram(program({}));
  p.registers[0].width = 16;
  p.registers[0].loc = SourceLoc{7, 5};
  EXPECT_TRUE(only(checkProgram(p), 7, 5, "register 'n' has width 16; it must be 32 or 64"));
}

// --- instructions: dma and matmul ------------------------------------------------------------------------

TEST(CheckInst, DmaNotDramToDram) {
  EXPECT_TRUE(only("arch tiny\ndram X [8, 4] f32 input\ndram Y [8, 4] f32 output\ndma Y, X\n", 4, 1,
                   "dma cannot copy DRAM to DRAM ('X' to 'Y'); stage it through SBUF"));
}

TEST(CheckInst, DmaSameShape) {
  EXPECT_TRUE(only(program({"dma a[:, 0:32], A"}), kFirst, 17,
                   "dma shapes differ: destination 'a' view [8, 32], source 'A' view [8, 64]"));
}

TEST(CheckInst, DmaSameShapeAcrossSecondDimension) {  // [8, 2x16] and [8, 32] are the same shape
  EXPECT_EQ(dump(check(program({"dma a[:, 0:16, 32:2], A[:, 0:32]"}))), "");
}

TEST(CheckInst, DmaSameDtype) {
  EXPECT_TRUE(only(program({"dma i, A"}), kFirst, 1, "dma dtypes differ: destination 'i' is u32, source 'A' is f32"));
}

TEST(CheckInst, MatmulDestinationInPsum) {
  EXPECT_TRUE(only(program({"matmul a, a, b"}), kFirst, 8, "matmul destination 'a' must be in PSUM, not sbuf"));
}

TEST(CheckInst, MatmulOperandsInSbuf) {
  EXPECT_TRUE(only(program({"matmul acc, A, b"}), kFirst, 13, "matmul stationary 'A' must be in SBUF, not dram"));
  EXPECT_TRUE(only(program({"matmul acc, a, acc"}), kFirst, 16, "matmul moving 'acc' must be in SBUF, not psum"));
}

TEST(CheckInst, MatmulContractionCount) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[0:4, 0:8], b[:, 0:16]"}), kFirst, 35,
                   "matmul stationary 'a' view [4, 8] and moving 'b' view [8, 16] must have the same partition "
                   "(contraction) count"));
}

TEST(CheckInst, MatmulDestinationIsMByN) {
  EXPECT_TRUE(only(program({"matmul acc[0:8, 0:16], a[:, 0:4], b[:, 0:16]"}), kFirst, 8,
                   "matmul destination 'acc' view [8, 16] must be [M, N] = [4, 16] (stationary columns, moving columns)"));
  EXPECT_TRUE(only(program({"matmul acc[0:8, 0:8], a[:, 0:8], b[:, 0:16]"}), kFirst, 8, "must be [M, N] = [8, 16]"));
}

TEST(CheckInst, MatmulDestinationHasNoSecondDimension) {
  EXPECT_TRUE(only(program({"matmul acc[0:8, 0:8, 16:2], a[:, 0:8], b[:, 0:16]"}), kFirst, 8,
                   "matmul destination 'acc' must not have a second dimension"));
}

TEST(CheckInst, MatmulDestinationWithinOneBank) {
  const std::string text =
      "arch tiny\nsbuf a [8, 64] f32\nsbuf b [8, 64] f32\npsum acc [8, 128] f32\nmemset a, 0.0\nmemset b, 0.0\n";
  EXPECT_TRUE(only(text + "matmul acc[:, 60:8], a[:, 0:8], b[:, 0:8], start, stop\n", 7, 8,
                   "matmul destination 'acc' spans PSUM banks 0 to 1 of the tensor; it must lie within one bank "
                   "(256 bytes)"));
  EXPECT_TRUE(check(text + "matmul acc[:, 64:8], a[:, 0:8], b[:, 0:8], start, stop\n").empty());
  // With a register offset the bank is checked on each iteration.
  EXPECT_TRUE(only(text + "reg n\nloop n = 0, 2, 1 {\n  matmul acc[:, n*60:8], a[:, 0:8], b[:, 0:8], start, stop\n}\n",
                   9, 10, "spans PSUM banks 0 to 1 of the tensor; it must lie within one bank (256 bytes) (n = 1)"));
}

TEST(CheckInst, MatmulDtypes) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], i[:, 0:16], start, stop"}), kFirst, 1,
                   "matmul dtypes stationary f32, moving u32, destination f32: need float operands with f32 PSUM or "
                   "integer operands with i32/u32 PSUM"));
  const std::string ints =
      "arch tiny\nsbuf x [8, 8] i32\nsbuf y [8, 8] u16\npsum p [8, 8] f32\npsum q [8, 8] u32\n"
      "memset x, 1\nmemset y, 1\n";
  EXPECT_TRUE(only(ints + "matmul p, x, y, start, stop\n", 8, 1, "destination f32: need float operands"));
  EXPECT_TRUE(check(ints + "matmul q, x, y, start, stop\n").empty());
}

TEST(CheckInst, MatmulStartAtFirstOnlyInsideALoop) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start@first, stop"}), kFirst, 1,
                   "matmul start@first needs an enclosing loop"));
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start, stop@last"}), kFirst, 1,
                   "matmul stop@last needs an enclosing loop"));
}

// --- instructions: compute engines -----------------------------------------------------------------------

TEST(CheckInst, ComputeEnginesCannotAccessDram) {
  EXPECT_TRUE(only(program({"copy a, A"}), kFirst, 9, "ACT cannot access DRAM tensor 'A'; move it with dma"));
  EXPECT_TRUE(only(program({"tt a, a, A, add"}), kFirst, 10, "DVE cannot access DRAM tensor 'A'; move it with dma"));
  EXPECT_TRUE(only("arch tiny\ndram O [8, 4] f32 output\nmemset O, 0.0\n", 3, 8,
                   "POOL cannot access DRAM tensor 'O'; move it with dma"));
}

TEST(CheckInst, ElementwiseShapesEqual) {
  EXPECT_TRUE(only(program({"copy a[:, 0:32], b"}), kFirst, 18,
                   "copy shapes differ: destination 'a' view [8, 32], source 'b' view [8, 64]"));
  EXPECT_TRUE(only(program({"tt a, a, b[0:4, :], add"}), kFirst, 10,
                   "tt shapes differ: destination 'a' view [8, 64], second source 'b' view [4, 64]"));
  EXPECT_TRUE(only(program({"act a[:, 0:8], b[:, 0:4], relu"}), kFirst, 16, "act shapes differ"));
}

TEST(CheckInst, ReduceDestinationIsOneColumn) {
  EXPECT_TRUE(only(program({"reduce a[:, 0:2], b, add"}), kFirst, 8,
                   "reduce destination 'a' view [8, 2] must be [8, 1] (one value per source partition)"));
  EXPECT_EQ(dump(check(program({"reduce a[:, 0:1], b, max"}))), "");
}

TEST(CheckInst, ReduceOps) {
  EXPECT_TRUE(only(program({"reduce a[:, 0:1], b, sub"}), kFirst, 1,
                   "reduce cannot use sub; it reduces with add mul max min and or xor"));
  EXPECT_EQ(dump(check(program({"reduce i[:, 0:1], i, xor"}))), "");
}

TEST(CheckInst, TsScalarTensorIsOneColumn) {
  EXPECT_TRUE(only(program({"ts a, b, a[:, 0:2], add"}), kFirst, 10,
                   "ts scalar 'a' view [8, 2] must be [8, 1] (one value per partition)"));
  EXPECT_EQ(dump(check(program({"ts a, b, a[:, 3:1], add"}))), "");
}

TEST(CheckInst, IntegerOnlyAluOps) {
  EXPECT_TRUE(only(program({"tt a, a, b, and"}), kFirst, 7, "tt and needs integer operands; 'a' is f32"));
  EXPECT_TRUE(only(program({"reduce a[:, 0:1], b, or"}), kFirst, 19, "reduce or needs integer operands; 'b' is f32"));
  EXPECT_TRUE(only(program({"ts i, i, 1.0, shl"}), kFirst, 1, "ts shl needs integer operands; the immediate is a float"));
  EXPECT_EQ(dump(check(program({"ts i, i, 3, shr"}))), "");
}

TEST(CheckInst, FloatOnlyActivations) {
  EXPECT_TRUE(only(program({"act i, i, exp"}), kFirst, 8, "act exp needs a float source; 'i' is u32"));
  EXPECT_EQ(dump(check(program({"act i, a, tanh"}))), "");  // float source, integer destination: converts
}

TEST(CheckInst, TtSourcesOfOneClass) {
  EXPECT_TRUE(only(program({"tt a, a, i, add"}), kFirst, 10,
                   "tt sources must both be float or both integer: 'a' is f32, 'i' is u32"));
}

TEST(CheckInst, FloatImmediateWithIntegerTensor) {
  EXPECT_TRUE(only(program({"ts i, i, 1.5, add"}), kFirst, 1,
                   "ts: a float immediate cannot be used with integer tensor 'i' (u32)"));
  EXPECT_TRUE(only(program({"ts i, a, 1.5, add"}), kFirst, 1, "integer tensor 'i' (u32)"));  // destination
  EXPECT_TRUE(only(program({"memset i, 2.0"}), kFirst, 1,
                   "memset: a float immediate cannot be used with integer tensor 'i' (u32)"));
  EXPECT_EQ(dump(check(program({"memset a, 2"}))), "");  // an integer immediate converts to float
}

TEST(CheckInst, DestinationSecondDimensionMustNotOverlap) {
  EXPECT_TRUE(only(program({"copy a[:, 0:4, 2:8], b[:, 0:32]"}), kFirst, 6,
                   "destination view of 'a' overlaps itself: second-dimension step 2 is less than its count 4"));
  EXPECT_EQ(dump(check(program({"copy a[:, 0:32], b[:, 0:4, 2:8]"}))), "");  // a source may overlap itself
}

// --- instructions: registers and loops -------------------------------------------------------------------

TEST(CheckInst, RegisterViewSpace) {
  EXPECT_TRUE(only(program({"reg_load n, acc[0:1, 0:1]"}), kFirst, 13,
                   "reg_load cannot access PSUM tensor 'acc'; registers move through SBUF or DRAM"));
}

TEST(CheckInst, RegisterViewOnePartition) {
  EXPECT_TRUE(only(program({"reg_load n, a[0:2, 0:1]"}), kFirst, 13, "reg_load view of 'a' must be one partition, not 2"));
}

TEST(CheckInst, RegisterViewContiguous) {
  EXPECT_TRUE(only(program({"reg_load n, a[0:1, 0:1, 4:2]"}), kFirst, 13, "reg_load view of 'a' must be contiguous"));
}

TEST(CheckInst, RegisterViewSize) {
  EXPECT_TRUE(only(program({"reg_load w, a[0:1, 0:1]"}), kFirst, 13,
                   "reg_load view of 'a' covers 4 bytes; register 'w' (64-bit) needs exactly 8"));
  EXPECT_TRUE(only(program({"li n, 1", "reg_store A[0:1, 0:2], n"}), kFirst + 1, 11,
                   "reg_store view of 'A' covers 8 bytes; register 'n' (32-bit) needs exactly 4"));
  EXPECT_EQ(dump(check(program({"reg_load w, a[0:1, 0:2]"}))), "");
}

TEST(CheckInst, LiNeedsAnIntegerImmediate) {
  EXPECT_TRUE(only(program({"li n, 1.5"}), kFirst, 1, "li needs an integer immediate"));
}

TEST(CheckInst, LoopStepPositive) {
  EXPECT_TRUE(only(program({"loop n = 0, 4, 0 {", "}"}), kFirst, 1, "loop step must be > 0, got 0"));
}

TEST(CheckInst, LoopBounds) {
  EXPECT_TRUE(only(program({"loop n = -1, 4, 1 {", "}"}), kFirst, 1, "loop start must be >= 0, got -1"));
  EXPECT_TRUE(only(program({"loop n = 0, 2147483649, 1 {", "}"}), kFirst, 1,
                   "loop end must be <= 2147483648, got 2147483649"));
}

TEST(CheckInst, LoopRegisterNotWrittenInBody) {
  EXPECT_TRUE(only(program({"loop n = 0, 4, 1 {", "  addi n, n, 1", "}"}), kFirst + 1, 3,
                   "register 'n' is written inside the loop it controls (loop at 12:1)"));
  EXPECT_TRUE(only(program({"loop n = 0, 4, 1 {", "  loop w = 0, 1, 1 {", "    loop n = 0, 2, 1 {", "    }", "  }", "}"}),
                   kFirst + 2, 5, "register 'n' is written inside the loop it controls (loop at 12:1)"));
  EXPECT_EQ(dump(check(program({"loop n = 0, 4, 1 {", "}", "loop n = 0, 4, 1 {", "}"}))), "");  // reuse after
}

TEST(CheckInst, ConstantViewInBounds) {  // checked even where the program never runs it
  EXPECT_TRUE(only(program({"loop n = 0, 0, 1 {", "  copy a[:, 0:8], b[:, 60:8]", "}"}), kFirst + 1, 19,
                   "b[0:8, 60:8] is out of bounds of tensor 'b' [8, 64]"));
}

TEST(CheckInst, EmptyView) {
  EXPECT_TRUE(only(program({"memset a[0:0, :], 1.0"}), kFirst, 8,
                   "view of 'a' is empty (partition count, element count and second count must be >= 1)"));
}

TEST(CheckInst, UndeclaredReferences) {  // only programs built through the API can have them
  Program p = parseProgram(program({"copy a, b"}));
  p.body.back().a.tensor = 99;
  p.body.back().a.loc = SourceLoc{kFirst, 9};
  EXPECT_TRUE(only(checkProgram(p), kFirst, 9, "refers to tensor #99, which is not declared"));
  Program q = parseProgram(program({"li n, 1"}));
  q.body.back().rd = 7;
  EXPECT_TRUE(only(checkProgram(q), kFirst, 1, "refers to register #7, which is not declared"));
}

// --- execution: registers --------------------------------------------------------------------------------

TEST(CheckRun, RegisterReadBeforeWritten) {
  EXPECT_TRUE(only(program({"addi n, w, 1"}), kFirst, 1, "register 'w' is read before it is written"));
  EXPECT_TRUE(only(program({"copy a[:, n:1], b[:, 0:1]"}), kFirst, 6, "register 'n' is read before it is written"));
  EXPECT_EQ(dump(check(program({"loop n = 0, 0, 1 {", "}", "copy a[:, n:1], b[:, 0:1]"}))), "");  // loop sets it
}

TEST(CheckRun, LoadedRegisterCannotAddress) {
  EXPECT_TRUE(only(program({"reg_load n, i[0:1, 0:1]", "copy a[n:1, :], b[0:1, :]"}), kFirst + 1, 6,
                   "view of 'a' is addressed by register 'n', whose value was loaded from memory; only a value that "
                   "reg_store put in that exact memory can be reloaded and used in an address"));
  // Values computed from a loaded value are just as unknown.
  EXPECT_TRUE(only(program({"reg_load n, i[0:1, 0:1]", "addi n, n, 1", "copy a[n:1, :], b[0:1, :]"}), kFirst + 2, 6,
                   "whose value was loaded from memory"));
}

TEST(CheckRun, SpilledRegisterReloadKeepsItsValue) {
  // A loop counter spilled to SBUF and DRAM and reloaded may address memory: its value is known.
  EXPECT_EQ(dump(check("arch tiny\n"
                       "dram S [1, 4] u32\n"
                       "sbuf i [8, 64] u32\n"
                       "sbuf a [8, 64] f32\n"
                       "reg n\nreg t\nreg u\nreg v 64\n"
                       "memset i, 0\nmemset a, 0.0\n"
                       "loop n = 0, 8, 1 {\n"
                       "  reg_store i[n:1, 5:1], n !spill\n"
                       "  reg_store S[0:1, 2:1], n !spill\n"
                       "  memset i[:, 0:5], 0\n"
                       "  reg_load v, i[0:1, 6:2]\n"  // another value: loading it is fine, addressing with it is not
                       "  reg_load t, i[n:1, 5:1] !reload\n"
                       "  reg_load u, S[0:1, 2:1] !reload\n"
                       "  copy a[t:1, :], a[u:1, :]\n"
                       "}\n")),
            "");
}

TEST(CheckRun, ReloadAfterOverwriteIsUnknown) {
  EXPECT_TRUE(only(program({"li n, 3", "reg_store i[0:1, 5:1], n", "memset i[:, 4:2], 0", "reg_load n, i[0:1, 5:1]",
                            "copy a[n:1, :], b[0:1, :]"}),
                   kFirst + 4, 6, "is addressed by register 'n', whose value was loaded from memory"));
  // A reload of another size or place is not the stored value either.
  EXPECT_TRUE(only(program({"li n, 3", "reg_store i[0:1, 5:1], n", "reg_load n, i[0:1, 4:1]", "copy a[n:1, :], b[0:1, :]"}),
                   kFirst + 3, 6, "whose value was loaded from memory"));
}

// --- execution: views, reads and writes ------------------------------------------------------------------

TEST(CheckRun, ViewInRangeOnEveryIteration) {
  EXPECT_TRUE(only(program({"loop n = 0, 3, 1 {", "  dma a[:, n*32:32], A[:, n*32:32]", "}"}), kFirst + 1, 22,
                   "A[0:8, 64:32] is out of bounds of tensor 'A' [8, 64] (n = 2)"));
  EXPECT_TRUE(only(program({"li w, 2", "loop n = 0, 2, 1 {", "  copy a[n*-3+1:1, :], b[w:1, :]", "}"}), kFirst + 2, 8,
                   "a[-2:1, 0:64] is out of bounds of tensor 'a' [8, 64] (n = 1)"));
}

TEST(CheckRun, ReadOfNeverWrittenElement) {
  const std::string text =
      "arch tiny\nsbuf a [8, 64] f32\nsbuf b [8, 64] f32\nmemset a[:, 0:10], 0.0\nmemset a[0:3, 10:1], 0.0\n";
  EXPECT_TRUE(only(text + "copy b[:, 0:11], a[:, 0:11]\n", 6, 18, "reads never-written element [3, 10] of 'a'"));
  EXPECT_TRUE(check(text + "copy b[0:3, 0:11], a[0:3, 0:11]\n").empty());
  // Strided views only read what they cover.
  EXPECT_TRUE(check(text + "copy b[:, 0:6], a[:, 0:2, 4:3]\n").empty());
  EXPECT_TRUE(only(text + "copy b[:, 0:6], a[:, 0:2, 5:3]\n", 6, 17, "reads never-written element [0, 11] of 'a'"));
}

TEST(CheckRun, InputsAreWrittenAtStart) {
  EXPECT_EQ(dump(check(program({"dma a[0:1, :], A[7:1, :]"}))), "");
}

TEST(CheckRun, OutputsMustBeFullyWritten) {
  const std::string text = "arch tiny\ndram O [8, 64] f32 output\nsbuf a [8, 64] f32\nmemset a, 0.0\n";
  EXPECT_TRUE(only(text + "dma O[:, 0:32], a[:, 0:32]\ndma O[0:7, 32:32], a[0:7, 32:32]\n", 2, 6,
                   "output tensor 'O' is not fully written: element [7, 32] is never written"));
  EXPECT_TRUE(check(text + "dma O, a\n").empty());
}

// --- execution: accumulation groups ----------------------------------------------------------------------

TEST(CheckRun, StartOnAnOpenGroup) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start",
                            "matmul acc[:, 8:16], a[:, 0:8], b[:, 0:16], start, stop",
                            "matmul acc[:, 0:8], a[:, 0:8], b[:, 0:8], stop"}),
                   kFirst + 1, 8,
                   "matmul start on 'acc' element [0, 8], whose accumulation group is already open (a matmul with "
                   "stop must close it first)"));
}

TEST(CheckRun, AccumulateWithoutAnOpenGroup) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], stop"}), kFirst, 8,
                   "matmul without start accumulates into 'acc' element [0, 0], which is not in an open accumulation "
                   "group (the group's first matmul needs start)"));
  // After stop the group is closed: adding again needs a new start.
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start, stop",
                            "matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], stop"}),
                   kFirst + 1, 8, "matmul without start accumulates into 'acc' element [0, 0]"));
}

TEST(CheckRun, ReadOfAnOpenGroup) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start", "copy b[:, 0:4], acc[:, 12:4]",
                            "matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], stop"}),
                   kFirst + 1, 17,
                   "copy reads 'acc' element [0, 12] while its accumulation group is open (no matmul with stop has "
                   "closed it)"));
}

TEST(CheckRun, NonMatmulWriteToAnOpenGroup) {
  EXPECT_TRUE(only(program({"matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], start", "memset acc[2:1, 15:2], 0.0",
                            "matmul acc[:, 0:16], a[:, 0:8], b[:, 0:16], stop"}),
                   kFirst + 1, 8,
                   "memset writes 'acc' element [2, 15] while its accumulation group is open (only matmul may add to "
                   "it)"));
}

TEST(CheckRun, GroupOpenAtTheEnd) {
  EXPECT_TRUE(only(program({"loop n = 0, 2, 1 {", "  matmul acc[:, n*16:16], a[:, 0:8], b[:, 0:16], start, stop@last",
                            "}"}),
                   kFirst + 1, 3,
                   "accumulation group on 'acc' opened by this matmul is still open at the end of the program "
                   "(element [0, 0]); close it with stop"));
}

TEST(CheckRun, GroupOpenAtTheEndWhoseMatmulWasForgotten) {
  // Only the last few thousand opening matmuls are remembered; older open groups are reported at the tensor.
  EXPECT_TRUE(only("arch gen2\nsbuf a [1, 1] f32\npsum acc [2, 4096] f32\nreg n\nmemset a, 1.0\n"
                   "loop n = 0, 4096, 1 {\n  matmul acc[0:1, n:1], a, a, start\n}\n"
                   "loop n = 0, 4096, 1 {\n  matmul acc[1:1, n:1], a, a, start\n}\n",
                   3, 6,
                   "an accumulation group on 'acc' is still open at the end of the program (element [0, 0]); close "
                   "it with stop"));
}

// --- execution limits ------------------------------------------------------------------------------------

TEST(CheckRun, MaxStepsStopsAtTheLoop) {
  CheckOptions opts;
  opts.max_steps = 100;
  const std::string text = program({"loop n = 0, 30, 1 {", "  loop w = 0, 10, 1 {", "  }", "}"});
  EXPECT_TRUE(only(check(text, opts), kFirst + 1, 3,
                   "program executes more than 100 instructions (loop trip counts too large)"));
  opts.max_steps = 1000;
  EXPECT_TRUE(check(text, opts).empty());
}

TEST(CheckRun, HugeTripCountsStopQuickly) {
  std::vector<Diagnostic> d = check(program({"li w, 0", "loop n = 0, 2147483648, 1 {", "  addi w, w, 1", "}"}));
  ASSERT_GE(d.size(), 1u);
  EXPECT_EQ(d.back().message, "program executes more than 16777216 instructions (loop trip counts too large)");
}

TEST(CheckRun, TooMuchWorkIsAnErrorNotAHang) {
  // Each memset of the whole gen2 SBUF costs about 98560 word operations.
  std::vector<Diagnostic> d =
      check("arch gen2\nsbuf s [128, 49152] f32\nreg n\nloop n = 0, 1000000, 1 {\n  memset s, 0.0\n}\n");
  EXPECT_TRUE(only(d, 5, 3, "program touches too many elements to check (more than 2147483648 word operations"));
}

TEST(CheckRun, TooMuchMemoryToTrackIsAnErrorNotACrash) {
  std::vector<Diagnostic> d = check(
      "arch gen2 sbuf-partitions=1024 sbuf-bytes=16777216\nsbuf s [1024, 8388608] bf16\nmemset s, 0.0\n");
  EXPECT_TRUE(only(d, 3, 1, "program's tensors are too large to check (more than 256 MiB of per-element bits)"));
}

// --- reporting -------------------------------------------------------------------------------------------

TEST(CheckReport, FirstDiagnosticPerInstructionInSourceOrder) {
  std::vector<Diagnostic> d = check(program({
      "loop n = 0, 4, 1 {",
      "  copy a[:, n*20:20], b[:, 0:20]",  // out of range at n = 3 only; reported once
      "}",
      "copy a, A",
  }) + "sbuf late [8, 1] f32 pinned\n");
  ASSERT_EQ(d.size(), 3u) << dump(d);
  EXPECT_EQ(d[0].loc.line, kFirst + 1);
  EXPECT_NE(d[0].message.find("(n = 3)"), std::string::npos);
  EXPECT_EQ(d[1].loc.line, kFirst + 3);
  EXPECT_EQ(d[2].loc.line, kFirst + 4);  // the declaration after the instructions comes last
}

TEST(CheckReport, AtMostTwentyDiagnostics) {
  std::vector<std::string> lines(30, "copy a, A");
  std::vector<Diagnostic> d = check(program(lines));
  ASSERT_EQ(d.size(), 20u);
  for (size_t k = 0; k < d.size(); ++k) EXPECT_EQ(d[k].loc.line, kFirst + k);
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// Found by the CI fuzz smoke run (parse_check): a matmul into a DRAM tensor whose [M, N] result is larger
// than the tensor made the abstract execution index PSUM-only accumulation bits that a DRAM tensor lacks
// (heap overflow). It is one static diagnostic, and the execution only records the write.
TEST(Check, MatmulIntoDramIsOneDiagnosticAndNoOverflow) {
  std::string text =
      "arch tiny\ndram X [32, 16] f32 input\ndram Y [8, 64] f32 input\nsbuf a [8, 8] f32\nsbuf b [8, 64] f32\n"
      "dma a, Y[:, 0:8]\ndma b, Y\nmatmul X, a, b, start, stop\n";
  EXPECT_TRUE(only(text, 8, 8, "matmul destination 'X' must be in PSUM, not dram"));
}

}  // namespace
}  // namespace allocsim
