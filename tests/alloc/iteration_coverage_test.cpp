// Iteration coverage (alloc/iteration_coverage.h) against the reference interpreter: where the walk answers, its
// answer must be what a run observes. The run's observer keeps, per loop and per tensor, the elements the current
// iteration of that loop has written; an executed instruction of the loop's body that reads an element of the tensor
// not yet written in that iteration (reads before writes, a matmul without start reading its accumulator: exactly
// the views ExecAccess lists) makes the pair carried. Covered must then mean no such read in any iteration of the
// run, and Carried at least one. Undecidable answers are counted, not compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/iteration_coverage.h"
#include "alloc/linear_order.h"
#include "gen/choices.h"
#include "gen/generate.h"
#include "ir/arch.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {
namespace {

// What a run says about every (loop, tensor) pair: whether some iteration of the loop read an element of the tensor
// that the iteration had not written before.
class CarriedObserver : public ExecObserver {
 public:
  CarriedObserver(const Program& p, const LinearOrder& order) : p_(p), loops_(order.loops.size()) {
    for (size_t l = 0; l < order.loops.size(); ++l) {
      loop_of_id_[order.loops[l].inst->id] = l;
      enclosing(order.loops[l].inst->body, l);
    }
    for (Loop& l : loops_) {
      for (const Tensor& t : p.tensors) l.written.emplace_back(size_t(t.partitions) * t.elements, false);
      l.carried.assign(p.tensors.size(), false);
    }
  }
  bool carried(size_t loop, TensorId t) const { return loops_[loop].carried[t]; }

  void onExecute(const Instruction& inst, uint64_t, const ExecAccess& access) override {
    if (inst.op == Op::Loop) {  // a new iteration of this loop: nothing written yet
      Loop& l = loops_[loop_of_id_.at(inst.id)];
      for (std::vector<bool>& w : l.written) std::fill(w.begin(), w.end(), false);
    }
    auto it = in_.find(inst.id);
    if (it == in_.end()) return;
    for (size_t loop : it->second) {
      Loop& l = loops_[loop];
      for (const ResolvedView& v : access.reads)
        forEach(v, [&](size_t e) {
          if (!l.written[v.tensor][e]) l.carried[v.tensor] = true;
        });
      for (const ResolvedView& v : access.writes) forEach(v, [&](size_t e) { l.written[v.tensor][e] = true; });
    }
  }

 private:
  struct Loop {
    std::vector<std::vector<bool>> written;  // by tensor, partition-major
    std::vector<bool> carried;
  };
  void enclosing(const std::vector<Instruction>& body, size_t loop) {
    for (const Instruction& inst : body) {
      in_[inst.id].push_back(loop);  // inner loops' iterations too: they write their register only
      if (inst.op == Op::Loop) enclosing(inst.body, loop);
    }
  }
  template <typename F>
  void forEach(const ResolvedView& v, F&& f) const {
    if (v.tensor >= p_.tensors.size()) return;
    const uint64_t elements = p_.tensors[v.tensor].elements;
    for (uint32_t q = 0; q < v.partitions; ++q)
      for (uint32_t j = 0; j < v.count2; ++j)
        for (uint32_t i = 0; i < v.count; ++i) f(size_t((v.partition + q) * elements + v.offset + uint64_t(j) * v.step2 + i));
  }

