// The REG colorer (alloc/reg/, the production allocator's REG_Allocator): colors registers onto the SP lanes, spills
// what does not fit to DRAM slots (store after each def, reload before each use), reports the production allocator's
// lines, and raises the production allocator's FATAL only when no spill can make room. Every allocation here is
// checked by the three oracles.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "alloc/reg/reg_allocator.h"
#include "alloc/reg/reg_color.h"
#include "alloc/reg/reg_operands.h"
#include "ir/check.h"
#include "ir/inputs.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/thrown.h"
#include "tests/common/verify_checks.h"
#include "verify/verify.h"

namespace allocsim {
namespace {

// Six registers live at once on a 4-register machine: the peak is 6 lanes, so at least two must spill.
constexpr const char* kSixLive =
    "arch tiny\n"
    "dram O [1, 6] u32 output\n"
    "reg a\nreg b\nreg c\nreg d\nreg e\nreg f\n"
    "li a, 1\nli b, 2\nli c, 3\nli d, 4\nli e, 5\nli f, 6\n"
    "reg_store O[0:1, 0:1], a\nreg_store O[0:1, 1:1], b\nreg_store O[0:1, 2:1], c\n"
    "reg_store O[0:1, 3:1], d\nreg_store O[0:1, 4:1], e\nreg_store O[0:1, 5:1], f\n";

TEST(RegAllocator, SpillsWhatDoesNotFitAndPassesAllThreeOracles) {
  const Program original = parseProgram(kSixLive);
  Program p = original;
  RegStats r = allocateRegisters(p);
  EXPECT_TRUE(checkProgram(p).empty());
  expectCorrectAllocation(original, p, "six live", 11);
  EXPECT_GE(int64_t(r.spilled), 2);
  EXPECT_LE(int64_t(r.spilled), 6);
  EXPECT_GE(r.rounds, 2u);  // one round spills, the next colors
  ASSERT_EQ(r.round_log.size(), size_t(r.rounds));
  EXPECT_GT(r.round_log.front().uncolored, 0u);
  EXPECT_EQ(r.round_log.back().uncolored, 0u);
  EXPECT_EQ(r.utilization_pct, 100.0);  // six registers live together on the machine's lanes
  for (const Register& x : p.registers) {
    ASSERT_TRUE(x.phys) << x.name;
    EXPECT_LT(*x.phys, p.arch.sp_registers);
  }
  // Spill cost: one store per spilled def and one reload per use, each a 4-byte DMA priced by cost_table.h
  // (640 fixed + 1 cycle), nothing in loops.
  EXPECT_EQ(int64_t(r.spill_cycles), (int64_t(r.spill_stores) + int64_t(r.spill_reloads)) * 641);
  EXPECT_EQ(int64_t(r.spill_stores), int64_t(r.spilled));
  EXPECT_EQ(int64_t(r.spill_reloads), int64_t(r.spilled));
}

// An instruction that reads and writes one register (`addi a, a, k`) needs that register's lanes only, as the
// input names them (verify/register_demand.h). The REG colorer split the value it writes from the one it reads and
// then needed both at once: a 1-register machine refused `addi a, a, -15`, and a 64-bit register stepped inside a
// loop on a 2-register machine hit the FATAL after the loop register and the value spilled (a reg_colorer fuzz
// finding, fuzz/corpus/reg_colorer/addi_same_register_64bit_loop).
TEST(RegAllocator, AnInstructionReadingAndWritingOneRegisterNeedsItsLanesOnly) {
  const char* const cases[] = {
      "arch tiny sp-registers=1\ndram O [1, 1] u32 output\nreg a\n"
      "li a, 5\naddi a, a, -15\nreg_store O[0:1, 0:1], a\n",
      "arch tiny sp-registers=2\ndram O [1, 2] u32 output\nreg x 64\n"
      "li x, 797684906240\nmov x, x\naddi x, x, -15\nreg_store O[0:1, 0:2], x\n",
      "arch tiny sp-registers=2\nsbuf t [1, 5] i32 @p0+0\ndram O [1, 5] i32 output\nreg i\nreg x 64\n"
      "memset t, 0\n"
      "loop i = 3, 18, 3 {\n  li x, 797684906240\n  mov x, x\n  reg_store t[:, 1:2], x\n"
      "  reg_load x, t[:, 1:2]\n  addi x, x, -15\n  reg_store t[:, 3:2], x\n}\n"
      "dma O, t\n",
  };
  int n = 0;
  for (const char* text : cases) {
    const Program original = parseProgram(text);
    for (int level : {0, 2}) {
      SCOPED_TRACE("case " + std::to_string(n) + " -O" + std::to_string(level));
      DriverOptions o;
      o.optlevel = level;
      Program p;
      ASSERT_NO_THROW(p = allocate(original, o).program);
      EXPECT_TRUE(checkProgram(p).empty());
      expectCorrectAllocation(original, p, "read and write one register", 5);
    }
    ++n;
  }
}

TEST(RegAllocator, NoPressureMeansNoSpillAndOneRound) {
  Program p = parseProgram(std::string(kSixLive) + "");
  p.arch.sp_registers = 6;
  const Program original = p;
  RegStats r = allocateRegisters(p);
  EXPECT_EQ(int64_t(r.spilled), 0);
  EXPECT_EQ(int64_t(r.rounds), 1);
  EXPECT_EQ(p.registers.size(), original.registers.size());
  EXPECT_EQ(r.spill_cycles, 0u);
  EXPECT_EQ(r.round_log.size(), 1u);
  expectCorrectAllocation(original, p, "no pressure", 11);
}

// Store right after each def, reload right before each use (the order the production allocator's waits enforce), and
// the stand-ins name the register they stand for.
TEST(RegAllocator, SpillCodeStoresAfterEachDefAndReloadsBeforeEachUse) {
  Program p = parseProgram(kSixLive);
  allocateRegisters(p);
  const auto& body = p.body;
  size_t stores = 0, reloads = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const Instruction& inst = body[i];
    if (inst.origin == Origin::Spill) {
      ASSERT_EQ(inst.op, Op::RegStore);
      ASSERT_GT(i, 0u);
      EXPECT_EQ(body[i - 1].rd, inst.rs) << "the store follows the def of its stand-in";
      EXPECT_EQ(p.registers[inst.rs].origin, Origin::Spill);
      EXPECT_EQ(p.tensors[inst.dst.tensor].space, Space::Dram);
      ++stores;
    }
    if (inst.origin == Origin::Reload) {
      ASSERT_EQ(inst.op, Op::RegLoad);
      ASSERT_LT(i + 1, body.size());
      EXPECT_EQ(body[i + 1].rs, inst.rd) << "the reload precedes the use of its stand-in";
      EXPECT_EQ(p.registers[inst.rd].origin, Origin::Reload);
      EXPECT_EQ(body[i + 1].origin, Origin::Source);
      ++reloads;
    }
  }
  EXPECT_GE(stores, 2u);
  EXPECT_EQ(stores, reloads);
  for (const Register& x : p.registers)
    if (x.origin != Origin::Source) {
      EXPECT_EQ(p.registers[x.copy_of].origin, Origin::Source) << x.name;
    }
  // The allocated program prints and parses back to itself.
  const std::string text = printProgram(p);
  EXPECT_EQ(printProgram(parseProgram(text)), text);
  EXPECT_NE(text.find(" !reload("), std::string::npos);
}

// Three nested loops and two values read in the innermost body need 5 lanes on a 4-register machine. Spill
// costs (reg_costs.h, x10 per loop level): x and y are each read at depth 3 (cost 1001 with their def), the loop
// register i costs the store at the start and the reload at the end of its body, at depth 1 (cost 20), and it
// is live with everything, so it is the one to spill: 2 spill instructions, each executed twice.
constexpr const char* kNest =
    "arch tiny\n"
    "dram A [1, 16] u32 input\n"
    "dram O [1, 16] u32 output\n"
    "sbuf s [1, 16] u32 @p0+0\n"
    "reg i\nreg j\nreg k\nreg x\nreg y\n"
    "li x, 3\n"
    "li y, 5\n"
    "dma s, A\n"
    "loop i = 0, 2, 1 {\n"
    "  loop j = 0, 2, 1 {\n"
    "    loop k = 0, 2, 1 {\n"
    "      ts s[0:1, k*8:8], s[0:1, k*8:8], x, add\n"
    "      ts s[0:1, k*8:8], s[0:1, k*8:8], y, mul\n"
    "    }\n"
    "  }\n"
    "}\n"
    "dma O, s\n";

TEST(RegAllocator, TheOutermostLoopRegisterSpillsWhenThatIsCheapest) {
  const Program original = parseProgram(kNest);
  Program five = original;  // the original of a five-lane allocation is on the five-lane machine too
  five.arch.sp_registers = 5;
  Program p = five;
  RegStats roomy = allocateRegisters(p);
  EXPECT_EQ(int64_t(roomy.spilled), 0);
  expectCorrectAllocation(five, p, "three-deep nest, five lanes", 11);

  p = original;
  RegStats r = allocateRegisters(p);
  EXPECT_EQ(int64_t(r.spilled), 1);
  EXPECT_EQ(int64_t(r.spilled_loop_registers), 1);
  EXPECT_EQ(int64_t(r.rounds), 2);
  EXPECT_EQ(int64_t(r.spill_stores), 1);
  EXPECT_EQ(int64_t(r.spill_reloads), 1);
  // The store and the reload run once per iteration of i: 2 x 2 executions of 641 cycles (cost_table.h).
  EXPECT_EQ(int64_t(r.spill_cycles), 4 * 641);
  const Instruction& loop_i = p.body[p.body.size() - 2];
  ASSERT_EQ(loop_i.op, Op::Loop);
  EXPECT_EQ(p.registers[loop_i.rd].name, "i");
  EXPECT_EQ(loop_i.body.front().op, Op::RegStore);
  EXPECT_EQ(loop_i.body.back().op, Op::RegLoad);
  EXPECT_EQ(loop_i.body.back().rd, loop_i.rd);
  EXPECT_TRUE(checkProgram(p).empty());
  expectCorrectAllocation(original, p, "three-deep nest", 11);
}

// One instruction that names five registers (four index terms and the scalar) on four lanes: whatever spills, its
// registers (or their reload stand-ins) are live at once, so the production allocator's FATAL is a clean AllocError.
// Five lanes fit. Five nested loops around a one-register instruction, by contrast, allocate on four lanes: the loop
// registers spill inside their bodies.
// A loop register that an inner loop's bound names spills like any other: the bound reads the register itself, so
// the spill code reloads it into its own lanes right before that inner loop. Here `ts` names four registers (a, b,
// j and the scalar x) on four lanes, so i must leave its lane inside its body: before, its bound kept it there and
// no allocation was found. The output is derived by hand: j = 0 runs three times (i = 0, 1, 2), j = 1 twice and
// j = 2 once, each adding 3 to elements a+b+8j .. a+b+8j+7 of zeros.
TEST(RegAllocator, ALoopRegisterNamedByAnInnerBoundSpillsWithAReloadBeforeThatLoop) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [1, 64] u32 output\n"
      "sbuf s [1, 64] u32\n"
      "reg i\nreg j\nreg a\nreg b\nreg x\n"
      "li a, 1\nli b, 2\nli x, 3\n"
      "memset s, 0\n"
      "loop i = 0, 3, 1 {\n"
      " loop j = 0, i+1, 1 {\n"
      "  ts s[0:1, a+b+j*8:8], s[0:1, a+b+j*8:8], x, add\n"
      " }\n"
      "}\n"
      "dma O, s\n");
  ASSERT_TRUE(checkProgram(original).empty());
  std::vector<uint32_t> expected(64, 0);
  for (uint32_t k = 0; k < 8; ++k) {
    expected[3 + k] = 9;
    expected[11 + k] = 6;
    expected[19 + k] = 3;
  }
  for (int level : {1, 2, 3, 6, 8}) {
    DriverOptions opts;
    opts.optlevel = level;
    const DriverResult r = allocate(original, opts);
    const std::string what = "bound register spill at -O" + std::to_string(level);
    const RegStats* reg = findStep<RegStats>(r);
    ASSERT_NE(reg, nullptr) << what;
    EXPECT_GE(int64_t(reg->spilled_loop_registers), 1) << what;
    // i's body: its store first, its reload last, and a reload of i right before the loop whose bound reads it.
    const Instruction* loop_i = nullptr;
    for (const Instruction& inst : r.program.body)
      if (inst.op == Op::Loop && r.program.registers[inst.rd].name == "i") loop_i = &inst;
    ASSERT_NE(loop_i, nullptr) << what;
    const std::vector<Instruction>& body = loop_i->body;
    ASSERT_EQ(body.size(), 4u) << what << "\n" << printProgram(r.program);
    EXPECT_EQ(body[0].op, Op::RegStore) << what;
    EXPECT_EQ(body[1].op, Op::RegLoad) << what;
    EXPECT_EQ(body[1].rd, loop_i->rd) << what;
    EXPECT_EQ(body[2].op, Op::Loop) << what;
    EXPECT_EQ(body[3].op, Op::RegLoad) << what;
    EXPECT_EQ(body[3].rd, loop_i->rd) << what;
    EXPECT_TRUE(checkProgram(r.program).empty()) << what;
    const InterpResult run = interpret(r.program, InterpOptions{5});
    const std::vector<uint8_t>& o = run.outputs.at(r.program.findTensor("O"));
    ASSERT_EQ(o.size(), 64u * 4) << what;
    for (size_t e = 0; e < 64; ++e) {
      uint32_t v;
      std::memcpy(&v, &o[4 * e], 4);
      EXPECT_EQ(v, expected[e]) << what << " element " << e;
    }
    expectCorrectAllocation(original, r.program, what, 11);
    expectSimulatorMatchesInterpreter(r.program, 11);
  }
}

