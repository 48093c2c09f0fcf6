// minimalloc's CSV, the import into a program and the export back (ir/minimalloc_csv.h, ir/minimalloc_import.h):
// bad input with its line and column, and on every benchmark file: the imported program is well-formed, and two
// tensors interfere under alloc/liveness.h exactly when their buffers' half-open intervals overlap.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "alloc/liveness.h"
#include "ir/check.h"
#include "ir/minimalloc_import.h"
#include "ir/parse.h"
#include "ir/print.h"

namespace allocsim {
namespace {

std::string benchFile(const std::string& name) {
  std::ifstream f(std::string(ALLOCSIM_SOURCE_DIR) + "/bench/minimalloc/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const char* const kBenchmarks[] = {"A.1048576.csv", "B.1048576.csv", "C.1048576.csv", "D.1048576.csv",
                                   "E.1048576.csv", "F.1048576.csv", "G.1048576.csv", "H.1048576.csv",
                                   "I.1048576.csv", "J.1048576.csv", "K.1048576.csv", "input.12.csv"};

std::string parseError(const std::string& text) {
  try {
    parseMinimallocCsv(text);
  } catch (const InputError& e) {
    return e.format("f.csv");
  }
  return "";
}

TEST(MinimallocCsv, BadInputNamesLineAndColumn) {
  EXPECT_EQ(parseError("id,lo,upper,size\n"),
            "f.csv:1:1: expected the header 'id,lower,upper,size' (or with ',offset'), got 'id,lo,upper,size'\n");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,x2,3\n"), "f.csv:2:5: upper 'x2' is not an integer (64-bit)\n");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,2\n"), "f.csv:2:6: expected 4 fields, got 3\n");
  EXPECT_EQ(parseError("id,lower,upper,size\n0,1,2,3,4\n"), "f.csv:2:9: expected 4 fields, got 5\n");
  EXPECT_EQ(parseError("id,lower,upper,size\na,0,2,3\na,1,2,3\n"), "f.csv:3:1: duplicate buffer id 'a'\n");
  EXPECT_EQ(parseError("id,lower,upper,size\na,2,2,3\n"),
            "f.csv:2:5: buffer 'a' lives over [2, 2), which is empty: upper must exceed lower\n");
  EXPECT_EQ(parseError("id,lower,upper,size\na,0,2,0\n"), "f.csv:2:7: size 0 must be positive\n");
  EXPECT_EQ(parseError("id,lower,upper,size\na-b,0,2,4\n"),
            "f.csv:2:1: buffer id 'a-b' must be letters, digits, '_' or '.'\n");
  EXPECT_EQ(parseError(""), "f.csv:1:1: empty file: expected the header 'id,lower,upper,size'\n");
  EXPECT_EQ(parseError("id,lower,upper,size\r\n a , 0 , 2 , 4 \r\n"), "");  // blanks and CRLF are tolerated
}

TEST(MinimallocCsv, CapacityFromTheFileNameAndTheLowerBound) {
  EXPECT_EQ(capacityFromFileName("bench/minimalloc/A.1048576.csv"), 1048576u);
  EXPECT_EQ(capacityFromFileName("input.12.csv"), 12u);
  EXPECT_EQ(capacityFromFileName("input.csv"), std::nullopt);
  EXPECT_EQ(capacityFromFileName("a.12x.csv"), std::nullopt);
  // input.12.csv: b1 [0,3), b3 [0,9), b5 [0,21) are live together, 4 bytes each; touching intervals do not add.
  EXPECT_EQ(maxLiveBytes(parseMinimallocCsv(benchFile("input.12.csv"))), 12u);
  EXPECT_EQ(maxLiveBytes(parseMinimallocCsv("id,lower,upper,size\na,0,5,4\nb,5,9,8\n")), 8u);
}

TEST(MinimallocCsv, PrintParseRoundTripWithOffsets) {
  MinimallocProblem p = parseMinimallocCsv("id,lower,upper,size,offset\na,0,5,4,8\nb,5,9,8,0\n");
  EXPECT_EQ(p.buffers[0].offset, 8);
  EXPECT_EQ(printMinimallocCsv(p), "id,lower,upper,size,offset\na,0,5,4,8\nb,5,9,8,0\n");
}

// A long file tells a progress line how far the reading and the writing are: counts that grow, up to the lines read
// and the instructions written (two per buffer at least: its definition and its last use).
TEST(MinimallocCsv, ProgressCountsLinesReadAndInstructionsWritten) {
  const uint64_t buffers = 3 * kProgressSteps;
  std::string csv = "id,lower,upper,size\n";
  for (uint64_t i = 0; i < buffers; ++i)
    csv += std::to_string(i) + "," + std::to_string(i) + "," + std::to_string(i + 2) + ",4\n";
  std::vector<std::pair<std::string, uint64_t>> heard;
  const ProgressFn progress = [&](const char* phase, uint64_t done, const char*) { heard.emplace_back(phase, done); };
  const MinimallocProblem p = parseMinimallocCsv(csv, &progress);
  ASSERT_EQ(p.buffers.size(), buffers);
  std::vector<uint64_t> lines;
  for (const auto& [phase, done] : heard) {
    EXPECT_EQ(phase, "reading the file");
    lines.push_back(done);
  }
  EXPECT_EQ(lines, (std::vector<uint64_t>{kProgressSteps, 2 * kProgressSteps, 3 * kProgressSteps}));
  heard.clear();
  const std::string text = importMinimallocText(p, 1 << 20, &progress);
  ASSERT_GE(heard.size(), 2 * buffers / kProgressSteps);
  uint64_t last = 0;
  for (const auto& [phase, done] : heard) {
    EXPECT_EQ(phase, "writing the program");
    EXPECT_GT(done, last);
    last = done;
  }
  EXPECT_EQ(text, importMinimallocText(p, 1 << 20));  // the same text with or without a listener
}

TEST(MinimallocImport, EveryBenchmarkGivesTheIntervalsExactly) {
  for (const char* name : kBenchmarks) {
    SCOPED_TRACE(name);
    const MinimallocProblem mp = parseMinimallocCsv(benchFile(name));
    ASSERT_GT(mp.buffers.size(), 4u);
    const Program p = importMinimalloc(mp, *capacityFromFileName(name));
    EXPECT_NO_THROW(requireWellFormed(p));
    EXPECT_EQ(parseProgram(printProgram(p)), p);
    const Liveness live = computeLiveness(p);
    uint64_t pairs = 0;
    for (size_t i = 0; i < mp.buffers.size(); ++i) {
      const TensorId ti = p.findTensor(minimallocTensorName(mp.buffers[i].id));
      ASSERT_NE(ti, kNone);
      EXPECT_EQ(int64_t(p.tensors[ti].bytesPerPartition()), mp.buffers[i].size);
      for (size_t j = i + 1; j < mp.buffers.size(); ++j) {
        const MinimallocBuffer &a = mp.buffers[i], &b = mp.buffers[j];
        const bool overlap = a.lower < b.upper && b.lower < a.upper;
        const TensorId tj = p.findTensor(minimallocTensorName(b.id));
        EXPECT_EQ(interferes(live.tensors[ti], live.tensors[tj]), overlap) << a.id << " " << b.id;
        pairs += overlap;
      }
    }
    EXPECT_GT(pairs, 0u);
  }
}

TEST(MinimallocImport, TimesTooSpreadToKeepExactlyKeepTheirOrder) {
  // gcd 1 over a span of 10^9: more units than the budget of max(1024, 32 x buffers), so the times keep their order
  // and roughly their spacing in that many units; interference is still exactly the intervals'.
  const MinimallocProblem mp = parseMinimallocCsv(
      "id,lower,upper,size\na,0,1000000007,4\nb,1,5,4\nc,5,1000000007,4\nd,3,999999999,4\ne,1000000000,1000000007,4\n");
  const Program p = importMinimalloc(mp, 64);
  EXPECT_NO_THROW(requireWellFormed(p));
  EXPECT_LE(p.body.size(), 2 * (1024 + 7) + 10);  // 7 distinct times: 1031 units of two slots, 10 events
  const Liveness live = computeLiveness(p);
  for (size_t i = 0; i < mp.buffers.size(); ++i)
    for (size_t j = 0; j < mp.buffers.size(); ++j) {
      const MinimallocBuffer &a = mp.buffers[i], &b = mp.buffers[j];
      EXPECT_EQ(interferes(live.tensors[i], live.tensors[j]), a.lower < b.upper && b.lower < a.upper) << a.id << b.id;
    }
}

TEST(MinimallocImport, ArchAndDtypes) {
  const Program p = importMinimalloc(parseMinimallocCsv("id,lower,upper,size\na,0,5,4\nb,1,9,6\n"), 64);
  EXPECT_EQ(p.arch.sbuf_partitions, 1u);
  EXPECT_EQ(p.arch.sbuf_bytes, 64u);
  EXPECT_EQ(p.arch.sbuf_align, 1u);
  EXPECT_EQ(p.tensors[0].dtype, DType::U32);
  EXPECT_EQ(p.tensors[1].dtype, DType::U16);  // 6 bytes: 3 two-byte elements
  EXPECT_EQ(p.tensors[1].elements, 3u);
}

// An odd size has no dtype of its own: the whole problem is doubled (sizes, capacity, alignment 2), and an
// allocation of the doubled problem exports at half its offsets.
TEST(MinimallocImport, OddSizesDoubleTheProblem) {
  const MinimallocProblem mp = parseMinimallocCsv("id,lower,upper,size\na,0,5,3\nb,1,9,4\n");
  Program p = importMinimalloc(mp, 7);
  EXPECT_NO_THROW(requireWellFormed(p));
  EXPECT_EQ(p.arch.sbuf_bytes, 14u);
  EXPECT_EQ(p.arch.sbuf_align, 2u);
  EXPECT_EQ(p.tensors[0].bytesPerPartition(), 6u);
  EXPECT_EQ(p.tensors[1].bytesPerPartition(), 8u);
  p.tensors[0].placement = Placement{0, 8, 0};  // bytes 8..13 of 14: buffer a at 4..6 of 7
  p.tensors[1].placement = Placement{0, 0, 0};
  const MinimallocProblem s = exportMinimalloc(p, mp);
  EXPECT_EQ(s.buffers[0].offset, 4);
  EXPECT_EQ(s.buffers[1].offset, 0);
  p.tensors[0].placement = Placement{0, 7, 0};  // odd: no placement of the original problem
  EXPECT_THROW(exportMinimalloc(p, mp), InputError);
}

// The text import writes what printing the imported program writes, without building its instructions.
TEST(MinimallocImport, TextImportIsThePrintedProgram) {
  for (const char* csv : {"id,lower,upper,size\na,0,5,4\nb,1,9,6\nc,5,6,2\n",
                          "id,lower,upper,size\na,0,1000000007,4\nb,1,5,3\nc,5,1000000007,4\n",
                          "id,lower,upper,size\nx,10,20,8\ny,40,50,8\n"}) {
    const MinimallocProblem mp = parseMinimallocCsv(csv);
    EXPECT_EQ(importMinimallocText(mp, 64), printProgram(importMinimalloc(mp, 64))) << csv;
  }
}

// A header and no rows is no problem to solve or import: refused at the header's line.
TEST(MinimallocCsv, AHeaderAloneIsRefused) {
  try {
    parseMinimallocCsv("\nid,lower,upper,size\n\n");
    FAIL() << "a header alone parsed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.format("f.csv"), "f.csv:2:1: no buffers: the file has its header and no rows\n");
  }
}

TEST(MinimallocImport, ExportReadsTheOffsetsAndRefusesWhatIsNotTheProblem) {
  const MinimallocProblem mp = parseMinimallocCsv("id,lower,upper,size\na,0,5,4\nb,1,9,8\n");
  Program p = importMinimalloc(mp, 64);
  p.tensors[0].placement = Placement{0, 8, 0};
  p.tensors[1].placement = Placement{0, 12, 0};
  const MinimallocProblem s = exportMinimalloc(p, mp);
  EXPECT_EQ(s.buffers[0].offset, 8);
  EXPECT_EQ(s.buffers[1].offset, 12);
  p.tensors[1].placement.reset();
  EXPECT_THROW(exportMinimalloc(p, mp), InputError);
  EXPECT_THROW(exportMinimalloc(p, parseMinimallocCsv("id,lower,upper,size\nc,0,5,4\n")), InputError);
}

}  // namespace
}  // namespace allocsim
