// `allocsim alloc` and `allocsim demo` end to end, as a user runs them: the selection map's errors and exit codes,
// -o, -v, --json, --verify, arch overrides.
#include <gtest/gtest.h>

#include "tests/common/cli_run.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "ir/parse.h"
#include "tests/common/placed_program_checks.h"

namespace allocsim {
namespace {


std::string tempFile(const std::string& name, const std::string& text = "") {
  std::filesystem::path p = std::filesystem::path(::testing::TempDir()) / ("cli_alloc_" + name);
  if (!text.empty()) std::ofstream(p) << text;
  return p.string();
}


const char kKernel[] = "corpus/kernels/looped_add.nki.txt";

TEST(CliAlloc, PrintsTheAllocatedProgram) {
  CliRun r = allocsim(std::string("alloc ") + kKernel, "2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  Program p = parseProgram(r.out);
  for (const Tensor& t : p.tensors) EXPECT_TRUE(t.space == Space::Dram || t.placement.has_value()) << t.name;
  for (const Register& g : p.registers) EXPECT_TRUE(g.phys.has_value()) << g.name;
  // the same with -O2 spelled four ways
  for (const char* o : {"-O2", "-O 2", "--optlevel 2", "--optlevel=2"})
    EXPECT_EQ(allocsim(std::string("alloc ") + kKernel + " " + o, "2>/dev/null").out, r.out) << o;
}

TEST(CliAlloc, SelectionMapRefusalsExitWithTwoAndQuoteTheAssert) {
  const std::string k = std::string("alloc ") + kKernel;
  CliRun r = allocsim(k + " --allocator greedy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out,
            "allocsim alloc: unknown allocator 'greedy' (expected coloring, no-reuse, fixed, lsa or exact)\n");
  r = allocsim(k + " -O0 --cores 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out,
            "allocsim alloc: 2 cores need a multi-core allocator, but optlevel 0 is single-core only (the driver "
            "asserts vncNcCount==1 || (allocator!=\"lsa\" && optlevel!=0 && optlevel!=8))\n");
  r = allocsim(k + " -O4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "allocsim alloc: optlevel 4 does not exist (the selection map has 0, 1, 2, 3, 6, 7 and 8)\n");
  r = allocsim(k + " -O9");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "allocsim alloc: optlevel 9 is out of range 0..8\n");
  r = allocsim(k + " -O8 --cores 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, "but optlevel 8 is single-core only")) << r.out;
  r = allocsim(k + " -O6 --allocator lsa --cores 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, "but --allocator lsa is single-core only")) << r.out;
  r = allocsim(k + " --loops-in-backend -O1 --cores 4");  // remapped to 8
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out, "but optlevel 8 is single-core only")) << r.out;
  // single core: the linear scan runs and its result passes the oracles
  for (const char* lsa : {" -O8", " -O6 --allocator lsa", " --loops-in-backend -O1"}) {
    r = allocsim(k + lsa + " --verify", "2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 0) << lsa << r.out;
  }
  EXPECT_EQ(allocsim(k + " --loops-in-backend -O2 --cores 2", "2>/dev/null").exit_code, 0);
  EXPECT_EQ(allocsim(k + " --smt-allocation -O0 --cores 2", "2>/dev/null").exit_code, 0);
}

// --allocator names every allocator; the optlevels that pick one are its aliases: the same program either way.
TEST(CliAlloc, AllocatorNamesAndOptlevelAliasesAllocateAlike) {
  const std::string k = std::string("alloc ") + kKernel;
  const char* const pairs[][2] = {{"--allocator no-reuse", "-O0"}, {"--allocator fixed", "-O7"},
                                  {"--allocator lsa", "-O8"},       {"--allocator coloring", "-O2"},
                                  {"--allocator lsa -O6", "-O6 --allocator lsa"}, {"--allocator no-reuse -O0", "-O0"}};
  for (const auto& [name, alias] : pairs) {
    CliRun by_name = allocsim(k + " " + name, "2>/dev/null"), by_alias = allocsim(k + " " + alias, "2>/dev/null");
    EXPECT_EQ(by_name.exit_code, 0) << name;
    EXPECT_EQ(by_name.out, by_alias.out) << name << " against " << alias;
  }
  // A different allocator each way is a usage error that names both.
  const char* const conflicts[][2] = {
      {" --allocator fixed -O2", "--allocator fixed is -O7; -O2 is --allocator coloring"},
      {" --allocator coloring -O8", "--allocator coloring runs at -O1, -O2, -O3 or -O6; -O8 is --allocator lsa"},
      {" --allocator no-reuse -O7", "--allocator no-reuse is -O0; -O7 is --allocator fixed"}};
  for (const auto& [args, message] : conflicts) {
    CliRun r = allocsim(k + args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.out, std::string("allocsim alloc: ") + message + "\n");
  }
}

TEST(CliAlloc, UsageAndBadInputExitWithTwo) {
  EXPECT_EQ(allocsim("alloc").exit_code, 2);
  EXPECT_EQ(allocsim("alloc missing.nki.txt").exit_code, 2);
  EXPECT_EQ(allocsim(std::string("alloc ") + kKernel + " -Ox").exit_code, 2);
  EXPECT_EQ(allocsim(std::string("alloc ") + kKernel + " --cores").exit_code, 2);
  EXPECT_EQ(allocsim(std::string("alloc ") + kKernel + " --arch nope").exit_code, 2);
  CliRun help = allocsim("alloc --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: allocsim alloc PROGRAM [--allocator A] [-O N | --optlevel N]", 0), 0u) << help.out;
  // the gen2 kernel does not fit a machine with 64 partitions: rejected at the tensor, exit 2
  CliRun small = allocsim(std::string("alloc ") + kKernel + " --arch gen1");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_TRUE(contains(small.out, "corpus/kernels/looped_add.nki.txt:")) << small.out;
}

TEST(CliAlloc, AllocationImpossibleExitsWithThreeAndTheAllocatorsDiagnostic) {
  CliRun r = allocsim("alloc corpus/kernels/matmul_blocked_tiny.nki.txt -O0");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out,
            "corpus/kernels/matmul_blocked_tiny.nki.txt:22:6: psum tensor 'acc4' [8, 64] f32 (1 bank) does not fit "
            "in PSUM without reuse: all psum tensors need 6 banks, PSUM has 4\n");
  // an arch override shrinks PSUM below one tensor: the production allocator's capacity guard, which the
  // well-formedness check applies already (bad input, exit 2)
  const std::string two_banks = tempFile("two_banks.nki.txt",
                                         "arch tiny\n"
                                         "dram A [8, 8] f32 input\n"
                                         "dram C [8, 128] f32 output\n"
                                         "sbuf a [8, 8] f32\n"
                                         "sbuf b [8, 64] f32\n"
                                         "psum x [8, 128] f32\n"
                                         "sbuf c [8, 128] f32\n"
                                         "dma a, A\n"
                                         "memset b, 1\n"
                                         "matmul x[:, 0:64], a, b, start, stop\n"
                                         "matmul x[:, 64:64], a, b, start, stop\n"
                                         "copy c, x\n"
                                         "dma C, c\n");
  EXPECT_EQ(allocsim("alloc " + two_banks, "2>/dev/null").exit_code, 0);
  r = allocsim("alloc " + two_banks + " --psum-banks 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, two_banks + ":6:6: x is too big for PSUM, requires 2 banks with PSUM size 1\n");
}

TEST(CliAlloc, OutputFileVerboseReportAndJson) {
  const std::string out = tempFile("out.nki.txt");
  CliRun r = allocsim(std::string("alloc ") + kKernel + " -o " + out + " -v");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("optlevel 2: coloring path\n[psum]\n", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "% PSUM utilization after allocation\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "[reg]\n  REG GCA interation nums = 1\n  REG score = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "% REG utilization after allocation\n")) << r.out;
  EXPECT_EQ(readFile(out), allocsim(std::string("alloc ") + kKernel, "2>/dev/null").out);

  CliRun j = allocsim(std::string("alloc ") + kKernel + " --json", "2>/dev/null");
  ASSERT_EQ(j.exit_code, 0);
  EXPECT_EQ(j.out.rfind("{\"file\": \"corpus/kernels/looped_add.nki.txt\", \"optlevel\": 2, \"path\": \"coloring\",\n "
                        "\"reports\": [\n  {\"allocator\": \"psum\", \"psum.demand_before_spilling_pct\": ",
                        0),
            0u)
      << j.out;
  EXPECT_TRUE(contains(j.out, "\"lines\": [")) << j.out;
  EXPECT_EQ(j.out.back(), '\n');
}

// -v names the copy live-range splitting inserts (alloc/sbuf/sbuf_split.h): in this loop h, a and c interfere pairwise
// although at most two are live at once (h 256 bytes per partition, a and c 128), and a copied right after line 10
// (h is dead from there to line 12) brings the SBUF peak down to the max-live, 384 (tests/alloc/sbuf_split_test.cpp
// derives it and why a's split point is the one kept). Without -v the report has no such line.
TEST(CliAlloc, VerboseReportNamesTheSplitCopy) {
  const std::string in = tempFile("split.nki.txt",
                                  "arch tiny\n"
                                  "dram A [8, 64] u32 input\n"
                                  "dram O [8, 32] u32 output\n"
                                  "sbuf h [8, 64] u32\n"
                                  "sbuf a [8, 32] u32\n"
                                  "sbuf c [8, 32] u32\n"
                                  "reg i\n"
                                  "dma h, A\n"
                                  "loop i = 0, 2, 1 {\n"
                                  "  copy a, h[:, i%2*-32+32:32]\n"
                                  "  copy c, a\n"
                                  "  copy h[:, i*32:32], c\n"
                                  "}\n"
                                  "dma O, h[:, 32:32]\n");
  const std::string line =
      "live-range split: copy 'a_Split1' of 'a' inserted after line 10; the later mentions of 'a' use the copy\n";
  CliRun r = allocsim("alloc " + in + " -v -o " + tempFile("split_out.nki.txt"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "[sbuf]\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "  " + line)) << r.out;
  CliRun quiet = allocsim("alloc " + in + " -o " + tempFile("split_out2.nki.txt"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.out;
  EXPECT_FALSE(contains(quiet.out, "live-range split")) << quiet.out;
}

TEST(CliAlloc, VerifyRunsTheThreeOracles) {
  CliRun r = allocsim(std::string("alloc ") + kKernel + " -O0 --verify --poison-seed 5", "2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out,
            "corpus/kernels/looped_add.nki.txt: ok: equivalence, symbolic and placement checks pass (input seed 1, "
            "poison seed 5; reference: the original, matched instruction for instruction)\n");
  CliRun j = allocsim(std::string("alloc ") + kKernel + " --json --verify --poison-seed 5", "2>/dev/null");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_TRUE(contains(j.out, ",\n \"verify\": {\"file\": \"corpus/kernels/looped_add.nki.txt\", \"ok\": true,"))
      << j.out;
}

TEST(CliAlloc, OptlevelSevenKeepsAPinnedAssignmentOrRefusesItWithTheProductionText) {
  CliRun o2 = allocsim("alloc corpus/kernels/matmul_tiled.nki.txt -O2", "2>/dev/null");
  ASSERT_EQ(o2.exit_code, 0);
  const std::string placed = tempFile("placed.nki.txt", o2.out);
  CliRun o7 = allocsim("alloc " + placed + " -O7", "2>/dev/null");
  EXPECT_EQ(o7.exit_code, 0);
  EXPECT_EQ(o7.out, o2.out);
  EXPECT_EQ(allocsim("alloc " + placed + " --smt-allocation", "2>/dev/null").out, o2.out);

  // Both tiles moved to byte 0: the matmul reads them together.
  std::string clash = o2.out;
  for (const std::string decl : {"sbuf rhs_tile [128, 512] bf16 @", "sbuf lhsT_tile [128, 128] bf16 @"}) {
    const size_t at = clash.find(decl);
    ASSERT_NE(at, std::string::npos) << clash;
    clash.replace(at, clash.find('\n', at) - at, decl + "p0+0");
  }
  const std::string bad = tempFile("clash.nki.txt", clash);
  CliRun r = allocsim("alloc " + bad + " -O7");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(contains(r.out, bad + ":6:6: smt allocation fails in-place write checker: sbuf tensor 'rhs_tile' "
                                    "[128, 512] bf16 @p0+0 (partitions [0, 128), bytes [0, 1024)) overlaps sbuf tensor "
                                    "'lhsT_tile' [128, 128] bf16 @p0+0"))
      << r.out;
}

TEST(CliDemo, RunsTheBundledKernelEndToEnd) {
  CliRun r = allocsim("demo --poison-seed 9");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("allocsim demo: corpus/kernels/matmul_tiled.nki.txt (bundled in the binary)\n", 0), 0u) << r.out;
  EXPECT_TRUE(contains(r.out, "ok: equivalence, symbolic and placement checks pass (input seed 1, poison seed 9; reference: the original"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "   same bits\n")) << r.out;
  // the reference hash is the one `allocsim interp` prints for the corpus file
  CliRun interp = allocsim("interp corpus/kernels/matmul_tiled.nki.txt");
  size_t at = interp.out.find("hash=");
  ASSERT_NE(at, std::string::npos) << interp.out;
  EXPECT_TRUE(contains(r.out, "output result " + interp.out.substr(at, 23))) << r.out;
  EXPECT_EQ(allocsim("demo --bogus").exit_code, 2);
}

}  // namespace
}  // namespace allocsim


namespace allocsim {
namespace {

// --json lists every placement: each placement the allocated program's text shows (parsed here from the
// declarations, independently of the JSON writer) appears in the JSON with the same numbers, and each inserted
// instruction of the text appears among "inserted".
TEST(CliAlloc, JsonListsEveryPlacementAndInsertedInstruction) {
  const std::string kernel = "corpus/kernels/matmul_tiled_tiny.nki.txt";  // spills at O2 on tiny
  const std::string out = tempFile("json_placements.nki.txt");
  CliRun j = allocsim("alloc " + kernel + " -O2 --json -o " + out, "2>/dev/null");
  ASSERT_EQ(j.exit_code, 0) << j.out;
  std::string text = readFile(out);
  std::istringstream lines(text);
  std::string line;
  size_t placed = 0, inserted = 0;
  std::regex sbuf(R"(^sbuf (\S+) .* @p(\d+)\+(\d+))"), psum(R"(^psum (\S+) .* @bank(\d+))");
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, sbuf)) {
      ++placed;
      EXPECT_TRUE(std::regex_search(j.out, std::regex("\\{\"name\": \"" + m[1].str() + "\", \"space\": \"sbuf\"[^}]*"
                                                      "\"partition\": " + m[2].str() + ", \"offset\": " + m[3].str())))
          << line;
    } else if (std::regex_search(line, m, psum)) {
      ++placed;
      EXPECT_TRUE(std::regex_search(j.out, std::regex("\\{\"name\": \"" + m[1].str() +
                                                      "\", \"space\": \"psum\"[^}]*\"bank\": " + m[2].str())))
          << line;
    } else if (line.rfind("  ", 0) == 0 || line.find(" !") != std::string::npos) {
      std::string body = line.substr(line.find_first_not_of(' '));
      if (body.find(" !spill") == std::string::npos && body.find(" !reload") == std::string::npos) continue;
      if (body.rfind("dram ", 0) == 0 || body.rfind("sbuf ", 0) == 0 || body.rfind("psum ", 0) == 0) continue;
      ++inserted;
      EXPECT_TRUE(contains(j.out, "\"text\": \"" + body + "\"")) << body;
    }
  }
  EXPECT_GT(placed, 3u);
  EXPECT_GT(inserted, 0u) << "the tiny kernel is chosen because it spills";
}

}  // namespace
}  // namespace allocsim