// Six nested loops, each of the five outer loops' registers naming the next loop's bound (a triangular nest), on
// four lanes: each outer register spills inside its body and is reloaded before the loop whose bound reads it, so
// at the innermost header only the register of the bound and the innermost register are live. By hand: rows 0 and
// 1 of t become 1.0 (f reaches 1 only when a = b = c = d = e = 1), the others stay 0.
TEST(RegAllocator, ATriangularNestDeeperThanTheLanesAllocates) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [8, 64] f32 output\n"
      "sbuf t [8, 64] f32\n"
      "reg a\nreg b\nreg c\nreg d\nreg e\nreg f\n"
      "memset t, 0.0\n"
      "loop a = 0, 2, 1 {\n"
      " loop b = 0, a+1, 1 {\n"
      "  loop c = 0, b+1, 1 {\n"
      "   loop d = 0, c+1, 1 {\n"
      "    loop e = 0, d+1, 1 {\n"
      "     loop f = 0, e+1, 1 {\n"
      "      memset t[f:1, :], 1.0\n"
      "     }\n    }\n   }\n  }\n }\n}\n"
      "dma O, t\n");
  ASSERT_TRUE(checkProgram(original).empty());
  ASSERT_EQ(original.arch.sp_registers, 4u);
  for (int level : {2, 7, 8}) {
    DriverOptions opts;
    opts.optlevel = level;
    const DriverResult r = allocate(original, opts);
    const std::string what = "triangular nest at -O" + std::to_string(level);
    const RegStats* reg = findStep<RegStats>(r);
    ASSERT_NE(reg, nullptr) << what;
    EXPECT_GE(int64_t(reg->spilled_loop_registers), 2) << what;
    const InterpResult run = interpret(r.program, InterpOptions{5});
    const std::vector<uint8_t>& o = run.outputs.at(r.program.findTensor("O"));
    ASSERT_EQ(o.size(), 8u * 64 * 4) << what;
    for (size_t e = 0; e < 8 * 64; ++e) {
      float v;
      std::memcpy(&v, &o[4 * e], 4);
      EXPECT_EQ(v, e < 2 * 64 ? 1.0f : 0.0f) << what << " element " << e;
    }
    expectCorrectAllocation(original, r.program, what, 11);
    expectSimulatorMatchesInterpreter(r.program, 11);
  }
}

