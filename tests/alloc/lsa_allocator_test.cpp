// The linear-scan allocator (alloc/lsa/lsa_allocator.h) through the driver: every corpus kernel at O8 and at
// -O6 --allocator lsa passes all three oracles (the tiny ones only by spilling); the production allocator's log lines
// in the situations that produce them; the active-set comparator; determinism; the clean failure when nothing can be
// spilled.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/lsa/live_range_manager.h"
#include "ir/parse.h"
#include "ir/print.h"
#include "tests/common/placed_program_checks.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

DriverResult lsa(const Program& p, int optlevel, int verbosity = 0) {
  DriverOptions o;
  o.optlevel = optlevel;
  if (optlevel == 6) o.allocator = "lsa";
  o.verbosity = verbosity;
  return allocate(p, o);
}

std::vector<std::string> findings(const Program& original, const Program& allocated, uint64_t poison) {
  CorrectnessOptions check;
  check.input = &original;
  check.verify.poison_seed = poison;
  const Verdict v = checkAllocation(allocated, check);
  if (v.defect != Defect::None && v.defect != Defect::Findings) return {describeDefect(v, "allocated")};
  std::vector<std::string> out;
  for (const Finding& f : v.report.findings) out.push_back(f.format("allocated"));
  EXPECT_TRUE(v.report.oracles[0].ran && v.report.oracles[1].ran && v.report.oracles[2].ran);
  return out;
}

size_t count(const AllocReport& r, const std::string& prefix) {
  return size_t(std::count_if(r.lines.begin(), r.lines.end(),
                              [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }));
}

// O8 runs `run`, -O6 --allocator lsa `run_with_loops`: one scan over the same loop-extended order, so the two
// place SBUF and PSUM identically (only the banner differs); O8 also gives DRAM spill slots addresses of their
// own. The gen2 kernels do not spill, so their two programs are byte-identical and the oracles run once.
void expectCorpusPasses(bool tiny_kernels) {
  size_t checked = 0, dram_slots = 0;
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    if (testing_placed::isTinyKernel(file) != tiny_kernels) continue;
    const Program p = parseProgram(text);
    const DriverResult r = lsa(p, 8);
    const DriverResult liw = lsa(p, 6);
    for (const std::string& f : findings(p, r.program, 11)) ADD_FAILURE() << file << " -O8: " << f;
    if (tiny_kernels) {
      for (const std::string& f : findings(p, liw.program, 12)) ADD_FAILURE() << file << " -O6 lsa: " << f;
      for (const Tensor& t : r.program.tensors) {
        if (t.space != Space::Dram || t.origin != Origin::Spill) continue;
        EXPECT_TRUE(t.placement.has_value()) << file << " " << t.name;
        ++dram_slots;
      }
    } else {
      EXPECT_EQ(printProgram(liw.program), printProgram(r.program)) << file;
    }
    const AllocReport& rep = r.reports.at(0);
    const int64_t spilled =
        std::stoll(rep.find("lsa.sbuf.spilled")->value) + std::stoll(rep.find("lsa.psum.spilled")->value);
    if (tiny_kernels) {
      // the tiny kernels overfill the tiny machine (corpus/kernels/README.md): no allocation without a spill
      EXPECT_GT(spilled, 0) << file;
      EXPECT_EQ(count(rep, "Failed to allocate "), size_t(spilled)) << file;
      EXPECT_EQ(count(rep, "Spilling "), size_t(spilled)) << file;
    }
    ++checked;
  }
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(tiny_kernels));
  EXPECT_EQ(checked, testing_placed::corpusKernelCount(!tiny_kernels));  // every kernel has its twin
  if (tiny_kernels) {
    EXPECT_GT(dram_slots, 0u);  // (matmul_blocked_tiny spills PSUM only, into SBUF)
  }
}

TEST(LinearScan, Gen2CorpusKernelsPassAllThreeOraclesAtO8AndO6Lsa) { expectCorpusPasses(false); }
TEST(LinearScan, TinyCorpusKernelsSpillAndPassAllThreeOraclesAtO8AndO6Lsa) { expectCorpusPasses(true); }

