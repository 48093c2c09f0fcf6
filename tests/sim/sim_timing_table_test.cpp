// The timing tables in sim/timing/: each applies on top of the defaults, and every entry states its source: the
// paragraph (lines up to a blank line) holding a key names a public source ([ARCH], [ISA], [PERF], [DMA], [TRN2],
// [OVERVIEW], expanded at the top of its file) or says "fitted".
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/parse.h"
#include "sim/simulate.h"
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

std::string readTimingFile(const std::string& name) {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/sim/timing/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SimTimingTable, EachPresetHasItsOwnTableCompiledIn) {
  sim::TimingTable gen3 = sim::TimingTable::defaults();
  gen3.apply(readTimingFile("gen3.txt"));
  const sim::TimingTable& compiled = sim::TimingTable::forPreset("gen3");
  EXPECT_EQ(compiled.clock_ghz, gen3.clock_ghz);
  EXPECT_EQ(compiled.pe_clock_ghz, 2.4);  // Trainium2's Tensor engine (its architecture guide)
  EXPECT_EQ(compiled.dve_clock_ghz, 0.96);
  EXPECT_EQ(compiled.dma_engine_bytes_per_ns, gen3.dma_engine_bytes_per_ns);
  EXPECT_FALSE(compiled.port_dve_pool_sbuf);
  // The presets without a file of their own run with the NeuronCore-v2 table.
  for (const char* preset : {"gen1", "gen2", "tiny"}) {
    EXPECT_EQ(sim::TimingTable::forPreset(preset).pe_clock_ghz, 2.8) << preset;
    EXPECT_TRUE(sim::TimingTable::forPreset(preset).port_dve_pool_sbuf) << preset;
  }
}

// A gen3 program simulated without a table runs with gen3's: the same run as with sim/timing/gen3.txt given on
// top of the defaults, and not the NeuronCore-v2 table's (its DMA bandwidth, reporting clock and shared ports
// differ: the program moves data and has DVE and POOL work on SBUF).
TEST(SimTimingTable, AGen3ProgramGetsTheGen3TableWithoutBeingGivenIt) {
  const Program p = parseProgram(R"(arch gen3
dram X [128, 2048] bf16 input
dram Y [128, 2048] bf16 output
sbuf x [128, 2048] bf16 @p0+0
sbuf y [128, 2048] bf16 @p0+8192
sbuf z [128, 2048] bf16 @p0+16384
dma x, X
memset z, 1.0
ts y, x, 2.0, mul
dma Y, y
)");
  sim::SimOptions implicit, gen3_given, gen2_given;
  implicit.timing_only = gen3_given.timing_only = gen2_given.timing_only = true;
  gen3_given.timing = sim::TimingTable::defaults();
  gen3_given.timing->apply(readTimingFile("gen3.txt"));
  gen2_given.timing = sim::TimingTable::defaults();
  EXPECT_EQ(implicit.timingFor(p).pe_clock_ghz, 2.4);
  const sim::SimStats a = sim::simulate(p, implicit).stats, b = sim::simulate(p, gen3_given).stats,
                      c = sim::simulate(p, gen2_given).stats;
  EXPECT_EQ(a.cycles, b.cycles);
  for (size_t e = 0; e < a.engines.size(); ++e) EXPECT_EQ(a.engines[e].busy_cycles, b.engines[e].busy_cycles) << e;
  EXPECT_NE(a.cycles, c.cycles);
  // The same program on gen2 still runs with the NeuronCore-v2 table.
  Program on_gen2 = p;
  on_gen2.arch = *archPreset("gen2");
  EXPECT_EQ(sim::simulate(on_gen2, implicit).stats.cycles, sim::simulate(on_gen2, gen2_given).stats.cycles);
}

// NeuronCore-v3's Vector engine performance mode on 16-bit floats (its architecture guide: tensor_scalar 4x,
// tensor_tensor in SBUF 2x, against NeuronCore-v2), on top of the ISA's formulas at each generation's clocks. DVE's
// busy cycles of one instruction, in reporting cycles: NeuronCore-v2 DVE 1.12 GHz against 1.4 (x 1.25),
// NeuronCore-v3 DVE 0.96 GHz against 1.2 (x 1.25).
TEST(SimTimingTable, Gen3VectorEnginePerformanceModeOn16BitFloats) {
  auto dve = [](const std::string& arch, const std::string& dtype, const std::string& inst) {
    const std::string text = "arch " + arch + "\nsbuf a [128, 512] " + dtype + " @p0+0\nsbuf b [128, 512] " + dtype +
                             " @p0+2048\nsbuf c [128, 512] " + dtype + " @p0+4096\nsbuf r [128, 1] f32 @p0+6144\n" +
                             "memset a, 1.0\nmemset b, 2.0\n" + inst + "\n";
    return sim::simulate(parseProgram(text)).stats.engines[size_t(Engine::DVE)].busy_cycles;
  };
  // ts, N = 512: max(64, 512) DVE cycles on v2; a quarter of the per-element cost on v3 with bf16 or f16.
  EXPECT_EQ(dve("gen2", "bf16", "ts c, a, 2.0, mul"), 640u);  // 512 x 1.25
  EXPECT_EQ(dve("gen3", "bf16", "ts c, a, 2.0, mul"), 160u);  // max(64, 128) = 128, x 1.25
  EXPECT_EQ(dve("gen3", "f16", "ts c, a, 2.0, mul"), 160u);
  EXPECT_EQ(dve("gen3", "f32", "ts c, a, 2.0, mul"), 640u);   // no mode for f32: 512
  EXPECT_EQ(dve("gen3", "bf16", "ts c[:, 0:128], a[:, 0:128], 2.0, mul"), 80u);  // max(64, 32): MIN_II stays
  // tensor_scalar_reduce is not among the guide's instructions: max(64, 512) + 64.
  EXPECT_EQ(dve("gen3", "bf16", "ts c, a, 2.0, mul, reduce=add -> r"), 720u);
  // tt in SBUF, N = 512: bf16 add at N, max at 2N on v2; half of either on v3.
  EXPECT_EQ(dve("gen2", "bf16", "tt c, a, b, add"), 640u);
  EXPECT_EQ(dve("gen3", "bf16", "tt c, a, b, add"), 320u);   // 256 x 1.25
  EXPECT_EQ(dve("gen3", "bf16", "tt c, a, b, max"), 640u);   // 2 x 512 / 2
  EXPECT_EQ(dve("gen3", "f32", "tt c, a, b, add"), 1280u);   // 2 x 512, no mode
}