namespace allocsim {
namespace {

// Every verbosity ends on the same final score (the one --json holds): -v -v adds the per-round, per-heuristic
// scores before it, it does not replace it.
TEST(CliAlloc, VerbosityLevelsAgreeOnTheFinalScores) {
  const std::string kernel = "alloc corpus/kernels/matmul_blocked_tiny.nki.txt";  // PSUM spills: several rounds
  auto lastLine = [](const std::string& out, const std::string& prefix) {
    size_t at = out.rfind("\n  " + prefix);
    if (at == std::string::npos) return std::string();
    return out.substr(at + 3, out.find('\n', at + 1) - at - 3);
  };
  CliRun v1 = allocsim(kernel + " -v", "2>&1 >/dev/null");
  CliRun v2 = allocsim(kernel + " -v -v", "2>&1 >/dev/null");
  CliRun j = allocsim(kernel + " --json", "2>/dev/null");
  ASSERT_EQ(v1.exit_code, 0) << v1.out;
  ASSERT_EQ(v2.exit_code, 0);
  for (const char* memory : {"PSUM score = ", "SB score = "}) {
    std::string a = lastLine(v1.out, memory), b = lastLine(v2.out, memory);
    EXPECT_FALSE(a.empty()) << memory;
    EXPECT_EQ(a, b) << memory;
  }
  EXPECT_TRUE(contains(v2.out, "spill round 2\n")) << "matmul_blocked_tiny spills PSUM, so it runs two rounds";
  // The JSON field is the same number the line prints.
  std::string psum = lastLine(v1.out, "PSUM score = ");
  std::string value = psum.substr(13, psum.find(' ', 13) - 13);
  EXPECT_TRUE(contains(j.out, "\"psum.score\": " + value)) << value << "\n" << j.out.substr(0, 400);
}

}  // namespace
}  // namespace allocsim