TEST(RegAllocator, ProductionFatalOnlyWhenNoSpillCanHelp) {
  const std::string text =
      "arch tiny\n"
      "dram A [1, 16] u32 input\n"
      "dram O [1, 16] u32 output\n"
      "sbuf s [1, 16] u32 @p0+0\n"
      "reg a\nreg b\nreg c\nreg d\nreg x\n"
      "li a, 0\nli b, 0\nli c, 1\nli d, 0\nli x, 3\n"
      "dma s, A\n"
      "ts s[0:1, a+b+c+d:8], s[0:1, 8:8], x, add\n"
      "dma O, s\n";
  Program p = parseProgram(text);
  ASSERT_TRUE(checkProgram(p).empty());
  try {
    allocateRegisters(p);
    ADD_FAILURE() << "allocated an instruction naming five registers on four lanes";
  } catch (const AllocError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot allocate registers since spilling candidates are not enough: ", 0),
              0u)
        << e.what();
  }
  Program q = parseProgram(text);
  q.arch.sp_registers = 5;
  const Program original = q;
  RegStats r = allocateRegisters(q);
  EXPECT_EQ(int64_t(r.spilled), 0);
  expectCorrectAllocation(original, q, "five registers, five lanes", 11);

  const Program nest = parseProgram(
      "arch tiny\n"
      "dram A [1, 16] u32 input\n"
      "dram O [1, 16] u32 output\n"
      "sbuf s [1, 16] u32 @p0+0\n"
      "reg i\nreg j\nreg k\nreg l\nreg m\nreg x\n"
      "li x, 3\n"
      "dma s, A\n"
      "loop i = 0, 1, 1 {\n loop j = 0, 1, 1 {\n loop k = 0, 1, 1 {\n loop l = 0, 2, 1 {\n loop m = 0, 1, 1 {\n"
      "  ts s[0:1, l*8:8], s[0:1, l*8:8], x, add\n"
      "}\n}\n}\n}\n}\n"
      "dma O, s\n");
  Program n = nest;
  RegStats rn = allocateRegisters(n);
  EXPECT_GE(int64_t(rn.spilled_loop_registers), 1);
  EXPECT_TRUE(checkProgram(n).empty());
  expectCorrectAllocation(nest, n, "five-deep nest, four lanes", 11);
}

