// The harness itself: a failing property shrinks to a small program, choice by choice, and the shrunk
// counterexample is what lands in the regressions directory.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ir/check.h"
#include "ir/parse.h"
#include "props/rc_program.h"
#include "props/regression_file.h"

namespace allocsim {
namespace {

size_t countOps(const Program& p, Op op) {
  size_t n = 0;
  forEachInstruction(p.body, [&](const Instruction& i) { n += i.op == op; });
  return n;
}

TEST(Shrinking, FailingPropertySavesAMinimalCounterexample) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "allocsim_shrinking_test";
  fs::remove_all(dir);
  ::setenv("ALLOCSIM_REGRESSION_DIR", dir.c_str(), 1);
  // A deliberately false property: "no program contains a matmul".
  const bool passed = rc::check("no matmul", [] {
    const Program p = *genProgramOn(*archPreset("tiny"));
    if (countOps(p, Op::Matmul) > 0) {
      saveRegression("no_matmul", p, "contains a matmul");
      RC_FAIL("contains a matmul");
    }
  });
  ::unsetenv("ALLOCSIM_REGRESSION_DIR");
  EXPECT_FALSE(passed);

  std::ifstream in(dir / "no_matmul.nki.txt");
  ASSERT_TRUE(in) << "no counterexample written";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("# regression (props/no_matmul): contains a matmul\narch tiny\n", 0), 0u) << text;
  const Program p = parseProgram(text);
  EXPECT_TRUE(checkProgram(p).empty()) << text;
  // Shrunk: the one matmul and what it needs (operands written, the result evacuated to an output).
  EXPECT_EQ(countOps(p, Op::Matmul), 1u) << text;
  size_t instructions = 0;
  forEachInstruction(p.body, [&](const Instruction&) { ++instructions; });
  EXPECT_LE(instructions, 8u) << text;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace allocsim
