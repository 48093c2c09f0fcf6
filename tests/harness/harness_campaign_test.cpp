// harness/campaign.h with in-process allocators whose behaviour is known: a correct one (the no-reuse placer) must
// pass every case, and each kind of broken one must be caught, classified, re-run and shrunk.
#include <gtest/gtest.h>

#include <atomic>

#include "alloc/alloc_error.h"
#include "alloc/greedy_placer.h"
#include "harness/campaign.h"
#include "harness/simulated_run.h"
#include "ir/check.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/hazard_programs.h"

namespace allocsim {
namespace {

// The greedy placer of alloc/ (a correct allocator that reuses storage), refusing what it cannot fit.
class Greedy : public Allocator {
 public:
  Program allocate(const Program& p) override {
    try {
      return placeGreedy(p);
    } catch (const AllocError& e) {
      throw AllocatorRefusal(e.what());
    }
  }
};

// Every SBUF tensor at partition 0, byte 0: wrong as soon as two of them are live together.
class AllAtZero : public Greedy {
 public:
  Program allocate(const Program& p) override {
    Program out = Greedy::allocate(p);
    for (Tensor& t : out.tensors)
      if (t.space == Space::Sbuf) t.placement = Placement{};
    return out;
  }
};

// Computes something else: the first top-level tt / ts with `add` becomes `sub` (still well-formed).
class ChangesAnOperation : public Greedy {
 public:
  Program allocate(const Program& p) override {
    Program out = Greedy::allocate(p);
    for (Instruction& i : out.body)
      if ((i.op == Op::TT || i.op == Op::TS) && i.alu == AluOp::Add) {
        i.alu = AluOp::Sub;
        break;
      }
    return out;
  }
};

class Throws : public Allocator {
 public:
  Program allocate(const Program&) override { throw std::logic_error("unreachable state"); }
};

class Refuses : public Allocator {
 public:
  Program allocate(const Program&) override { throw AllocatorRefusal("no"); }
};

// Correct on every other call: the same input gives different results.
class Flaky : public Greedy {
 public:
  Program allocate(const Program& p) override {
    if (calls_++ % 2 == 0) return Greedy::allocate(p);
    return AllAtZero().allocate(p);
  }