TEST(RegAllocator, SixtyFourBitRegistersTakeTwoAdjacentLanes) {
  const Program original = parseProgram(
      "arch tiny\n"
      "dram O [1, 6] u32 output\n"
      "reg w 64\nreg v 64\nreg a\nreg b\n"
      "li w, 4294967297\nli a, 1\nli v, 8589934594\nli b, 2\n"
      "reg_store O[0:1, 0:2], w\nreg_store O[0:1, 2:2], v\nreg_store O[0:1, 4:1], a\nreg_store O[0:1, 5:1], b\n");
  Program p = original;
  RegStats r = allocateRegisters(p);
  for (const Register& x : p.registers) {
    ASSERT_TRUE(x.phys) << x.name;
    EXPECT_LE(*x.phys + x.lanes(), p.arch.sp_registers) << x.name;
  }
  EXPECT_GE(int64_t(r.spilled), 1);  // 6 lanes live on 4
  expectCorrectAllocation(original, p, "64-bit", 11);
  // One lane cannot hold a 64-bit value, whatever spills: the FATAL.
  Program one = original;
  one.arch.sp_registers = 1;
  EXPECT_THROW(allocateRegisters(one), AllocError);
}

TEST(RegAllocator, KeptPlacementsAreObstaclesAndStay) {
  Program p = parseProgram(kSixLive);
  p.registers[p.findRegister("c")].phys = 0;
  const Program original = p;
  RegOptions o;
  o.keep.assign(p.registers.size(), false);
  o.keep[p.findRegister("c")] = true;
  allocateRegisters(p, o);
  EXPECT_EQ(p.registers[p.findRegister("c")].phys, 0u);
  expectCorrectAllocation(original, p, "kept c", 11);
}

