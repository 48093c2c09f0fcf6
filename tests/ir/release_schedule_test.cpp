// ir/release_schedule.h and InterpOptions::release_dead: a tensor is released after the last top-level statement
// naming it (never an output), an input of its own is loaded at its first; a run that releases gives the same
// operand hashes, outputs and steps as one that keeps everything.
#include "ir/release_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/interp.h"
#include "ir/parse.h"

namespace allocsim {
namespace {

std::vector<TensorId> listOf(std::span<const TensorId> s) { return {s.begin(), s.end()}; }

TEST(ReleaseSchedule, LastTopLevelMentionNeverOutputsLoopsAsAWhole) {
  Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 16] f32 input\n"
      "dram O [8, 16] f32 output\n"
      "sbuf a [8, 16] f32\n"
      "sbuf b [8, 16] f32\n"
      "reg n\n"
      "dma a, A\n"                     // 0
      "loop n = 0, 2, 1 {\n"           // 1
      "  copy b, a\n"
      "}\n"
      "dma O, b\n");                   // 2
  const TensorId A = p.findTensor("A"), O = p.findTensor("O"), a = p.findTensor("a"), b = p.findTensor("b");
  ReleaseSchedule s(p);
  EXPECT_EQ(listOf(s.after(0)), std::vector<TensorId>{A});
  EXPECT_EQ(listOf(s.after(1)), std::vector<TensorId>{a});  // read inside the loop: released after the whole loop
  EXPECT_EQ(listOf(s.after(2)), std::vector<TensorId>{b});
  EXPECT_FALSE(s.releases(O));
  EXPECT_EQ(listOf(s.before(0)), std::vector<TensorId>{A});
  EXPECT_TRUE(s.loadsLate(A));
  EXPECT_FALSE(s.loadsLate(a));
}

// Counts releases, and that no tensor is touched after its release.
class ReleaseWatch : public ExecObserver {
 public:
  void onExecute(const Instruction&, uint64_t, const ExecAccess& access) override {
    for (const auto* list : {&access.reads, &access.writes})
      for (const ResolvedView& v : *list) touched_after_release += released.count(v.tensor);
  }
  void onRelease(TensorId t) override { released.insert(t); }
  std::set<TensorId> released;
  int touched_after_release = 0;
};

TEST(ReleaseSchedule, ReleasingRunsAgreeWithKeepingRuns) {
  int released = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GenOptions o;
    o.arch = *archPreset("tiny");
    o.size = 20;
    SeededChoices c(seed);
    const Program p = generateProgram(c, o);
    InterpOptions keep;
    const InterpResult want = interpret(p, keep);
    InterpOptions drop;
    drop.release_dead = true;
    ReleaseWatch watch;
    drop.observer = &watch;
    const InterpResult got = interpret(p, drop);
    EXPECT_EQ(got.reads, want.reads) << "seed " << seed;
    EXPECT_EQ(got.outputs, want.outputs) << "seed " << seed;
    EXPECT_EQ(got.steps, want.steps) << "seed " << seed;
    EXPECT_EQ(watch.touched_after_release, 0) << "seed " << seed;
    released += int(watch.released.size());
  }
  EXPECT_GT(released, 40);  // the programs do release tensors: the comparison is not vacuous
}

// Records what an output sink receives and the step count when it does.
class OutputLog : public OutputSink, public ExecObserver {
 public:
  void onExecute(const Instruction& inst, uint64_t, const ExecAccess&) override { steps += inst.op != Op::Loop; }
  void onOutput(TensorId t, std::vector<uint8_t>&& bytes) override {
    at_step[t] = steps;
    outputs[t] = std::move(bytes);
  }
  uint64_t steps = 0;
  std::map<TensorId, uint64_t> at_step;
  std::map<TensorId, std::vector<uint8_t>> outputs;
};

TEST(ReleaseSchedule, AnOutputSinkGetsAnOutputOfItsOwnWhenItIsFinalAndAPlacedOneAtTheEnd) {
  const Program p = parseProgram(
      "arch tiny\n"
      "dram A [8, 16] u32 input\n"
      "dram O [8, 16] u32 output\n"        // its own storage: final after statement 1
      "dram P [8, 16] u32 output @4096\n"  // placed: bytes other tensors may share, judged at the end
      "sbuf a [8, 16] u32 @p0+0\n"
      "dma a, A\n"
      "dma O, a\n"
      "dma P, a\n"
      "memset a, 3\n"
      "memset a, 4\n");
  const TensorId O = p.findTensor("O"), P = p.findTensor("P");
  const InterpResult want = interpret(p, InterpOptions{});
  InterpOptions o;
  o.release_dead = true;
  OutputLog log;
  o.observer = &log;
  o.output_sink = &log;
  const InterpResult got = interpret(p, o);
  EXPECT_EQ(log.at_step.size(), 2u);
  EXPECT_EQ(log.at_step[O], 2u);  // right after `dma O, a`
  EXPECT_EQ(log.at_step[P], 5u);  // after the last statement
  EXPECT_EQ(log.outputs[O], want.outputs[O]);
  EXPECT_EQ(log.outputs[P], want.outputs[P]);
  EXPECT_FALSE(log.outputs[O].empty());
  EXPECT_TRUE(got.outputs[O].empty());  // given to the sink, not kept
  EXPECT_EQ(got.steps, want.steps);
}

}  // namespace
}  // namespace allocsim
