// Streaming (sim/stream.h): an engine reads, computes and writes an instruction's elements chunk by
// chunk, so a destination placed over its own source at an offset reads, in a later chunk, what an earlier chunk
// wrote. The expected values are derived from the inputs and the chunk size of the timing table, not from the
// simulator; the interpreter (atomic) gives the other result, and the placement oracle flags the allocation.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "ir/inputs.h"
#include "ir/parse.h"
#include "sim/simulate.h"
#include "tests/common/sim_checks.h"
#include "verify/correct.h"

namespace allocsim {
namespace {

// y[i] sits on x[i + 1] (y is placed 4 bytes, one u32, into x): `copy y, x[:, 0:200]` overwrites x one element
// ahead of where it reads.
const char kShifted[] = R"(arch tiny
dram X [8, 256] u32 input
dram Y [8, 200] u32 output
sbuf x [8, 256] u32 @p0+0
sbuf y [8, 200] u32 @p0+4
dma x, X
copy y, x[:, 0:200]
dma Y, y
)";

uint32_t word(const std::vector<uint8_t>& bytes, size_t index) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + 4 * index, 4);
  return v;
}

TEST(SimStream, DestinationOverItsSourceAtAnOffsetGivesTheHardwareOrder) {
  const Program p = parseProgram(kShifted);
  const TensorId X = 0, Y = 1;
  const std::vector<uint8_t> in = makeInputs(p, 1)[X];
  sim::SimOptions o;
  o.timing = sim::TimingTable::defaults();
  o.poison_seed = 3;
  const uint32_t chunk = o.timing->stream_chunk_elements;
  ASSERT_GT(chunk, 1u);
  ASSERT_LT(chunk, 200u);  // several chunks per partition
  sim::SimResult r = sim::simulate(p, o);
  const std::vector<uint8_t>& out = r.exec.outputs[Y];
  ASSERT_EQ(out.size(), 8u * 200 * 4);
  // Chunk k (k >= 1) reads x[k*chunk], which chunk k-1 has just overwritten with x[k*chunk - 1]; every other
  // element is read before anything writes it.
  size_t changed = 0;
  for (size_t part = 0; part < 8; ++part)
    for (size_t i = 0; i < 200; ++i) {
      const size_t from = i > 0 && i % chunk == 0 ? i - 1 : i;
      ASSERT_EQ(word(out, part * 200 + i), word(in, part * 256 + from)) << "partition " << part << " element " << i;
      changed += from != i && word(in, part * 256 + from) != word(in, part * 256 + i);
    }
  EXPECT_GT(changed, 0u);  // the inputs make the difference visible

  // The interpreter applies the copy at once: Y = X[:, 0:200]. The simulator disagrees, and says where.
  const InterpResult ref = interpretPhysical(p, 3);
  for (size_t part = 0; part < 8; ++part)
    for (size_t i = 0; i < 200; ++i) ASSERT_EQ(word(ref.outputs[Y], part * 200 + i), word(in, part * 256 + i));
  EXPECT_NE(ref.outputs[Y], out);
  ASSERT_EQ(r.stats.self_overlaps.size(), 1u);
  EXPECT_EQ(r.stats.self_overlaps[0].inst->op, Op::Copy);
  EXPECT_EQ(r.stats.self_overlaps[0].executions, 1u);
  EXPECT_EQ(r.stats.self_overlaps[0].differing, 1u);

  // The placement oracle flags the allocation that made it possible: y on x while x is still read.
  CorrectnessOptions check;
  check.verify.poison_seed = 3;
  const Verdict v = checkAllocation(p, check);
  EXPECT_EQ(v.defect, Defect::Findings);
  bool flagged = false;
  for (const Finding& f : v.report.findings)
    flagged |= f.oracle == Oracle::Placement && f.kind == FindingKind::Overlap && f.message.find("'y'") != std::string::npos &&
               f.message.find("'x'") != std::string::npos;
  EXPECT_TRUE(flagged);
}

TEST(SimStream, OneChunkOrInPlaceIsTheAtomicResult) {
  // A chunk as wide as the view: everything is read before anything is written, as in the interpreter.
  const Program p = parseProgram(kShifted);
  sim::SimOptions o;
  o.timing = sim::TimingTable::defaults();
  o.timing->apply("stream.chunk-elements 200\n");
  sim::SimResult wide = expectSimulatorMatchesInterpreter(p, 3, o);
  ASSERT_EQ(wide.stats.self_overlaps.size(), 1u);  // still an overlap at an offset, streamed in one chunk
  EXPECT_EQ(wide.stats.self_overlaps[0].differing, 0u);

  // In place, element for element (dst is src): every chunk reads its own elements before writing them.
  const Program in_place = parseProgram(R"(arch tiny
dram X [8, 256] f32 input
dram Y [8, 256] f32 output
sbuf x [8, 256] f32 @p0+0
dma x, X
act x, x, relu
tt x, x, x, add
dma Y, x
)");
  sim::SimResult r = expectSimulatorMatchesInterpreter(in_place, 3);
  EXPECT_TRUE(r.stats.self_overlaps.empty());
}

}  // namespace
}  // namespace allocsim