// Each spill is logged as the production allocator does: the failure, the victim, where it comes back.
TEST(LinearScan, ASpillLogsTheFailureTheListingTheVictimAndItsReload) {
  const Program p = parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) +
                                                          "/corpus/kernels/matmul_tiled_tiny.nki.txt"));
  const AllocReport rep = lsa(p, 8, 2).reports.at(0);
  const auto& lines = rep.lines;
  auto failed = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("Failed to allocate ", 0) == 0; });
  ASSERT_NE(failed, lines.end());
  // the listing: "0: <name> (SB)", "1: ...", in order, then "Spilling <name>" and "It will be reloaded at <inst>"
  auto it = failed + 1;
  size_t idx = 0;
  while (it != lines.end() && it->rfind(std::to_string(idx) + ": ", 0) == 0) {
    EXPECT_TRUE(it->ends_with(" (SB)")) << *it;
    ++it;
    ++idx;
  }
  EXPECT_GT(idx, 0u);
  ASSERT_NE(it, lines.end());
  EXPECT_EQ(it->rfind("Spilling ", 0), 0u) << *it;
  ASSERT_NE(it + 1, lines.end());
  EXPECT_EQ((it + 1)->rfind("It will be reloaded at ", 0), 0u) << *(it + 1);
  // verbosity 2 also logs expiry, each erased tensor after its "has no more uses"
  size_t no_more = 0, erased = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].ends_with(" has no more uses")) {
      ++no_more;
      ASSERT_LT(i + 1, lines.size());
      const std::string name = lines[i].substr(0, lines[i].size() - std::string(" has no more uses").size());
      EXPECT_EQ(lines[i + 1], name + " erased");
    }
    erased += lines[i].ends_with(" erased");
  }
  EXPECT_GT(no_more, 0u);
  EXPECT_EQ(no_more, erased);
  // verbosity 0 keeps the spill lines, drops listing and expiry
  const AllocReport quiet = lsa(p, 8, 0).reports.at(0);
  EXPECT_EQ(count(quiet, "Spilling "), count(rep, "Spilling "));
  EXPECT_EQ(count(quiet, "0: "), 0u);
  size_t quiet_erased = 0;
  for (const std::string& l : quiet.lines) quiet_erased += l.ends_with(" erased");
  EXPECT_EQ(quiet_erased, 0u);
}

// Three half-partition tensors on the tiny machine, built so the outcome follows from the rules: at c's def, a
// and b fill the partition; a lives further (the head of the active set) and the instruction does not use it,
// so a is spilled and reloaded at its next read; after the rescan everything fits.
TEST(LinearScan, SpillsTheHeadOfTheActiveSetAndReloadsItAtItsNextRead) {
  const char* text =
      "arch tiny\n"
      "dram X [8, 512] f32 input\n"
      "dram Y [8, 512] f32 input\n"
      "dram Z [8, 512] f32 output\n"
      "sbuf a [8, 512] f32\n"
      "sbuf b [8, 512] f32\n"
      "sbuf c [8, 512] f32\n"
      "dma a, X\n"
      "dma b, Y\n"
      "act c, b, relu\n"
      "tt  c, c, a, add\n"
      "dma Z, c\n";
  const Program p = parseProgram(text);
  DriverResult r = lsa(p, 8, 1);
  const AllocReport& rep = r.reports.at(0);
  const std::vector<std::string> expected = {"Failed to allocate c", "0: a (SB)", "1: b (SB)", "Spilling a",
                                             "It will be reloaded at tt c, c, a, add"};
  auto at = std::search(rep.lines.begin(), rep.lines.end(), expected.begin(), expected.end());
  EXPECT_NE(at, rep.lines.end());
  EXPECT_EQ(count(rep, "Failed to allocate "), 1u);
  EXPECT_EQ(rep.find("lsa.sbuf.spilled")->value, "1");
  EXPECT_EQ(rep.find("lsa.sbuf.scans")->value, "2");
  for (const std::string& f : findings(p, r.program, 3)) ADD_FAILURE() << f;
}