// The colorer alone: select never gives interfering nodes overlapping lanes, and the degree test is safe for
// two-lane nodes (a triangle of 1-lane nodes plus a 2-lane node on 5 lanes colors without spilling).
TEST(RegColor, InterferingNodesGetDisjointLanes) {
  RegGraph g;
  g.adj = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  RegCosts c;
  c.cost = {1, 1, 1, 1};
  c.spillable = {true, true, true, true};
  c.loop_register = {false, false, false, false};
  RegColorInput in;
  in.graph = &g;
  in.costs = &c;
  in.lanes = {1, 1, 1, 2};
  in.start = {0, 0, 0, 0};
  in.precolored.assign(4, std::nullopt);
  in.registers = 5;
  RegColoring out = colorRegisters(in);
  ASSERT_TRUE(out.uncolored.empty());
  for (RegId a = 0; a < 4; ++a)
    for (RegId b : g.adj[a]) {
      const uint32_t a0 = *out.color[a], b0 = *out.color[b];
      EXPECT_TRUE(a0 + in.lanes[a] <= b0 || b0 + in.lanes[b] <= a0) << a << " " << b;
    }
  EXPECT_EQ(out.lanes_used, 5u);
  in.registers = 4;
  out = colorRegisters(in);
  EXPECT_EQ(out.uncolored.size(), 1u);
  EXPECT_GE(out.score, 1.0);  // an uncolored node costs its spill cost
}