  const Program& p_;
  std::vector<Loop> loops_;
  std::map<uint32_t, size_t> loop_of_id_;
  std::map<uint32_t, std::vector<size_t>> in_;  // instruction id -> the loops whose body holds it
};

struct Tally {
  size_t covered = 0, carried = 0, undecidable = 0;
};

// Compares every (loop, tensor) answer on `p` with the run; returns the first disagreement, or "".
std::string compare(Program p, Tally& tally) {
  p.renumber();
  const LinearOrder order = linearize(p);
  CarriedObserver run(p, order);
  InterpOptions io;
  io.observer = &run;
  io.record_reads = false;
  interpret(p, io);
  for (size_t l = 0; l < order.loops.size(); ++l)
    for (TensorId t = 0; t < p.tensors.size(); ++t) {
      const IterationCoverage c = iterationCoverage(p, order, t, int32_t(l));
      if (c == IterationCoverage::Undecidable) {
        ++tally.undecidable;
        continue;
      }
      const bool carried = c == IterationCoverage::Carried;
      ++(carried ? tally.carried : tally.covered);
      if (carried != run.carried(l, t))
        return "loop " + std::to_string(l) + " (line " + std::to_string(order.loops[l].inst->loc.line) + "), tensor " +
               p.tensors[t].name + ": the walk says " + (carried ? "carried" : "covered") + ", the run " +
               (run.carried(l, t) ? "carried" : "covered") + "\n" + printProgram(p);
    }
  return "";
}

TEST(IterationCoverage, AgreesWithTheInterpreterOnGeneratedPrograms) {
  Tally tally;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    SeededChoices c(seed);
    const Program p = generateProgram(c, GenOptions{*archPreset("tiny"), uint32_t(4 + seed % 24), uint32_t(50 + seed % 200)});
    const std::string why = compare(p, tally);
    ASSERT_EQ(why, "") << "seed " << seed;
  }
  // The comparison means something only if both answers occur often.
  EXPECT_GT(tally.covered, 1000u);
  EXPECT_GT(tally.carried, 200u);
  std::printf("covered %zu, carried %zu, undecidable %zu\n", tally.covered, tally.carried, tally.undecidable);
}

// The same on the driver's output, where the REG colorer has spilled registers (tiny has 4 SP registers) and the
// walk follows them through their slots, in the tested body and in the bodies around it.
TEST(IterationCoverage, AgreesWithTheInterpreterOnAllocatedPrograms) {
  Tally tally;
  size_t spilled = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    SeededChoices c(seed);
    const Program p = generateProgram(c, GenOptions{*archPreset("tiny"), uint32_t(4 + seed % 16), uint32_t(50 + seed % 200)});
    DriverResult r;
    try {
      r = allocate(p, DriverOptions{});
    } catch (const AllocError&) {
      continue;
    }
    for (const Instruction& inst : r.program.body) spilled += inst.op == Op::RegStore;
    const std::string why = compare(r.program, tally);
    ASSERT_EQ(why, "") << "seed " << seed;
  }
  EXPECT_GT(spilled, 10u);  // the slots are there to follow
  EXPECT_GT(tally.covered, 1000u);
  EXPECT_GT(tally.carried, 200u);
  std::printf("covered %zu, carried %zu, undecidable %zu\n", tally.covered, tally.carried, tally.undecidable);
}

// A hand-derived case: the tested loop (the program's first loop), the verdict for tensor b, derived from the views.
struct HandCase {
  const char* what;
  const char* body;  // after the shared declarations (handDecls) and extra ones; followed by `dma O, c`
  IterationCoverage expected;
};

// a, b and c are [8, 64] u32; a holds A and c zeros before the tested loop; `extra` adds declarations (and the
// instructions that set them up) after those.
std::string handDecls(const char* extra) {
  return std::string("arch tiny\n"
                     "dram A [8, 64] u32 input\n"
                     "dram O [8, 64] u32 output\n"
                     "sbuf a [8, 64] u32\n"
                     "sbuf b [8, 64] u32\n"
                     "sbuf c [8, 64] u32\n") +
         extra + "dma a, A\nmemset c, 0\n";
}

// Each case's verdict must be the expected one, and agree with the interpreter (compare).
void expectVerdicts(const std::string& decls, std::initializer_list<HandCase> cases) {
  for (const HandCase& c : cases) {
    Program p = parseProgram(decls + c.body + "dma O, c\n");
    p.renumber();
    const LinearOrder order = linearize(p);
    EXPECT_EQ(iterationCoverage(p, order, p.findTensor("b"), 0), c.expected) << c.what;
    Tally tally;
    EXPECT_EQ(compare(p, tally), "") << c.what;
  }
}

