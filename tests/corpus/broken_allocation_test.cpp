// Detection power: the hand-written broken allocations of corpus/broken/. Each file says in its
// header which oracles must catch it and which line each must name:
//
//   # expect: equivalence symbolic placement      (or "none" for a correct allocation)
//   # first-bad-line: 19                          (every expected oracle's first finding is on this line...)
//   # first-bad-line placement: 18                (...unless given per oracle)
//
// Each broken file has a correct sibling <name>.fixed.nki.txt that every oracle must accept, and the placement
// checker gets <name>.original.nki.txt as the original program when it exists (pinned placements).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/check.h"
#include "ir/parse.h"
#include "tests/common/files.h"
#include "verify/equivalence.h"
#include "verify/finding.h"
#include "verify/placement.h"
#include "verify/symbolic.h"

namespace allocsim {
namespace {

namespace fs = std::filesystem;

const std::string kBrokenDir = std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/broken/";
const std::string kExt = ".nki.txt";
constexpr Oracle kOracles[] = {Oracle::Equivalence, Oracle::Symbolic, Oracle::Placement};

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The allocated programs of the suite: every file but the originals, sorted.
std::vector<std::string> suiteFiles() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kBrokenDir)) {
    std::string name = e.path().filename().string();
    if (endsWith(name, kExt) && !endsWith(name, ".original" + kExt)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "x.fixed.nki.txt" and "x.nki.txt" -> "x".
std::string stem(const std::string& file) {
  std::string s = file.substr(0, file.size() - kExt.size());
  if (endsWith(s, ".fixed")) s.resize(s.size() - 6);
  return s;
}

struct Expectation {
  std::set<Oracle> catches;
  std::map<Oracle, uint32_t> line;  // first finding's line, per catching oracle
  bool declared = false;            // an "# expect:" line was found
};

std::optional<Oracle> parseOracle(const std::string& word) {
  for (Oracle o : kOracles)
    if (word == oracleName(o)) return o;
  return std::nullopt;
}

// Reads the "# expect:" and "# first-bad-line[ ORACLE]:" lines of the header; fails the test on a malformed one.
Expectation parseExpectation(const std::string& text) {
  Expectation e;
  std::optional<uint32_t> common;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# expect:", 0) == 0) {
      e.declared = true;
      std::istringstream words(line.substr(9));
      for (std::string w; words >> w;) {
        if (w == "none") continue;
        std::optional<Oracle> o = parseOracle(w);
        EXPECT_TRUE(o.has_value()) << "unknown oracle '" << w << "' in: " << line;
        if (o) e.catches.insert(*o);
      }
    } else if (line.rfind("# first-bad-line", 0) == 0) {
      size_t colon = line.find(':');
      EXPECT_NE(colon, std::string::npos) << line;
      if (colon == std::string::npos) continue;
      std::string who = line.substr(16, colon - 16);
      who.erase(0, who.find_first_not_of(' '));
      uint32_t n = uint32_t(std::stoul(line.substr(colon + 1)));
      if (who.empty()) {
        common = n;
      } else {
        std::optional<Oracle> o = parseOracle(who);
        EXPECT_TRUE(o.has_value()) << "unknown oracle '" << who << "' in: " << line;
        if (o) e.line[*o] = n;
      }
    }
  }
  for (Oracle o : e.catches)
    if (!e.line.count(o) && common) e.line[o] = *common;
  return e;
}

std::string describe(const std::vector<Finding>& fs, const std::string& file) {
  std::string out;
  for (const Finding& f : fs) out += f.format(file);
  return out.empty() ? "(no findings)\n" : out;
}

struct Loaded {
  Program program;
  std::optional<Program> original;
  std::string text;
};

Loaded load(const std::string& file) {
  Loaded r;
  r.text = readFile(kBrokenDir + file);
  r.program = parseProgram(r.text);
  std::string orig = kBrokenDir + stem(file) + ".original" + kExt;
  if (fs::exists(orig)) r.original = parseProgram(readFile(orig));
  return r;
}

std::vector<Finding> runOracle(Oracle o, const Loaded& r, uint64_t poison_seed) {
  switch (o) {
    case Oracle::Equivalence: {
      EquivalenceOptions opts;
      opts.poison_seed = poison_seed;
      return checkEquivalence(r.program, opts);
    }
    case Oracle::Symbolic: return checkSymbolic(r.program);
    case Oracle::Placement: {
      PlacementOptions opts;
      opts.original = r.original ? &*r.original : nullptr;
      return checkPlacement(r.program, opts);
    }
  }
  return {};
}