// The architecture guide's access-pattern cost: a most-minor free-axis stride above 16 bytes halves an engine
// interface's bandwidth (factor 2 on the per-element cost). Busy cycles of one instruction on gen2, in reporting
// cycles (ACT and POOL at the reporting clock 1.4 GHz, DVE at 1.12: x 1.25, PE at 2.8: x 0.5).
TEST(SimTimingTable, AStrideAboveSixteenBytesDoublesThePerElementCost) {
  auto busy = [](Engine e, const std::string& inst) {
    const std::string text = std::string("arch gen2\nsbuf a [128, 4096] f32 @p0+0\nsbuf c [128, 4096] f32 @p0+16384\n") +
                             "sbuf w [128, 8192] bf16 @p0+32768\npsum y [128, 512] f32 @bank0\nmemset a, 1.0\nmemset w, 1.0\n" +
                             inst + "\n";
    return sim::simulate(parseProgram(text)).stats.engines[size_t(e)].busy_cycles;
  };
  // ACT copy of 512 f32 elements: unit stride 512; every 8th element (32 bytes) 2 x 512.
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:512], a[:, 0:512]"), 512u);
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:512], a[:, 0:1, 8:512]"), 1024u);
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:1, 8:512], a[:, 0:512]"), 1024u);  // a strided destination too
  // Exactly 16 bytes (every 4th f32) does not exceed the threshold; runs of two elements are read with unit stride;
  // a step-0 view has no stride.
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:512], a[:, 0:1, 4:512]"), 512u);
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:512], a[:, 0:2, 16:256]"), 512u);
  EXPECT_EQ(busy(Engine::ACT, "copy c[:, 0:512], a[:, 0:1, 0:512]"), 512u);
  // DVE ts of 512 elements: 512 DVE cycles (640 reported), strided 1024 (1280); MIN_II still bounds a small one:
  // 16 strided elements are 32 < 64 cycles.
  EXPECT_EQ(busy(Engine::DVE, "ts c[:, 0:512], a[:, 0:1, 8:512], 2.0, mul"), 1280u);
  EXPECT_EQ(busy(Engine::DVE, "ts c[:, 0:16], a[:, 0:1, 8:16], 2.0, mul"), 80u);
  // PE: a moving tensor [128, 512] bf16 read every 8th element (16 bytes: no penalty) and every 16th (32 bytes).
  EXPECT_EQ(busy(Engine::PE, "matmul y, w[:, 0:128], w[:, 0:1, 8:512], start, stop"), 256u);
  EXPECT_EQ(busy(Engine::PE, "matmul y, w[:, 0:128], w[:, 0:1, 16:512], start, stop"), 512u);
  // POOL memset of a strided destination: 150 + 2 x 512.
  EXPECT_EQ(busy(Engine::POOL, "memset c[:, 0:1, 8:512], 0.0") - busy(Engine::POOL, "memset c[:, 0:512], 0.0"), 512u);
}

// A file of binary junk: the message quotes at most 40 bytes of its first token, each unprintable byte as \xNN, and
// keeps the location; a long number out of range is cut the same way.
TEST(SimTimingTable, AJunkTokenIsQuotedShortAndEscaped) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += char(i % 31 == 0 ? 0x80 + i % 100 : 0x01 + i % 8);
  const std::string head = junk.substr(0, 40);
  std::string expected;  // the first 40 bytes as quoted, worked out byte by byte
  for (unsigned char c : head) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    expected += buf;
  }
  sim::TimingTable t = sim::TimingTable::defaults();
  try {
    t.apply("# a comment\n  " + junk + " 5\n");
    ADD_FAILURE() << "junk accepted";
  } catch (const InputError& e) {
    const std::string msg = e.format("j.txt");
    EXPECT_EQ(msg, "j.txt:2:3: unknown timing key '" + expected + "...'\n");
  }
  // A number strtod reads whole, 5000 characters long and out of range (-1): shown cut to 40 characters.
  try {
    t.apply("pe.fixed -1." + std::string(4997, '0') + "\n");
    ADD_FAILURE() << "out-of-range value accepted";
  } catch (const InputError& e) {
    const std::string msg = e.format("n.txt");
    EXPECT_EQ(msg.rfind("n.txt:1:10: timing key 'pe.fixed' must be between ", 0), 0u) << msg;
    EXPECT_NE(msg.find(", got -1." + std::string(37, '0') + "...\n"), std::string::npos) << msg;
    EXPECT_LT(msg.size(), 200u) << msg;
  }
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
                           text.find("[TRN2]") != std::string::npos || text.find("[OVERVIEW]") != std::string::npos ||
                           text.find("fitted") != std::string::npos;
      if (has_key) {
        EXPECT_TRUE(sourced) << f << " line " << para + 1 << ": an entry without its source:\n" << text;
      }
      para = i + 1;
    }
  }
}

}  // namespace
}  // namespace allocsim
