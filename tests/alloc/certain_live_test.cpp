// Tensors live together for certain (alloc/exact/certain_live.h), derived by hand from the rules of the verifier's
// dynamic liveness, and the exact search's refusals built on them: a bound over tensors that are live at one
// position only in different iterations of its loop proves nothing, and a placement that shares their memory
// passes the oracles.
#include "alloc/exact/certain_live.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/parse.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "tools/placement_check.h"

namespace allocsim {
namespace {

// b is written before a loop of two iterations (line 13) and last read in it (14); a is written only in the
// second iteration (16), after b's last read, and read after the loop (21); d is written and read in each
// iteration (18, 19); v is loaded before the loop (12) and read after it (22). PSUM has two banks.
const char* const kIterations =
    "arch tiny psum-banks=2\n"  // 1
    "dram X [8, 64] f32 input\n"
    "dram O [8, 64] f32 output\n"
    "sbuf v [8, 64] f32\n"
    "sbuf s [8, 64] f32\n"
    "sbuf u [8, 64] f32\n"
    "psum a [8, 64] f32\n"
    "psum b [8, 64] f32\n"
    "psum d [8, 64] f32\n"
    "reg i\n"                    // 10
    "memset b, 1\n"              // 11
    "dma v, X\n"                 // 12
    "loop i = 0, 2, 1 {\n"       // 13
    "  copy s, b\n"              // 14
    "  if i == 1 {\n"            // 15
    "    memset a, 2\n"          // 16
    "  }\n"                      // 17
    "  memset d, 3\n"            // 18
    "  copy u, d\n"              // 19
    "}\n"                        // 20
    "tt s, s, a, add\n"          // 21
    "tt s, s, v, add\n"          // 22
    "tt s, s, u, add\n"          // 23
    "dma O, s\n";                // 24

// The on-chip tensors certainly live at the step of the instruction on `line` (empty: not such a step).
std::vector<std::string> certainAt(const Program& p, uint32_t line) {
  const LinearOrder order = linearize(p);
  const auto spans = certainLiveSpans(p, order);
  std::vector<std::string> names;
  for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
    const LinearPosition& at = order.positions[pos];
    if (!at.inst || at.inst->loc.line != line || at.kind == LinearPosition::Kind::LoopEnd) continue;
    if (!certainStep(order, pos)) return {};
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (p.tensors[t].space != Space::Dram && std::any_of(spans[t].begin(), spans[t].end(), [&](auto s) { return s.first <= pos && pos <= s.second; }))
        names.push_back(p.tensors[t].name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

using Names = std::vector<std::string>;

TEST(CertainLive, TensorsLiveAtTheFirstIterationsStepOfAnInstruction) {
  const Program p = parseProgram(kIterations);
  EXPECT_EQ(certainAt(p, 11), Names({"b"}));
  EXPECT_EQ(certainAt(p, 12), Names({"b", "v"}));
  // In the loop: b is read again in the next iteration, v after the loop with no write between. s and u are
  // rewritten by the next iteration before the reads after the loop: live in the last iteration only. a is written
  // in the second iteration only.
  EXPECT_EQ(certainAt(p, 14), Names({"b", "s", "v"}));
  EXPECT_EQ(certainAt(p, 15), Names({"b", "v"}));
  EXPECT_EQ(certainAt(p, 16), Names());  // may not run on the first iteration: no such step
  EXPECT_EQ(certainAt(p, 18), Names({"b", "d", "v"}));
  EXPECT_EQ(certainAt(p, 19), Names({"b", "d", "u", "v"}));
  // After the loop: read by this instruction or a later one, nothing written between.
  EXPECT_EQ(certainAt(p, 21), Names({"a", "s", "u", "v"}));
  EXPECT_EQ(certainAt(p, 22), Names({"s", "u", "v"}));
  EXPECT_EQ(certainAt(p, 23), Names({"s", "u"}));
  EXPECT_EQ(certainAt(p, 24), Names({"s"}));
}

TEST(CertainLive, ABoundOverTensorsLiveInDifferentIterationsIsNoProof) {
  // At line 18 the live ranges hold a, b and d: 3 banks on a 2-bank PSUM. But a and b are never live at one step
  // (b dies at line 14 of the second iteration, a is born at line 16 of it): at most two banks are live for certain.
  const Program p = parseProgram(kIterations);
  DriverOptions o;
  o.allocator = "exact";
  // Without the placement oracle to judge a placement over the tensors live together for certain, no proof and
  // no placement.
  const std::string msg = messageThrown<AllocError>([&] { allocate(p, o); }, "a refusal");
  EXPECT_EQ(msg.rfind("exact: no placement of 3 live PSUM tensors fits in 2 banks over the live ranges (their lower "
                      "bound is 3 banks, but one position stands for every iteration of its loops; the tensors live "
                      "together for certain at one step need 2 banks)", 0), 0u) << msg;
  EXPECT_NE(msg.find("not proved impossible"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("(proved by"), std::string::npos) << msg;
  // With it, the exact search places the program: its placement passes the oracles.
  o.exact_check = placementOracleCheck();
  const DriverResult r = allocate(p, o);
  expectCorrectAllocation(p, r.program, "the exact search's placement", 5);
  // A placement exists: a and b share bank 0, d has bank 1 (SBUF tensors apart, the loop register on r0).
  Program placed = p;
  auto put = [&](const char* name, uint32_t bank, uint64_t offset) {
    Placement pl;
    pl.bank = bank;
    pl.offset = offset;
    placed.tensors[placed.findTensor(name)].placement = pl;
  };
  put("a", 0, 0);
  put("b", 0, 0);
  put("d", 1, 0);
  put("v", 0, 0);
  put("s", 0, 256);
  put("u", 0, 512);
  placed.registers[placed.findRegister("i")].phys = 0;
  expectCorrectAllocation(p, placed, "a and b on one bank", 3);
}

}  // namespace
}  // namespace allocsim
