// The equivalence oracle's reference run on the allocated program's own original instructions (InterpOptions::
// source_only on verify/reference_storage.h) against the run of the recovered program's copy (verify/reference.h,
// the independent way it was made before): the same outputs, steps and operand reads, instruction by instruction, on
// hand-written allocations and on the allocators' outputs; a reference tensor held by several allocated tensors
// lives until the last of them is released; a program whose inserted items do not have their sources' shapes runs
// the reference on the copy, with the same verdicts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "tests/common/files.h"
#include "tests/common/hazard_programs.h"
#include "verify/equivalence.h"
#include "verify/reference.h"
#include "verify/reference_storage.h"

namespace allocsim {
namespace {

// a is spilled, b reuses its bytes, a is reloaded onto b's bytes once b is dead; n is a REG spill's stand-in.
const std::string kSpillReload = std::string(kSpillReloadDecls) + R"(reg n @r0
reg n_Reload @r1 !reload(n)

li n, 3
dma a, A
dma a_spill, a !spill
dma b, B
mov n_Reload, n !reload
ts c, b, n_Reload, add
dma a_Reload1, a_spill !reload
tt c, a_Reload1, c, add
dma C, c
)";

class KeepReads : public OperandReadSink {
 public:
  void onRead(const OperandRead& r) override { reads.push_back(r); }
  std::vector<OperandRead> reads;
};

// The reference run both ways; "" when they agree, otherwise what differs.
std::string compareReferenceRuns(const Program& allocated, uint64_t input_seed) {
  const ReferenceProgram copy = referenceProgram(allocated);
  const ReferenceProgram maps = referenceProgram(allocated, ReferenceBody::None);
  if (!runsOnAllocatedInstructions(allocated, maps)) return "does not run on the allocated instructions";
  InterpOptions o;
  o.input_seed = input_seed;
  o.release_dead = true;
  const InterpResult want = interpret(copy.program, o);
  KeepReads sink;
  InterpOptions on_allocated = o;
  on_allocated.source_only = true;
  on_allocated.read_sink = &sink;
  ReferenceStorage storage(allocated, maps);
  const InterpResult got = interpret(allocated, storage, on_allocated);
  if (got.steps != want.steps) return "steps " + std::to_string(got.steps) + " vs " + std::to_string(want.steps);
  if (got.reads.size() != want.reads.size() || sink.reads.size() != want.reads.size())
    return "reads " + std::to_string(got.reads.size()) + " vs " + std::to_string(want.reads.size());
  for (size_t i = 0; i < want.reads.size(); ++i) {
    if (!(got.reads[i] == sink.reads[i])) return "the sink's read " + std::to_string(i) + " is not the recorded one";
    if (maps.instruction.at(got.reads[i].inst_id) != want.reads[i].inst_id || got.reads[i].hash != want.reads[i].hash)
      return "read " + std::to_string(i) + " differs";
  }
  size_t outputs = 0;
  for (TensorId t = 0; t < allocated.tensors.size(); ++t) {
    if (!allocated.tensors[t].output) continue;
    ++outputs;
    if (got.outputs.at(t) != want.outputs.at(copy.tensor.at(t))) return "output " + allocated.tensors[t].name + " differs";
  }
  return outputs > 0 ? "" : "no outputs";
}

TEST(ReferenceRun, OnTheAllocatedInstructionsItIsTheRecoveredProgramsRun) {
  EXPECT_EQ(compareReferenceRuns(parseProgram(kSpillReload), 1), "");
  size_t files = 0;
  for (const char* dir : {"/corpus/allocated", "/corpus/broken"}) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + dir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() < 8 || name.substr(name.size() - 8) != ".nki.txt" || name.find("original") != std::string::npos)
        continue;
      ++files;
      EXPECT_EQ(compareReferenceRuns(parseProgram(readFile(entry.path())), 7), "") << name;
    }
  }
  EXPECT_GE(files, 20u);
}