 private:
  std::atomic<uint64_t> calls_{0};
};

CampaignOptions smallCampaign(uint64_t runs) {
  CampaignOptions o;
  o.runs = runs;
  o.gen.arch = *archPreset("tiny");
  o.seed = 100;
  o.shrink_opts.max_seconds = 20;
  return o;
}

TEST(HarnessCampaign, ACorrectAllocatorPassesEveryCaseItDoesNotRefuse) {
  Greedy a;
  InProcessSubject s(a, "greedy");
  CampaignOptions o = smallCampaign(60);
  o.jobs = 2;
  CampaignResult r = runCampaign(s, o);
  EXPECT_EQ(r.totals.cases, 60u);
  EXPECT_EQ(r.totals.failed, 0u);
  EXPECT_EQ(r.totals.passed + r.totals.refused, 60u);
  // Some cases must be allocated, not refused (the greedy placer does not spill, so it refuses many).
  EXPECT_GT(r.totals.passed, 0u);
}

TEST(HarnessCampaign, AnOverlapIsFoundReRunAndShrunkToAFailingWellFormedProgram) {
  AllAtZero a;
  InProcessSubject s(a, "all-at-zero");
  CampaignResult r = runCampaign(s, smallCampaign(40));
  ASSERT_GT(r.totals.failed, 0u);
  ASSERT_TRUE(r.first_failure_seconds.has_value());
  const FailureRecord& f = r.failures.front();
  EXPECT_TRUE(f.first_of_kind);
  EXPECT_FALSE(f.flaky);
  EXPECT_EQ(f.reruns.size(), 2u);
  ASSERT_TRUE(f.shrunk);
  EXPECT_TRUE(checkProgram(f.minimal).empty());
  EXPECT_TRUE(f.minimal_outcome.showsKind(f.outcome.kind)) << f.outcome.kind;
  EXPECT_LE(f.instructions_after, f.instructions_before);
  // Independently: the shrunk program still fails when run again.
  EXPECT_TRUE(s.run(f.minimal, f.input.seeds).showsKind(f.outcome.kind));
  // Two tensors written and both read after: at most a handful of instructions.
  EXPECT_LE(f.instructions_after, 6u) << f.outcome.kind << "\n" << printProgram(f.minimal);
}

TEST(HarnessCampaign, AProgramThatIsNotTheInputIsAFailure) {
  ChangesAnOperation a;
  InProcessSubject s(a, "changes-an-operation");
  CampaignResult r = runCampaign(s, smallCampaign(40));
  ASSERT_GT(r.totals.failed, 0u);
  EXPECT_EQ(r.failures.front().outcome.kind, FailureKind::ofDefect(Defect::NotTheInput));
}

TEST(HarnessCampaign, ExceptionsFailAndRefusalsAreOnlyCounted) {
  Throws t;
  InProcessSubject st(t, "throws");
  CampaignOptions o = smallCampaign(5);
  o.shrink = false;
  CampaignResult r = runCampaign(st, o);
  EXPECT_EQ(r.totals.failed, 5u);
  EXPECT_EQ(r.failures.front().outcome.kind, FailureKind::of(FailureKind::Class::Exception));
  Refuses n;
  InProcessSubject sn(n, "refuses");
  CampaignResult q = runCampaign(sn, o);
  EXPECT_EQ(q.totals.refused, 5u);
  EXPECT_EQ(q.totals.failed, 0u);
}

// A refusal is counted as placeable when a placement without spills exists: one input that obviously fits the tiny
// machine and one that obviously cannot (two tensors of 3,000 bytes per partition live together in 4,096).
TEST(HarnessCampaign, RefusalsOfInputsThatFitAreCounted) {
  CaseInput fits, too_big;
  fits.source = "fits";
  fits.program = parseProgram(
      "arch tiny\ndram x [8, 16] f32 input\nsbuf a [8, 16] f32\ndram y [8, 16] f32 output\ndma a, x\ndma y, a\n");
  too_big.source = "too big";
  too_big.program = parseProgram(
      "arch tiny\ndram x [8, 750] f32 input\nsbuf a [8, 750] f32\nsbuf b [8, 750] f32\n"
      "dram y [8, 750] f32 output\ndma a, x\ncopy b, a\ntt b, b, a, add\ndma y, b\n");
  Refuses n;
  InProcessSubject sn(n, "refuses");
  CampaignOptions o = smallCampaign(1);
  o.corpus = {fits, too_big};
  CampaignResult r = runCampaign(sn, o);
  EXPECT_EQ(r.totals.refused, 3u);
  bool generated_fits = true;
  try {
    Greedy().allocate(generatedCase(o, 0).program);
  } catch (const AllocatorRefusal&) {
    generated_fits = false;
  }
  EXPECT_EQ(r.refused_placeable, 1u + generated_fits);
}

TEST(HarnessCampaign, AFlakyAllocatorIsReportedAndNotShrunk) {
  Flaky a;
  InProcessSubject s(a, "flaky");
  CampaignOptions o = smallCampaign(30);
  CampaignResult r = runCampaign(s, o);
  ASSERT_GT(r.totals.failed, 0u);
  const FailureRecord& f = r.failures.front();
  EXPECT_TRUE(f.flaky);
  EXPECT_FALSE(f.shrunk);
  EXPECT_GE(r.flaky, 1u);
}

TEST(HarnessCampaign, CasesAreReproducibleFromTheirSeed) {
  CampaignOptions o = smallCampaign(1);
  EXPECT_EQ(generatedCase(o, 7).program, generatedCase(o, 7).program);
  EXPECT_NE(generatedCase(o, 7).program, generatedCase(o, 8).program);
  EXPECT_EQ(generatedCase(o, 7).seed, 107u);
}


TEST(HarnessCampaign, EveryPassingOutputRunsOnTheSimulatorUnlessTurnedOff) {
  Greedy a;
  InProcessSubject s(a, "greedy");
  CampaignResult on = runCampaign(s, smallCampaign(20));
  ASSERT_GT(on.totals.passed, 0u);
  EXPECT_EQ(on.simulated, on.totals.passed);
  EXPECT_GE(on.simulated_cycles, on.simulated);  // every program moves data: at least a cycle each
  CampaignOptions off = smallCampaign(20);
  off.simulate = false;
  CampaignResult r = runCampaign(s, off);
  EXPECT_EQ(r.totals.passed, on.totals.passed);
  EXPECT_EQ(r.simulated, 0u);
}

// kWarProgram: a simulator that drops the WAR class computes something else, and the check must say so.
TEST(HarnessSimulatedRun, AgreementPassesAndADisagreementIsAFinding) {
  const Program p = parseProgram(kWarProgram);
  CaseOutcome agrees;
  checkSimulatedRun(p, CheckSeeds{}, agrees);
  EXPECT_EQ(agrees.status, CaseStatus::Pass);
  EXPECT_TRUE(agrees.simulated);
  EXPECT_GT(agrees.cycles, 0u);

  sim::SimOptions broken;
  broken.poison_seed = 1;
  broken.drop = sim::DropDependency::WAR;
  broken.timing = sim::TimingTable::forPreset(p.arch.name);
  broken.timing->apply(kHazardTiming);  // the race the program is worked out with, whatever the shipped DMA model
  CaseOutcome disagrees;
  checkSimulatedRun(p, broken, disagrees);
  EXPECT_EQ(disagrees.status, CaseStatus::Fail);
  EXPECT_EQ(disagrees.kind, FailureKind::of(FailureKind::Class::SimulatorDisagrees));
  EXPECT_NE(disagrees.message.find("[simulator]"), std::string::npos) << disagrees.message;
  EXPECT_FALSE(disagrees.simulated);
}

// The dropped WAR dependence shows only when x's load and the memset end before the act reads x, which is a matter
// of the DMA model: one under which both loads take about as long (here engines so fast that a transfer costs its
// fixed latency alone) lets the act read x first, and the drop goes unseen. kHazardTiming, applied on top of any such table, restores the
// race the program is worked out with.
TEST(HarnessSimulatedRun, TheDisagreementDoesNotDependOnTheShippedDmaModel) {
  const Program p = parseProgram(kWarProgram);
  sim::SimOptions broken;
  broken.poison_seed = 1;
  broken.drop = sim::DropDependency::WAR;
  broken.timing = sim::TimingTable::forPreset(p.arch.name);
  broken.timing->apply("dma.engine-bytes-per-ns 1000000\n");
  CaseOutcome unseen;
  checkSimulatedRun(p, broken, unseen);
  EXPECT_EQ(unseen.status, CaseStatus::Pass) << "the table no longer hides the race: pick one that does";

  broken.timing->apply(kHazardTiming);
  CaseOutcome disagrees;
  checkSimulatedRun(p, broken, disagrees);
  EXPECT_EQ(disagrees.status, CaseStatus::Fail);
  EXPECT_EQ(disagrees.kind, FailureKind::of(FailureKind::Class::SimulatorDisagrees));
}

}  // namespace
}  // namespace allocsim