class BrokenAllocation : public ::testing::TestWithParam<std::string> {};

TEST_P(BrokenAllocation, CaughtByExactlyTheExpectedOraclesAtTheFirstBadLine) {
  const std::string file = GetParam();
  Loaded r = load(file);
  // The break must be in the allocation only: the program itself is well-formed.
  ASSERT_TRUE(checkProgram(r.program).empty()) << file << " is not well-formed";
  Expectation e = parseExpectation(r.text);
  ASSERT_TRUE(e.declared) << file << " has no '# expect:' line";
  bool fixed = endsWith(file, ".fixed" + kExt);
  EXPECT_EQ(fixed, e.catches.empty()) << file << ": a .fixed file expects none, a broken one some oracle";
  for (Oracle o : e.catches) EXPECT_TRUE(e.line.count(o)) << file << ": no first-bad-line for " << oracleName(o);

  std::string row = file + ":";
  // Poison differs between the seeds; a break caught by the equivalence oracle must not depend on the poison.
  for (uint64_t poison : {1, 2, 3}) {
    for (Oracle o : kOracles) {
      if (poison != 1 && o != Oracle::Equivalence) continue;
      std::vector<Finding> fs = runOracle(o, r, poison);
      if (poison == 1)
        row += std::string("  ") + oracleName(o) + "=" +
               (fs.empty() ? std::string("-") : std::to_string(fs[0].loc.line) + "(" + findingKindName(fs[0].kind) + ")");
      if (!e.catches.count(o)) {
        EXPECT_TRUE(fs.empty()) << file << ": " << oracleName(o) << " must not flag it (poison seed " << poison
                                << "), but reports:\n"
                                << describe(fs, file);
        continue;
      }
      ASSERT_FALSE(fs.empty()) << file << ": " << oracleName(o) << " misses the break (poison seed " << poison << ")";
      for (const Finding& f : fs) EXPECT_EQ(f.oracle, o);
      EXPECT_EQ(fs[0].loc.line, e.line[o]) << file << ": " << oracleName(o) << " names the wrong line (poison seed "
                                            << poison << "):\n"
                                            << describe(fs, file);
    }
  }
  std::cout << row << "\n";
}

INSTANTIATE_TEST_SUITE_P(Corpus, BrokenAllocation, ::testing::ValuesIn(suiteFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.size() - kExt.size());
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

// The suite itself: each of the ten kinds of break named below is there, each with its correct sibling.
TEST(BrokenAllocationSuite, EveryBreakHasACorrectSibling) {
  std::vector<std::string> files = suiteFiles();
  std::set<std::string> names(files.begin(), files.end());
  size_t broken = 0;
  for (const std::string& f : files) {
    if (endsWith(f, ".fixed" + kExt)) {
      EXPECT_TRUE(names.count(stem(f) + kExt)) << f << " has no broken version";
      continue;
    }
    ++broken;
    EXPECT_TRUE(names.count(stem(f) + ".fixed" + kExt)) << f << " has no .fixed sibling";
  }
  for (const char* required :
       {"overlap_one_byte", "reload_too_late", "spill_slot_shared", "psum_bank_mid_group", "loop_register_clobbered",
        "pinned_moved", "partition_off_by_one", "dma_stale_after_move", "reg64_one_lane", "reload_wrong_slot"})
    EXPECT_TRUE(names.count(std::string(required) + kExt)) << "missing break " << required;
  EXPECT_GE(broken, 10u);
}

// Header parsing is part of what the suite asserts, so it is tested too.
TEST(BrokenAllocationSuite, ParsesExpectationHeaders) {
  Expectation e = parseExpectation(
      "# x\n# expect: equivalence placement\n# first-bad-line: 7\n# first-bad-line placement: 5\narch tiny\n");
  EXPECT_TRUE(e.declared);
  EXPECT_EQ(e.catches, (std::set<Oracle>{Oracle::Equivalence, Oracle::Placement}));
  EXPECT_EQ(e.line[Oracle::Equivalence], 7u);
  EXPECT_EQ(e.line[Oracle::Placement], 5u);
  EXPECT_FALSE(e.line.count(Oracle::Symbolic));
  Expectation none = parseExpectation("# expect: none\n");
  EXPECT_TRUE(none.declared);
  EXPECT_TRUE(none.catches.empty());
}

}  // namespace
}  // namespace allocsim
