// The timing tables in sim/timing/: each applies on top of the defaults, and every entry states its source: the
// paragraph (lines up to a blank line) holding a key names a public source ([ARCH], [ISA], [PERF], [DMA], [TRN2],
// expanded at the top of its file) or says "fitted".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/timing.h"

namespace allocsim {
namespace {

std::vector<std::string> timingFiles() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/sim/timing"))
    if (e.path().extension() == ".txt") out.push_back(e.path().string());
  return out;
}

TEST(SimTimingTable, EveryPresetAppliesOnTheDefaults) {
  const std::vector<std::string> files = timingFiles();
  EXPECT_GE(files.size(), 2u);
  for (const std::string& f : files) {
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    sim::TimingTable t = sim::TimingTable::defaults();
    EXPECT_NO_THROW(t.apply(ss.str())) << f;
  }
  sim::TimingTable gen3 = sim::TimingTable::defaults();
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/sim/timing/gen3.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  gen3.apply(ss.str());
  EXPECT_EQ(gen3.pe_clock_ghz, 2.4);  // Trainium2's Tensor engine (its architecture guide)
  EXPECT_EQ(sim::TimingTable::defaults().pe_clock_ghz, 2.8);  // Trainium's
}

TEST(SimTimingTable, EveryEntryNamesItsSource) {
  for (const std::string& f : timingFiles()) {
    std::ifstream in(f);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    lines.push_back("");
    size_t para = 0;  // first line of the current paragraph
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].empty()) continue;
      std::string text;
      for (size_t j = para; j < i; ++j) text += lines[j] + "\n";
      bool has_key = false;
      for (size_t j = para; j < i; ++j) has_key |= !lines[j].empty() && lines[j][0] != '#';
      const bool sourced = text.find("[ARCH]") != std::string::npos || text.find("[ISA]") != std::string::npos ||
                           text.find("[PERF]") != std::string::npos || text.find("[DMA]") != std::string::npos ||
                           text.find("[TRN2]") != std::string::npos || text.find("fitted") != std::string::npos;
      if (has_key) {
        EXPECT_TRUE(sourced) << f << " line " << para + 1 << ": an entry without its source:\n" << text;
      }
      para = i + 1;
    }
  }
}

}  // namespace
}  // namespace allocsim