constexpr IterationCoverage kCovered = IterationCoverage::Covered, kCarried = IterationCoverage::Carried,
                            kUndecidable = IterationCoverage::Undecidable;

// Programs where the walk must answer (not Undecidable) and agree with the run: registers the tested body computes
// (li, addi, add, mov) and loops it leaves behind (their exit values), which the walk's plan must keep.
TEST(IterationCoverage, DecidesAddressesFromRegistersTheBodyComputesAndLoopsItLeaves) {
  expectVerdicts(
      handDecls("sbuf d [8, 64] u32\nreg i\nreg j\nreg k\nreg s\n"),
      {
          {"li in the body", "loop i = 0, 2, 1 {\n  li s, 16\n  copy b[:, s:16], a[:, 0:16]\n"
                             "  copy c[:, 0:16], b[:, 16:16]\n}\n", kCovered},
          {"li in the body, read elsewhere", "loop i = 0, 2, 1 {\n  li s, 16\n  copy b[:, s:16], a[:, 0:16]\n"
                                            "  copy c[:, 0:16], b[:, 32:16]\n}\n", kCarried},
          {"mov from the loop register", "loop i = 0, 4, 1 {\n  mov s, i\n  copy b[:, s*16:16], a[:, 0:16]\n"
                                         "  copy c[:, 0:16], b[:, i*16:16]\n}\n", kCovered},
          {"add of two loop values", "loop i = 0, 2, 1 {\n  add s, i, i\n  copy b[:, s*8:8], a[:, 0:8]\n"
                                     "  copy c[:, 0:8], b[:, i*16:8]\n}\n", kCovered},
          {"add, read one iteration late", "loop i = 0, 2, 1 {\n  add s, i, i\n  copy b[:, s*8:8], a[:, 0:8]\n"
                                           "  copy c[:, 0:8], b[:, i*8:8]\n}\n", kCarried},
          // The inner loop touches neither b nor a register: left out, but j = 3 after it (its exit value).
          {"a loop's exit value", "loop i = 0, 2, 1 {\n  loop j = 0, 3, 1 {\n    tt d, a, a, add\n  }\n"
                                  "  copy b[:, j*16:16], a[:, 0:16]\n  copy c[:, 0:16], b[:, 48:16]\n}\n", kCovered},
          {"a loop's exit value, read below it", "loop i = 0, 2, 1 {\n  loop j = 0, 3, 1 {\n    tt d, a, a, add\n"
                                                 "  }\n  copy b[:, j*16:16], a[:, 0:16]\n"
                                                 "  copy c[:, 0:16], b[:, 32:16]\n}\n", kCarried},
          // Nested left-out loops: k holds 2 (its exit value on j's last iteration) after them.
          {"an inner loop's exit value", "loop i = 0, 2, 1 {\n  loop j = 0, 3, 1 {\n    loop k = 0, 2, 1 {\n"
                                         "      tt d, a, a, add\n    }\n  }\n  copy b[:, k*16:16], a[:, 0:16]\n"
                                         "  copy c[:, 0:16], b[:, 32:16]\n}\n", kCovered},
      });
}