TEST(ReferenceRun, OnTheAllocatorsOutputsWithSpillsItIsTheRecoveredProgramsRun) {
  size_t allocated = 0, with_inserted = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels")) {
    const std::string name = entry.path().filename().string();
    if (name.find("_tiny.nki.txt") == std::string::npos) continue;  // tiny: the allocators spill
    const Program p = parseProgram(readFile(entry.path()));
    for (int optlevel : {1, 8}) {
      DriverOptions o;
      o.optlevel = optlevel;
      Program out;
      try {
        out = allocate(p, o).program;
      } catch (const AllocError&) {
        continue;
      }
      ++allocated;
      bool inserted = false;
      for (const Tensor& t : out.tensors) inserted |= t.origin != Origin::Source;
      with_inserted += inserted;
      EXPECT_EQ(compareReferenceRuns(out, 5), "") << name << " -O" << optlevel;
    }
  }
  EXPECT_GE(allocated, 8u);
  EXPECT_GE(with_inserted, 2u);  // spills and reloads, read as the tensors they hold
}

TEST(ReferenceStorage, AReferenceTensorLivesUntilEveryTensorHoldingItIsReleased) {
  const Program p = parseProgram(kSpillReload);
  const ReferenceProgram ref = referenceProgram(p, ReferenceBody::None);
  ReferenceStorage s(p, ref);
  const TensorId a = p.findTensor("a"), reload = p.findTensor("a_Reload1"), spill = p.findTensor("a_spill");
  s.row(a, 2)[0] = 42;
  EXPECT_EQ(s.row(reload, 2)[0], 42);  // the same reference tensor
  s.release(a);
  s.release(a);  // twice: still held by the reload and the spill slot
  s.release(reload);
  EXPECT_EQ(s.row(spill, 2)[0], 42);
  s.release(spill);
  EXPECT_EQ(s.row(reload, 2)[0], 0);  // every holder released: fresh storage
  s.writeReg(p.findRegister("n"), 7);
  EXPECT_EQ(s.readReg(p.findRegister("n_Reload")), 7u);
}

TEST(ReferenceRun, InsertedItemsOfAnotherShapeRunTheReferenceOnACopy) {
  // The spill slot is larger than the tensor it holds: the run on the allocated instructions would size it by a.
  const std::string wider = [] {
    std::string t = kSpillReload;
    t.replace(t.find("dram a_spill [8, 64]"), 20, "dram a_spill [8, 128]");
    t.replace(t.find("dma a_spill, a"), 14, "dma a_spill[:, 0:64], a");
    t.replace(t.find("a_Reload1, a_spill"), 18, "a_Reload1, a_spill[:, 0:64]");
    return t;
  }();
  const Program p = parseProgram(wider);
  EXPECT_FALSE(runsOnAllocatedInstructions(p, referenceProgram(p, ReferenceBody::None)));
  EXPECT_TRUE(runsOnAllocatedInstructions(parseProgram(kSpillReload), referenceProgram(parseProgram(kSpillReload))));
  EXPECT_TRUE(checkEquivalence(p, {.poison_seed = 3}).empty());
  // The same bug found either way: the reload lands on c's bytes.
  auto broken = [](std::string t) { return t.replace(t.find("a_Reload1 [8, 64] u32 @p0+0"), 27, "a_Reload1 [8, 64] u32 @p0+512"); };
  const std::vector<Finding> on_copy = checkEquivalence(parseProgram(broken(wider)), {.poison_seed = 3});
  const std::vector<Finding> on_allocated = checkEquivalence(parseProgram(broken(kSpillReload)), {.poison_seed = 3});
  ASSERT_EQ(on_copy.size(), 1u);
  ASSERT_EQ(on_allocated.size(), 1u);
  EXPECT_EQ(on_copy[0].kind, on_allocated[0].kind);
  EXPECT_EQ(on_copy[0].message, on_allocated[0].message);
  EXPECT_EQ(on_copy[0].loc.line, on_allocated[0].loc.line);
}

}  // namespace
}  // namespace allocsim
