// The canonical printer and the round trip parseProgram(printProgram(p)) == p (docs/format.md).
#include "ir/print.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "gen/choices.h"
#include "ir/parse.h"
#include "tests/common/files.h"

namespace allocsim {
namespace {

// Every statement form, flag, placement, origin and index shape the format has.
const char* const kEveryForm = R"(arch tiny sbuf-partition-quantum=8 psum-banks=2
dram A [8, 64] f32 input
dram O [8, 64] bf16 output pinned @4096 !spill
sbuf a [8, 64] f32 pinned @p0+0
sbuf b [8, 64] f32 @p4+260 !reload
sbuf s [8, 1] f32
sbuf w [8, 8] f32 !coalesced
psum acc [8, 8] f32 @bank1 !partial
dram slot [8, 64] u32 !copy
reg n
reg k 64 @r2
reg t @r0 !spill

dma a, A
copy b[0:4, 8:16], a[4:4, 0:16]
act b, a, sigmoid
act b, a, identity !copy
tt b, a, b, xor
ts b, a, 2.5, mul
ts b, a, -3, shl
ts b, a, n, add
ts b, a, s, max
ts b, a[:, 0:1], s[n:1, :], min
reduce s, a, add
memset b, -0.0
memset b, inf
memset b, nan
li n, -9223372036854775808
li k, 1e-300
addi n, n, 7
add t, n, k
mov t, n
reg_load n, a[0:1, 5:1]
reg_store a[n*2+1:1, n*-2-1:1], t !spill
matmul acc, a[:, 0:8], w
matmul acc, a[:, 0:8], w, start
matmul acc, a[:, 0:8], w, stop
matmul acc, a[:, 0:8], w, start@first, stop@last
loop n = 0, 64, 8 {
  dma b[:, n:8, 16:2], A[:, n*512+3:8]
  loop k = -4, 4, 1 !coalesced {
    dma b[:, k*-1:1], a[:, 7:1] !reload
  }
  loop t = 0, 1, 1 {
  }
}
dma O, b
)";

// The round trip on the program `text` parses to: print, parse back, compare; printing is a fixpoint.
void expectRoundTrip(const std::string& text, const std::string& what) {
  Program p = parseProgram(text);
  std::string printed = printProgram(p);
  Program back;
  try {
    back = parseProgram(printed);
  } catch (const InputError& e) {
    FAIL() << what << ": the printed program does not parse: " << e.format("printed") << printed;
  }
  EXPECT_TRUE(back == p) << what << ":\n" << printed;
  EXPECT_EQ(printProgram(back), printed) << what;
}

TEST(Print, EveryFormIsAlreadyCanonical) {
  EXPECT_EQ(printProgram(parseProgram(kEveryForm)), kEveryForm);
  expectRoundTrip(kEveryForm, "every form");
}

TEST(Print, CanonicalizesLayoutSpellingAndRedundantParts) {
  const char* messy =
      "# a comment\r\n"
      "arch   tiny psum-banks=4   # same as the preset\n"
      "reg n 32\n"
      "sbuf  x\t[8,16]  u32  @p0+0x10\n"
      "\n"
      "loop n=0,2,1{\n"
      "    dma x[ 0 : 8 , 0:16 ], x[:, 3+n*1 : 1, 0:1]   # a comment\n"
      "memset x[:, 2*n - 0 + 1:1], 0x10\n"
      "  }\n";
  EXPECT_EQ(printProgram(parseProgram(messy)),
            "arch tiny\n"
            "sbuf x [8, 16] u32 @p0+16\n"
            "reg n\n"
            "\n"
            "loop n = 0, 2, 1 {\n"
            "  dma x, x[:, n+3:1]\n"
            "  memset x[:, n*2+1:1], 16\n"
            "}\n");
}

TEST(Print, EmptyProgramIsTheArchLine) {
  EXPECT_EQ(printProgram(parseProgram("")), "arch gen2\n");
  EXPECT_EQ(printProgram(parseProgram("arch gen1 sp-registers=8\nsbuf a [1, 1] u16\n")),
            "arch gen1 sp-registers=8\nsbuf a [1, 1] u16\n");
}

TEST(Print, AccessPatterns) {
  Program p = parseProgram("sbuf a [8, 64] f32\ndram B [128, 1024] u32\nreg n\n");
  auto ap = [&](const std::string& text) {
    Program q = parseProgram("sbuf a [8, 64] f32\ndram B [128, 1024] u32\nreg n\nreg_load n, " + text + "\n");
    return printAccessPattern(q, q.body[0].a);
  };
  EXPECT_EQ(ap("a"), "a");
  EXPECT_EQ(ap("a[0:8, 0:64]"), "a");
  EXPECT_EQ(ap("B[:, n*512 : 512]"), "B[:, n*512:512]");
  EXPECT_EQ(ap("a[n:1, :]"), "a[n:1, :]");
  EXPECT_EQ(ap("a[0:4, 0:64]"), "a[0:4, :]");
  EXPECT_EQ(ap("a[:, 512*n+3:1]"), "a[:, n*512+3:1]");
  EXPECT_EQ(ap("a[:, -1-n*2:1]"), "a[:, n*-2-1:1]");
  EXPECT_EQ(ap("a[:, 7:1]"), "a[:, 7:1]");
  EXPECT_EQ(ap("a[:, :, 0:1]"), "a");
  EXPECT_EQ(ap("a[:, :, 5:1]"), "a[:, :, 5:1]");
  EXPECT_EQ(ap("a[0:4, 0:16, 32:2]"), "a[0:4, 0:16, 32:2]");
  EXPECT_EQ(ap("a[:, n*0:1]"), "a[:, n*0:1]");
  EXPECT_EQ(printAccessPattern(p, wholeTensor(p, 1)), "B");
}

TEST(Print, MultiRegisterIndexesAndTileViews) {
  const std::string decls = "arch tiny\nsbuf q [4] [8, 16] f32\nsbuf a [8, 64] f32\nreg i\nreg j\n";
  auto ap = [&](const std::string& text) {
    Program q = parseProgram(decls + "reg_load i, " + text + "\n");
    return printAccessPattern(q, q.body[0].a);
  };
  EXPECT_EQ(ap("a[:, j*2+i*16+1:1]"), "a[:, i*16+j*2+1:1]");  // terms in register declaration order
  EXPECT_EQ(ap("a[j-i:1, :]"), "a[i*-1+j:1, :]");
  EXPECT_EQ(ap("q{i}[0:1, 0:1]"), "q{i}[0:1, 0:1]");
  EXPECT_EQ(ap("q{i+j*2}[0:1, 3:1]"), "q{i+j*2}[0:1, 3:1]");
  EXPECT_EQ(ap("q{i}[0:1, i*0+j:1]"), "q{i}[0:1, j:1]");  // i*0 cancels against nothing left: dropped
  EXPECT_EQ(ap("q{1}[0:1, 15:1]"), "q{1}[0:1, 15:1]");
  // The row offset is the tile's start plus the offset inside it.
  Program q = parseProgram(decls + "reg_load i, q{i+2}[0:1, j+3:1]\n");
  Index row = Index::affine(0, 16, 35);
  row.terms.push_back({1, 1});
  EXPECT_EQ(q.body[0].a.offset, row);
  EXPECT_EQ(q.tensors[0].elements, 64u);
  EXPECT_EQ(q.tensors[0].tiles, 4u);
  expectRoundTrip(decls + "\nloop i = 0, 4, 1 {\n  memset q{i}, 0.0\n  copy a[:, i*16:16], q{i}\n}\n", "tiles");
}

TEST(Print, Immediates) {
  auto f = [](double v) { return printImmediate(Immediate{true, 0, v}); };
  auto i = [](int64_t v) { return printImmediate(Immediate{false, v, 0}); };
  EXPECT_EQ(i(1), "1");
  EXPECT_EQ(i(-7), "-7");
  EXPECT_EQ(i(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(f(1.0), "1.0");
  EXPECT_EQ(f(-0.0), "-0.0");
  EXPECT_EQ(f(0.1), "0.1");
  EXPECT_EQ(f(1.5e-7), "1.5e-07");
  EXPECT_EQ(f(1e20), "1e+20");
  EXPECT_EQ(f(123456789.0), "123456789.0");
  EXPECT_EQ(f(5e-324), "5e-324");
  EXPECT_EQ(f(std::numeric_limits<double>::max()), "1.7976931348623157e+308");
  EXPECT_EQ(f(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(f(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(f(std::numeric_limits<double>::quiet_NaN()), "nan");
  // Shortest text that reads back to the same bits, for awkward values too.
  for (double v : {0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0 * 1e-310, double(1.1f), 3.4028234663852886e+38}) {
    Program p = parseProgram("reg r\nli r, " + f(v) + "\n");
    EXPECT_EQ(p.body[0].imm, (Immediate{true, 0, v})) << f(v);
  }
}

TEST(Print, Instructions) {
  Program p = parseProgram(kEveryForm);
  EXPECT_EQ(printInstruction(p, p.body[1]), "copy b[0:4, 8:16], a[4:4, 0:16]");
  const Instruction& loop = p.body.back().op == Op::Loop ? p.body.back() : p.body[p.body.size() - 2];
  EXPECT_EQ(printInstruction(p, loop), "loop n = 0, 64, 8 {");
  EXPECT_EQ(printInstruction(p, loop.body[1]), "loop k = -4, 4, 1 !coalesced {");
  EXPECT_EQ(printInstruction(p, loop.body[1].body[0]), "dma b[:, k*-1:1], a[:, 7:1] !reload");
}

// A program built through the API (not the parser) round-trips too.
TEST(Print, ApiBuiltProgramRoundTrips) {
  Program p;
  p.arch = *archPreset("gen1");
  p.arch.sbuf_bytes = 8192;
  p.arch.dram_limit = uint64_t(1) << 20;
  Tensor t;
  t.name = "t.0_SpillTensorCopy1";
  t.space = Space::Psum;
  t.partitions = 64;
  t.elements = 512;
  t.origin = Origin::Spill;
  t.placement = Placement{0, 0, 3};
  p.tensors.push_back(t);
  Register r;
  r.name = "_r";
  r.width = 64;
  r.phys = 7;
  p.registers.push_back(r);
  const AccessPattern all = wholeTensor(p, 0);
  Instruction memset;
  memset.op = Op::Memset;
  memset.dst = all;
  memset.imm = Immediate{true, 0, -1.25};
  memset.origin = Origin::Partial;
  Instruction loop;
  loop.op = Op::Loop;
  loop.rd = 0;
  loop.lo = -3;
  loop.hi = std::numeric_limits<int64_t>::max();
  loop.step = 5;
  loop.body.push_back(memset);
  p.body.push_back(loop);
  p.renumber();
  std::string text = printProgram(p);
  EXPECT_EQ(text,
            "arch gen1 sbuf-bytes=8192 dram-limit=1048576\n"
            "psum t.0_SpillTensorCopy1 [64, 512] u32 @bank3 !spill\n"
            "reg _r 64 @r7\n"
            "\n"
            "loop _r = -3, 9223372036854775807, 5 {\n"
            "  memset t.0_SpillTensorCopy1, -1.25 !partial\n"
            "}\n");
  EXPECT_TRUE(parseProgram(text) == p);
}

// Every kernel in the corpus: print -> parse gives the same program, and printing is a fixpoint.
TEST(Print, CorpusKernelsRoundTrip) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(ALLOCSIM_SOURCE_DIR) / "corpus" / "kernels";
  ASSERT_TRUE(fs::is_directory(dir)) << dir;
  for (const fs::path& path : programFiles(dir)) {
    std::string name = path.filename().string();
    std::string text = readFile(path);
    try {
      expectRoundTrip(text, name);
    } catch (const InputError& e) {
      ADD_FAILURE() << e.format(path.string());
    }
  }
}

// Random edits of valid programs: the parser either rejects them cleanly or accepts a program that
// round-trips. Edits are drawn from the format's own alphabet so that many of them still parse.
TEST(Print, MutatedProgramsRoundTripWhenAccepted) {
  const std::string alphabet = "0123456789 ,:[]*+-@!{}=#\n.xenabkrpiuf_";
  const std::vector<std::string> words = {"n",  "k",     "a",     "b",    "@p1+4", "@bank1", "!spill", "start",
                                          "64", "-1",    "0x1f",  "1e5",  "inf",   "nan",    "loop",   "}",
                                          "{",  "reg q", "sbuf z [8, 64] f32\n", "n*3+", ", 4:2", "stop@last"};
  SeededChoices rng(12345);
  size_t accepted = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = kEveryForm;
    for (uint64_t edits = rng.range(1, 2); edits > 0; --edits) {
      size_t pos = rng.below(text.size() + 1);
      switch (rng.below(4)) {
        case 0: text.insert(pos, 1, alphabet[rng.below(alphabet.size())]); break;
        case 1: if (pos < text.size()) text.erase(pos, rng.range(1, 4)); break;
        case 2: if (pos < text.size()) text[pos] = char(rng.below(256)); break;
        default: text.insert(pos, rng.pick(words)); break;
      }
    }
    Program p;
    try {
      p = parseProgram(text);
    } catch (const InputError& e) {
      ASSERT_FALSE(e.diagnostics().empty());
      ASSERT_TRUE(e.diagnostics()[0].loc.known()) << e.what();
      continue;
    }
    ++accepted;
    std::string printed = printProgram(p);
    Program back;
    try {
      back = parseProgram(printed);
    } catch (const InputError& e) {
      FAIL() << "printed program does not parse: " << e.format("printed") << "from:\n" << text;
    }
    ASSERT_TRUE(back == p) << "from:\n" << text << "\nprinted:\n" << printed;
    ASSERT_EQ(printProgram(back), printed);
  }
  EXPECT_GT(accepted, 400u);  // the test exercises accepted programs, not only errors
}

}  // namespace
}  // namespace allocsim