// Addresses from a register the walk cannot know (loaded from memory; s = 5, which the interpreter knows and the
// walk does not): a write there is left out, a read there is decided only when the whole tensor is already written.
// The REG colorer's spill code made a per-iteration tensor undecidable, hence live over its loop, in the driver's
// output, and O7's in-place checker then rejected a placement the driver made on the program before REG
// (coloring_driver finding).
TEST(IterationCoverage, AddressesFromRegistersLoadedFromMemory) {
  expectVerdicts(
      handDecls("sbuf z [1, 1] u32\nreg i\nreg s\nmemset z, 5\n"),
      {
          {"whole tensor written, then read at an unknown address",
           "loop i = 0, 2, 1 {\n  reg_load s, z\n  copy b[:, 0:32], a[:, 0:32]\n  copy b[:, 32:32], a[:, 32:32]\n"
           "  reg_store b[0:1, s:1], s\n  reg_load s, b[0:1, s:1]\n  copy c[:, 0:16], b[:, 0:16]\n}\n",
           kCovered},
          {"half written, then read at an unknown address",
           "loop i = 0, 2, 1 {\n  reg_load s, z\n  copy b[:, 0:32], a[:, 0:32]\n  reg_load s, b[0:1, s:1]\n}\n",
           kUndecidable},
          {"a write at an unknown address, then a read it might cover",
           "loop i = 0, 2, 1 {\n  reg_load s, z\n  reg_store b[0:1, s:1], s\n  copy c[0:1, 0:1], b[0:1, 5:1]\n}\n",
           kUndecidable},
          {"a write at an unknown address, then covered reads",
           "loop i = 0, 2, 1 {\n  reg_load s, z\n  reg_store b[0:1, s:1], s\n  copy b[:, 0:16], a[:, 0:16]\n"
           "  copy c[:, 0:16], b[:, 0:16]\n}\n",
           kCovered},
      });
}

// A register spilled and reloaded through a DRAM slot (the REG colorer's spill code, alloc/reg/reg_spill.h) keeps
// its value for the walk when only reg_store and reg_load name the slot in the tested body, through one constant
// view; a slot anything else writes is not followed.
TEST(IterationCoverage, FollowsRegistersThroughSpillSlots) {
  expectVerdicts(
      handDecls("dram S [1, 1] u32\nsbuf z [1, 1] u32\nreg i\nreg s\nmemset z, 5\n"),
      {
          {"the loop register through a slot", "loop i = 0, 4, 1 {\n  reg_store S, i\n  reg_load s, S\n"
           "  copy b[:, s*16:16], a[:, 0:16]\n  copy c[:, 0:16], b[:, i*16:16]\n}\n", kCovered},
          {"through a slot, read one iteration late", "loop i = 1, 4, 1 {\n  reg_store S, i\n  reg_load s, S\n"
           "  copy b[:, s*16:16], a[:, 0:16]\n  copy c[:, 0:16], b[:, i*16-16:16]\n}\n", kCarried},
          {"a slot a dma also writes", "loop i = 0, 4, 1 {\n  reg_store S, i\n  dma S, z\n  reg_load s, S\n"
           "  reg_store S, i\n  copy b[:, i*16:16], a[:, 0:16]\n  copy c[0:1, 0:1], b[0:1, s:1]\n}\n",
           kUndecidable},
      });
}


// The tested loop is the one whose register is j.
void expectInnerVerdicts(const std::string& decls, std::initializer_list<HandCase> cases) {
  for (const HandCase& c : cases) {
    Program p = parseProgram(decls + c.body + "dma O, c\n");
    p.renumber();
    const LinearOrder order = linearize(p);
    int32_t loop = -1;
    for (size_t l = 0; l < order.loops.size(); ++l)
      if (order.loops[l].inst->rd == p.findRegister("j")) loop = int32_t(l);
    ASSERT_GE(loop, 0) << c.what;
    EXPECT_EQ(iterationCoverage(p, order, p.findTensor("b"), loop), c.expected) << c.what;
    Tally tally;
    EXPECT_EQ(compare(p, tally), "") << c.what;
  }
}

