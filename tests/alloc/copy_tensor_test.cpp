#include "alloc/copy_tensor.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace allocsim {
namespace {

Program namedProgram(const std::vector<std::string>& tensors, const std::vector<std::string>& registers) {
  Program p;
  for (const std::string& n : tensors) {
    Tensor t;
    t.name = n;
    p.tensors.push_back(t);
  }
  for (const std::string& n : registers) {
    Register r;
    r.name = n;
    p.registers.push_back(r);
  }
  return p;
}

TEST(TakenNames, KnowsExactlyTheProgramsNames) {
  const Program p = namedProgram({"x", "x_Spill1", "acc"}, {"i", "x_Reload2"});
  const TakenNames taken(p);
  for (const char* n : {"x", "x_Spill1", "acc", "i", "x_Reload2"}) EXPECT_TRUE(taken.contains(n)) << n;
  for (const char* n : {"", "y", "x_Spill2", "X", "x_Spill1 ", "acc2"}) EXPECT_FALSE(taken.contains(n)) << n;
}

TEST(TakenNames, CopiesGetTheFirstFreeNumberAndNeverRepeatAName) {
  // The program already holds x_Spill3 and a register x_Spill4: numbers 3 and 4 are skipped, as a scan would.
  Program p = namedProgram({"x", "x_Spill3"}, {"x_Spill4"});
  TakenNames taken(p);
  uint32_t next_id = 2;
  Tensor copy = spillSlotOf(p.tensors[0], 0, Space::Dram);
  EXPECT_EQ(p.tensors[addCopyTensor(p, copy, "_Spill", next_id, taken)].name, "x_Spill2");
  EXPECT_EQ(p.tensors[addCopyTensor(p, copy, "_Spill", next_id, taken)].name, "x_Spill5");
  EXPECT_EQ(next_id, 6u);
  // Many more copies than the table's first size (it grows): every name stays unique and known.
  for (int k = 0; k < 300; ++k) addCopyTensor(p, copy, "_Spill", next_id, taken);
  std::set<std::string> names;
  for (const Tensor& t : p.tensors) {
    EXPECT_TRUE(names.insert(t.name).second) << t.name;
    EXPECT_TRUE(taken.contains(t.name)) << t.name;
  }
  EXPECT_FALSE(taken.contains("x_Spill" + std::to_string(next_id)));
}

}  // namespace
}  // namespace allocsim