// Two one-element tensors and a full-partition one, all live at once, on the tiny machine (8 partitions, bands of
// 4): the full row needs a band start of its own, so the small two must share a band. Best fit alone puts the
// second small one at the other band's start; the scan's first-fit try places all three without a spill.
TEST(LinearScan, WhereBestFitWouldSpillTheFirstFitScanPlacesEverything) {
  const char* text =
      "arch tiny\n"
      "dram X [1, 1] u32 input\n"
      "dram Y [1, 1] u32 input\n"
      "dram Z [1, 1024] u32 output\n"
      "dram W [1, 1] u32 output\n"
      "sbuf a [1, 1] u32\n"
      "sbuf b [1, 1] u32\n"
      "sbuf c [1, 1024] u32\n"
      "dma a, X\n"
      "dma b, Y\n"
      "memset c, 0\n"
      "tt c[:, 0:1], a, b, add\n"
      "dma Z, c\n"
      "dma W, a\n";
  const Program p = parseProgram(text);
  for (int level : {8, 6}) {
    const DriverResult r = lsa(p, level);
    const AllocReport& rep = r.reports.at(0);
    EXPECT_EQ(rep.find("lsa.sbuf.spilled")->value, "0") << level;
    EXPECT_EQ(count(rep, "Failed to allocate "), 0u) << level;
    const Program& out = r.program;
    const Tensor& a = out.tensors.at(out.findTensor("a"));
    const Tensor& b = out.tensors.at(out.findTensor("b"));
    const Tensor& c = out.tensors.at(out.findTensor("c"));
    ASSERT_TRUE(a.placement && b.placement && c.placement);
    EXPECT_EQ(a.placement->partition / 4, b.placement->partition / 4) << level;
    EXPECT_NE(c.placement->partition / 4, a.placement->partition / 4) << level;
    for (const std::string& f : findings(p, out, 5)) ADD_FAILURE() << level << ": " << f;
  }
}

TEST(LinearScan, TheComparatorPutsTheFurthestEndFirstThenNameThenMembershipThenSize) {
  const std::string a = "a", b = "b";
  auto e = [](uint32_t end, const std::string* name, bool in, uint64_t size) {
    ActiveEntry x;
    x.end = end;
    x.name = name;
    x.in_instruction = in;
    x.size = size;
    return x;
  };
  EXPECT_TRUE(liveSetComparator(e(9, &b, false, 1), e(3, &a, true, 1)));  // end descending beats the name
  EXPECT_TRUE(liveSetComparator(e(5, &a, false, 9), e(5, &b, true, 1)));  // then the name
  EXPECT_TRUE(liveSetComparator(e(5, &a, true, 9), e(5, &a, false, 1)));  // then membership
  EXPECT_TRUE(liveSetComparator(e(5, &a, true, 1), e(5, &a, true, 9)));   // then size ascending
  EXPECT_FALSE(liveSetComparator(e(5, &a, true, 1), e(5, &a, true, 1)));
}

TEST(LinearScan, WhenNothingCanBeSpilledTheErrorNamesTheIntervalAndTheDemand) {
  const char* text =
      "arch tiny\n"
      "dram X [8, 1024] f32 input\n"
      "dram Z [8, 1024] f32 output\n"
      "sbuf a [8, 1024] f32\n"
      "sbuf c [8, 1024] f32\n"
      "dma a, X\n"
      "act c, a, relu\n"  // a and c both needed here: 2 x 4096 B of a 4096-byte partition. a is spilled (the
                          // only one live), and its stand-in for this instruction cannot be
      "dma Z, c\n";
  const Program p = parseProgram(text);
  try {
    lsa(p, 8);
    ADD_FAILURE() << "allocated";
  } catch (const AllocError& e) {
    EXPECT_EQ(e.format("k.nki.txt"),
              "k.nki.txt:5:6: Failed to allocate c: no free block of 8 partitions x 4096 bytes next to the 1 live "
              "tensor (32768 of 32768 SBUF partition-bytes in use (8 partitions x 4096 bytes)), none of which can "
              "be spilled: 'a_Reload2' (32768 bytes over its partitions, already spilled)");
  }
}

TEST(LinearScan, SameInputGivesByteIdenticalOutput) {
  for (const auto& [file, text] : testing_placed::corpusKernels()) {
    const Program p = parseProgram(text);
    DriverResult a = lsa(p, 8, 2), b = lsa(p, 8, 2);
    EXPECT_EQ(printProgram(a.program), printProgram(b.program)) << file;
    EXPECT_TRUE(a.reports == b.reports) << file;
  }
}

}  // namespace
}  // namespace allocsim
