// verify/implements_input.h: an allocated program must be its input plus marked insertions, on the same machine.
#include <gtest/gtest.h>

#include "alloc/greedy_placer.h"
#include "verify/implements_input.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {
namespace {

const char* kInput = R"(arch tiny
dram X [8, 64] f32 input
dram Z [8, 64] f32 output
sbuf x [8, 64] f32
sbuf y [8, 64] f32
dma x, X
tt y, x, x, add
dma Z, y
)";

Program allocated() { return placeGreedy(parseProgram(kInput)); }

TEST(HarnessImplementsInput, AnAllocationOfTheInputImplementsIt) {
  EXPECT_EQ(inputMismatch(parseProgram(kInput), allocated()), std::nullopt);
}

TEST(HarnessImplementsInput, DeclarationsMayBeReordered) {
  std::string text = printProgram(allocated());
  const size_t x = text.find("sbuf x"), x_end = text.find('\n', x) + 1;
  const std::string line = text.substr(x, x_end - x);
  text.erase(x, line.size());
  text.insert(text.find('\n', text.find("sbuf y")) + 1, line);
  ASSERT_LT(text.find("sbuf y"), text.find("sbuf x"));
  EXPECT_EQ(inputMismatch(parseProgram(kInput), parseProgram(text)), std::nullopt);
}

TEST(HarnessImplementsInput, AChangedOperationIsNamed) {
  std::string text = printProgram(allocated());
  text.replace(text.find("add"), 3, "sub");
  auto m = inputMismatch(parseProgram(kInput), parseProgram(text));
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("instruction 2 is `tt y, x, x, sub`; the input has `tt y, x, x, add`"), std::string::npos) << *m;
}

TEST(HarnessImplementsInput, AMissingOrUnmarkedInstructionIsAMismatch) {
  std::string text = printProgram(allocated());
  std::string dropped = text;
  dropped.erase(dropped.find("dma Z, y"), 8);
  auto m = inputMismatch(parseProgram(kInput), parseProgram(dropped));
  ASSERT_TRUE(m.has_value());
  EXPECT_NE(m->find("missing"), std::string::npos) << *m;
  std::string added = text + "copy y, x\n";
  auto a = inputMismatch(parseProgram(kInput), parseProgram(added));
  ASSERT_TRUE(a.has_value());
  EXPECT_NE(a->find("not in the input"), std::string::npos) << *a;
}

TEST(HarnessImplementsInput, AnotherMachineOrAnEmptyProgramIsAMismatch) {
  Program other = allocated();
  other.arch.sbuf_bytes *= 2;
  EXPECT_TRUE(inputMismatch(parseProgram(kInput), other).has_value());
  Program empty = allocated();
  empty.body.clear();
  EXPECT_TRUE(inputMismatch(parseProgram(kInput), empty).has_value());
}

}  // namespace
}  // namespace allocsim
