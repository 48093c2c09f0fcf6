// `allocsim trace`: the trace-event JSON follows the format's rules (Chrome "Trace Event Format": a traceEvents
// array; complete events with ph/name/pid/tid/ts/dur; metadata naming every thread; counters with numeric args),
// one slice per executed step, no two slices overlapping on one track; the VCD declares the engine and ring
// signals; the same run writes byte-identical files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "alloc/driver.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "tests/common/cli_run.h"
#include "tests/common/files.h"
#include "tests/tools/json_reader.h"

namespace allocsim {
namespace {

const char kKernel[] = "corpus/kernels/matmul_tiled_tiny.nki.txt";

// Steps of the allocated kernel, counted by the interpreter (one per executed instruction and loop iteration).
uint64_t interpreterSteps() {
  DriverOptions o;
  o.optlevel = 2;
  Program allocated = allocate(parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/" + kKernel)), o).program;
  return interpret(allocated).steps;
}

// The identifier code a VCD declares for `signal` ("$var wire 1 <code> <signal> $end"); empty if none.
std::string vcdCode(const std::string& vcd, const std::string& signal) {
  std::istringstream in(vcd);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string var, type, width, code, name;
    if (words >> var >> type >> width >> code >> name && var == "$var" && name == signal) return code;
  }
  return "";
}

TEST(SimTrace, TraceEventJsonFollowsTheFormatRules) {
  const std::string dir = testing::TempDir();
  const std::string json_path = dir + "sim_trace.json", vcd_path = dir + "sim_trace.vcd";
  CliRun r = allocsim(std::string("trace ") + kKernel + " -O2 --perfetto " + json_path + " --vcd " + vcd_path);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string text = readFile(json_path);
  json::Value doc = json::parse(text);  // throws on any syntax error
  ASSERT_EQ(doc.kind, json::Value::Object);
  ASSERT_TRUE(doc.has("traceEvents"));
  ASSERT_EQ(doc.at("traceEvents").kind, json::Value::Array);
  if (doc.has("displayTimeUnit")) {
    EXPECT_TRUE(doc.at("displayTimeUnit").str == "ns" || doc.at("displayTimeUnit").str == "ms");
  }

  std::map<int64_t, std::vector<std::pair<double, double>>> slices;  // tid -> (ts, dur)
  std::set<int64_t> named;
  uint64_t counters = 0;
  for (const json::Value& e : doc.at("traceEvents").arr) {
    ASSERT_EQ(e.kind, json::Value::Object);
    ASSERT_TRUE(e.has("ph") && e.at("ph").kind == json::Value::String);
    ASSERT_TRUE(e.has("name") && e.at("name").kind == json::Value::String);
    ASSERT_TRUE(e.has("pid") && e.at("pid").integer);
    const std::string ph = e.at("ph").str;
    if (ph == "X") {
      ASSERT_TRUE(e.has("tid") && e.at("tid").integer);
      ASSERT_TRUE(e.has("ts") && e.at("ts").kind == json::Value::Number);
      ASSERT_TRUE(e.has("dur") && e.at("dur").kind == json::Value::Number);
      EXPECT_GE(e.at("ts").num, 0);
      EXPECT_GE(e.at("dur").num, 0);
      ASSERT_TRUE(e.has("args") && e.at("args").has("line"));
      EXPECT_GT(e.at("args").at("line").num, 0);
      slices[int64_t(e.at("tid").num)].push_back({e.at("ts").num, e.at("dur").num});
    } else if (ph == "M") {
      ASSERT_TRUE(e.has("args"));
      const std::string n = e.at("name").str;
      ASSERT_TRUE(n == "process_name" || n == "thread_name" || n == "thread_sort_index") << n;
      if (n == "thread_name") {
        EXPECT_EQ(e.at("args").at("name").kind, json::Value::String);
        named.insert(int64_t(e.at("tid").num));
      }
    } else if (ph == "C") {
      ++counters;
      ASSERT_TRUE(e.has("ts") && e.has("args") && e.at("args").kind == json::Value::Object);
      for (const auto& [k, v] : e.at("args").obj) EXPECT_EQ(v.kind, json::Value::Number) << k;
    } else {
      FAIL() << "unexpected phase " << ph;
    }
  }
  uint64_t total = 0;
  for (auto& [tid, list] : slices) {
    EXPECT_TRUE(named.count(tid)) << "track " << tid << " has slices but no thread_name";
    std::sort(list.begin(), list.end());
    // An engine or queue executes one instruction at a time. ts and dur are printed to 1e-6 us each, so slices that
    // abut may seem to overlap by up to that much.
    for (size_t i = 1; i < list.size(); ++i)
      EXPECT_LE(list[i - 1].first + list[i - 1].second, list[i].first + 2e-6) << "overlap on track " << tid;
    total += list.size();
  }
  EXPECT_EQ(total, interpreterSteps());
  EXPECT_GT(counters, 0u);
  for (int64_t tid : {0, 1, 7, 8}) EXPECT_TRUE(slices.count(tid)) << tid;  // PE, ACT, both DMA queues

  const std::string vcd = readFile(vcd_path);
  for (const char* s : {"$var", "PE_busy", "ACT_busy", "SEQ_loop", "q0_ring_slots", "q1_ring_slots", "$enddefinitions"})
    EXPECT_NE(vcd.find(s), std::string::npos) << s;
  // Every activity signal this kernel exercises goes high at some point (DMA_issue: the issuer waits for the
  // copies before storing results, so it holds transfers for whole cycles).
  for (const char* signal : {"PE_busy", "ACT_busy", "DMA_issue", "SEQ_loop"}) {
    const std::string code = vcdCode(vcd, signal);
    ASSERT_FALSE(code.empty()) << signal;
    EXPECT_NE(vcd.find("\n1" + code + "\n"), std::string::npos) << signal << " is never high";
  }

  // The same run again: byte-identical files.
  const std::string json2 = dir + "sim_trace2.json", vcd2 = dir + "sim_trace2.vcd";
  ASSERT_EQ(allocsim(std::string("trace ") + kKernel + " -O2 --perfetto " + json2 + " --vcd " + vcd2).exit_code, 0);
  EXPECT_EQ(readFile(json2), text);
  EXPECT_EQ(readFile(vcd2), vcd);
}

// Standard output carries allocsim's report only, and SystemC's informational lines (I703 when a VCD is opened)
// appear on neither stream.
TEST(SimTrace, StandardOutputIsTheReportOnly) {
  const std::string vcd_path = testing::TempDir() + "sim_trace_stdout.vcd";
  CliRun r = allocsim(std::string("trace ") + kKernel + " -O2 --vcd " + vcd_path, "2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("I703"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Info:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.rfind(kKernel, 0), 0u) << r.out;  // the first line is the trace summary
  r = allocsim(std::string("trace ") + kKernel + " -O2 --vcd " + vcd_path, "2>&1 >/dev/null");
  EXPECT_EQ(r.out.find("I703"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Info:"), std::string::npos) << r.out;
}

// With a VCD the engines wait for an instruction's start and then its latency (so *_busy rises at the start);
// without one they wait once, to the end (sim/engine.h). Both must give the same cycles and stalls.
TEST(SimTrace, AVcdDoesNotChangeTheCycles) {
  for (const char* kernel : {kKernel, "corpus/kernels/attention_block_tiny.nki.txt",
                             "corpus/kernels/transpose_identity_tiny.nki.txt"}) {
    const std::string vcd_path = testing::TempDir() + "sim_trace_same_cycles.vcd";
    CliRun traced = allocsim(std::string("trace ") + kernel + " -O2 --vcd " + vcd_path, "2>/dev/null");
    CliRun plain = allocsim(std::string("run ") + kernel + " -O2", "2>/dev/null");
    ASSERT_EQ(traced.exit_code, 0) << traced.out;
    ASSERT_EQ(plain.exit_code, 0) << plain.out;
    auto cyclesLine = [](const std::string& out) {
      const size_t at = out.find("cycles: ");
      return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
    };
    EXPECT_FALSE(cyclesLine(plain.out).empty()) << plain.out;
    EXPECT_EQ(cyclesLine(traced.out), cyclesLine(plain.out)) << kernel;
  }
}

TEST(SimTrace, NeedsAnOutput) {
  EXPECT_EQ(allocsim(std::string("trace ") + kKernel).exit_code, 2);
}

}  // namespace
}  // namespace allocsim