// The tested loop j inside i. What the enclosing body computes before j (registers, a register stored to a spill
// slot) is known to the walk, and a view that depends on i through a register computed from it is walked for every
// value of i: walking only i's first iteration answered Covered for "mov from the enclosing register" (i = 1 writes
// b[1] and reads b[0], which j's iteration has not written). The spilled loop register is the REG colorer's code
// in a program coloring_driver_fuzz found: stored before the inner loop, loaded twice in it.
TEST(IterationCoverage, FollowsWhatTheEnclosingBodyComputes) {
  expectInnerVerdicts(
      handDecls("dram S [1, 1] u32\nreg i\nreg j\nreg s\nreg u\n"),
      {
          {"mov from the enclosing register", "loop i = 0, 2, 1 {\n  loop j = 0, 2, 1 {\n    mov s, i\n"
           "    copy b[s:1, 0:16], a[0:1, 0:16]\n    copy c[0:1, 0:16], b[0:1, 0:16]\n  }\n}\n", kCarried},
          {"mov from the enclosing register, read where written", "loop i = 0, 2, 1 {\n  loop j = 0, 2, 1 {\n"
           "    mov s, i\n    copy b[s:1, 0:16], a[0:1, 0:16]\n    copy c[0:1, 0:16], b[i:1, 0:16]\n  }\n}\n",
           kCovered},
          {"computed before the inner loop", "loop i = 0, 2, 1 {\n  addi s, i, 1\n  loop j = 0, 2, 1 {\n"
           "    copy b[s:1, 0:16], a[0:1, 0:16]\n    copy c[0:1, 0:16], b[1:1, 0:16]\n  }\n}\n", kCarried},
          {"computed before the inner loop, read where written", "loop i = 0, 2, 1 {\n  addi s, i, 1\n"
           "  loop j = 0, 2, 1 {\n    copy b[s:1, 0:16], a[0:1, 0:16]\n    copy c[0:1, 0:16], b[s:1, 0:16]\n"
           "  }\n}\n", kCovered},
          {"the enclosing register spilled, loaded twice", "loop i = 0, 4, 1 {\n  reg_store S, i\n"
           "  loop j = 0, 2, 1 {\n    reg_load s, S\n    copy b[s*2:2, 0:16], a[0:2, 0:16]\n    reg_load u, S\n"
           "    copy c[0:2, 0:16], b[u*2:2, 0:16]\n  }\n}\n", kCovered},
          {"the enclosing register spilled, read one row late", "loop i = 1, 4, 1 {\n  reg_store S, i\n"
           "  loop j = 0, 2, 1 {\n    reg_load s, S\n    copy b[s*2:2, 0:16], a[0:2, 0:16]\n    reg_load u, S\n"
           "    copy c[0:2, 0:16], b[u*2-2:2, 0:16]\n  }\n}\n", kCarried},
          // Stored after the inner loop: what j sees is the previous iteration's (or, on the first, what was there
          // before i), which the walk does not follow: the write is left out and the read undecided.
          {"stored after the inner loop", "li s, 0\nreg_store S, s\nloop i = 0, 2, 1 {\n  loop j = 0, 2, 1 {\n"
           "    reg_load s, S\n    copy b[s:1, 0:16], a[0:1, 0:16]\n    reg_load u, S\n"
           "    copy c[0:1, 0:16], b[u:1, 0:16]\n  }\n  reg_store S, i\n}\n", kUndecidable},
          // Stored inside a loop before the inner one: not walked, so unknown after it.
          {"stored in a loop before the inner one", "loop i = 0, 2, 1 {\n  loop u = 0, 2, 1 {\n"
           "    reg_store S, u\n  }\n  loop j = 0, 2, 1 {\n    reg_load s, S\n    copy b[s:1, 0:16], a[0:1, 0:16]\n"
           "    copy c[0:1, 0:16], b[1:1, 0:16]\n  }\n}\n", kUndecidable},
          // ... whose register keeps its exit value.
          {"a loop before the inner one leaves its register", "loop i = 0, 2, 1 {\n  loop u = 0, 2, 1 {\n"
           "    reg_store S, u\n  }\n  loop j = 0, 2, 1 {\n    copy b[u*2:2, 0:16], a[0:2, 0:16]\n"
           "    copy c[0:2, 0:16], b[4:2, 0:16]\n  }\n}\n", kCovered},
      });
}

}  // namespace
}  // namespace allocsim