Program registerKernel(const std::string& name) {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/register_kernels/" + name + ".nki.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return parseProgram(ss.str());
}

// corpus/register_kernels/: the register-pressure kernels at every optlevel that applies, through the driver. The
// tiny one spills registers (three scalars, reloaded in the nest), gen2 does not; every result passes the three
// oracles, and the interpreter's output on the original matches the formula in the kernel's header.
TEST(RegAllocator, RegisterPressureKernelsAllocateAtEveryLevelAndPassAllThreeOracles) {
  for (const char* name : {"register_pressure", "register_pressure_tiny"}) {
    const Program p = registerKernel(name);
    ASSERT_TRUE(checkProgram(p).empty()) << name;
    const bool tiny = std::string(name).ends_with("_tiny");
    // The formula, O = ((3A) + (A+5)) ^ A + 7 per u32 element, against the reference interpreter.
    InterpResult ref = interpret(p, InterpOptions{3});
    const TensorId A = p.findTensor("A"), O = p.findTensor("O");
    const std::vector<uint8_t> a = makeInputs(p, 3).at(A);
    const std::vector<uint8_t>& o = ref.outputs.at(O);
    ASSERT_EQ(a.size(), o.size());
    for (size_t i = 0; i < a.size(); i += 4) {
      uint32_t x, y;
      std::memcpy(&x, &a[i], 4);
      std::memcpy(&y, &o[i], 4);
      ASSERT_EQ(y, (((x * 3u) + (x + 5u)) ^ x) + 7u) << name << " element " << i / 4;
    }
    for (int level : {0, 1, 2, 3, 6, 7}) {
      if (tiny && level == 0) continue;  // the tiny kernel overfills SBUF: no reuse cannot place it
      DriverOptions opts;
      opts.optlevel = level;
      const Program input = level == 7 ? allocatePsum(p, PsumOptions{}).program : p;
      DriverResult r = allocate(input, opts);
      const RegStats* reg = findStep<RegStats>(r);
      ASSERT_NE(reg, nullptr);
      EXPECT_EQ(reg->spilled, tiny ? 3u : 0u) << name << " -O" << level;
      expectCorrectAllocation(p, r.program, std::string(name) + " -O" + std::to_string(level), 11);
    }
  }
}

}  // namespace
}  // namespace allocsim
