// Every class of bad input gets "file:line:col: message" on stderr and exit code 2 through the command line,
// whichever verb reads the program.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/cli_run.h"

namespace allocsim {
namespace {

struct BadInput {
  const char* what;
  const char* text;
  const char* error;  // the first line of stderr after "<file>:"
};

const BadInput kBadInputs[] = {
    {"syntax", "arch tiny\nsbuf a [8, 4] f32\ncopy a b\n", "3:8: expected ',' after the destination"},
    {"unknown name", "arch tiny\nsbuf a [8, 4] f32\ncopy a, b\n", "3:9: unknown tensor 'b'"},
    {"unknown arch", "arch gen9\n", "1:6: unknown arch preset 'gen9' (expected gen2, gen1, gen3 or tiny)"},
    {"shape mismatch", "arch tiny\nsbuf a [8, 4] f32\nsbuf b [8, 8] f32\nmemset b, 1.0\ncopy a, b\n",
     "5:9: copy shapes differ: destination 'a' view [8, 4], source 'b' view [8, 8]"},
    {"type mismatch", "arch tiny\nsbuf a [8, 4] u32\nsbuf b [8, 4] f32\nmemset b, 1.0\ntt a, b, b, xor\n",
     "5:7: tt xor needs integer operands; 'b' is f32"},
    {"out-of-range slice", "arch tiny\nsbuf a [8, 4] f32\nmemset a[0:9, :], 1.0\n",
     "3:8: a[0:9, 0:4] is out of bounds of tensor 'a' [8, 4]"},
    {"out-of-range slice in a later iteration",
     "arch tiny\nsbuf a [8, 4] f32\nreg n\nloop n = 0, 4, 1 {\n  memset a[:, n*2:1], 1.0\n}\n",
     "5:10: a[0:8, 4:1] is out of bounds of tensor 'a' [8, 4] (n = 2)"},
    {"register used before definition", "arch tiny\nsbuf a [8, 4] f32\nreg n\nmemset a[:, n:1], 1.0\n",
     "4:8: register 'n' is read before it is written"},
    {"read of never-written memory", "arch tiny\nsbuf a [8, 4] f32\nsbuf b [8, 4] f32\ncopy a, b\n",
     "4:9: reads never-written element [0, 0] of 'b'"},
    {"matmul shape rule", "arch tiny\ndram A [8, 4] f32 input\nsbuf s [8, 4] f32\npsum p [8, 4] f32\ndma s, A\nmatmul p, s, s\n",
     "6:8: matmul destination 'p' view [8, 4] must be [M, N] = [4, 4] (stationary columns, moving columns)"},
    {"engine illegal for its memory", "arch tiny\ndram A [8, 4] f32 input\ncopy A, A\n",
     "3:6: ACT cannot access DRAM tensor 'A'; move it with dma"},
    {"loop bounds", "arch tiny\nsbuf a [8, 4] f32\nreg n\nloop n = 0, 4, 0 {\n  memset a, 1.0\n}\n",
     "4:1: loop step must be > 0, got 0"},
    {"tensor too big for PSUM", "arch tiny\npsum p [8, 512] f32\n",
     "2:6: p is too big for PSUM, requires 8 banks with PSUM size 4"},
    {"tensor too big for SBUF", "arch tiny\nsbuf a [8, 2000] f32\n",
     "2:6: sbuf tensor 'a' needs 8000 bytes per partition; SBUF has 4096"},
    {"impossible shape", "arch tiny\nsbuf a [9, 4] f32\n", "2:6: sbuf tensor 'a' has 9 partitions; the machine has 8"},
    {"placement outside the machine", "arch tiny\nsbuf a [8, 4] f32 @p6+0\nmemset a, 1.0\n",
     "2:6: placement @p6+0 of 'a' [8, 4] (16 bytes per partition) exceeds SBUF (8 partitions, 4096 bytes)"},
    {"output never written", "arch tiny\ndram C [8, 4] f32 output\n",
     "2:6: output tensor 'C' is not fully written: element [0, 0] is never written"},
};

class CliBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliBadInput, ReportsTheLocationAndExitsWithTwo) {
  const BadInput& b = GetParam();
  // One file per case: ctest runs the cases in parallel processes.
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / ("cli_bad_input_" + name + ".nki.txt");
  std::ofstream(file) << b.text;
  for (const char* verb : {"fmt", "interp", "alloc", "verify"}) {
    CliRun r = allocsim(std::string(verb) + " " + file.string(), "2>&1 >/dev/null");
    EXPECT_EQ(r.exit_code, 2) << verb << ": " << r.out;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), file.string() + ":" + b.error) << verb;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryClass, CliBadInput, ::testing::ValuesIn(kBadInputs),
                         [](const ::testing::TestParamInfo<BadInput>& info) {
                           std::string name;
                           for (const char* c = info.param.what; *c; ++c)
                             name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                           return name;
                         });

TEST(CliBadInput, UsageErrorsExitWithTwo) {
  EXPECT_EQ(allocsim("frob").exit_code, 2);
  EXPECT_EQ(allocsim("interp /nonexistent/file.nki.txt").exit_code, 2);
  EXPECT_EQ(allocsim("gen").exit_code, 2);  // --seed is required
  EXPECT_EQ(allocsim("gen --seed 1 --arch gen9").exit_code, 2);
  EXPECT_EQ(allocsim("gen --seed 1 --psum-banks 0").exit_code, 2);
  // A --size the given --dram-limit cannot hold even with shared DRAM tensors is said, not silently shrunk (64 KiB
  // holds less than tiny's shared inputs); tiny's own 16 MiB, given, holds 5,000 statements once loads and stores
  // share tensors (the program then names no other limit).
  CliRun big = allocsim("gen --seed 2 --size 5000 --dram-limit 65536");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.out.find("--dram-limit"), std::string::npos) << big.out;
  CliRun shared = allocsim("gen --seed 2 --size 5000 --dram-limit 16777216", "2>&1 | head -1");
  EXPECT_EQ(shared.out, "arch tiny\n");
  EXPECT_EQ(allocsim("gen --seed 2 --size 5000 --dram-limit 1073741824", "> /dev/null 2>&1").exit_code, 0);
  // Without --dram-limit the DRAM follows the size: the program names a limit above the preset's 16 MiB.
  CliRun follows = allocsim("gen --seed 2 --size 5000", "2>&1");
  EXPECT_EQ(follows.exit_code, 0) << follows.out.substr(0, 300);
  EXPECT_EQ(follows.out.rfind("arch tiny dram-limit=", 0), 0u) << follows.out.substr(0, 100);
  EXPECT_GT(std::stoull(follows.out.substr(std::string("arch tiny dram-limit=").size())), 16777216u);
}

TEST(CliBadInput, StandardInputIsNamedInMessages) {
  std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "cli_bad_stdin.nki.txt";
  std::ofstream(file) << "arch tiny\ncopy a, b\n";
  CliRun r = allocsim("fmt -", "< " + file.string() + " 2>&1 >/dev/null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "<stdin>:2:6: unknown tensor 'a'");
}

}  // namespace
}  // namespace allocsim
