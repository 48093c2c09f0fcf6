// The interpreter's direct copy (ir/view.h copyView, used by dma): the same bytes and the same operand hash as a
// gather into a buffer, a hash of the buffer and a scatter, and no direct copy where the two views share bytes
// (the copy would read what it wrote). Also the hasher's streaming form it relies on (ir/hash.h Stream).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ir/hash.h"
#include "ir/parse.h"
#include "ir/physical_storage.h"
#include "ir/view.h"

namespace allocsim {
namespace {

TEST(HashStream, AnySplitGivesTheDigestOfTheWhole) {
  std::mt19937 rng(5);
  std::vector<uint8_t> buf(200);
  for (uint8_t& b : buf) b = uint8_t(rng());
  for (size_t n = 0; n <= buf.size(); ++n)
    for (int trial = 0; trial < 4; ++trial) {
      OperandHasher whole;
      whole.u64(n * 3 + 1);  // a state before the bytes, as an operand hash has
      whole.bytes(buf.data(), n);
      OperandHasher pieces;
      pieces.u64(n * 3 + 1);
      OperandHasher::Stream s(pieces, n);
      for (size_t at = 0; at < n;) {
        const size_t k = std::min<size_t>(n - at, rng() % 41);  // pieces of 0 to 40 bytes
        s.feed(buf.data() + at, k);
        at += k;
      }
      s.finish();
      ASSERT_EQ(pieces.digest(), whole.digest()) << n << " bytes, trial " << trial;
    }
}

TEST(HashStream, AnOffHasherStaysEmpty) {
  const uint8_t buf[40] = {1, 2, 3};
  OperandHasher off(false), empty(false);
  OperandHasher::Stream s(off, sizeof buf);
  s.feed(buf, sizeof buf);
  s.finish();
  EXPECT_EQ(off.digest(), empty.digest());
}

// A: DRAM bytes 16..47, B: DRAM bytes 24..55 (sharing A's last 24 bytes), X: its own DRAM, s: SBUF partitions 2..5.
const char* kProgram = R"(arch tiny
dram A [2, 8] u16 input @16
dram B [2, 8] u16 @24
dram X [2, 8] u16 output
sbuf s [4, 16] u16 @p2+8
)";

ResolvedView view(const Program& p, const char* tensor, uint32_t partition, uint32_t partitions, uint64_t offset,
                  uint32_t count, uint32_t step2 = 0, uint32_t count2 = 1) {
  ResolvedView v;
  v.tensor = p.findTensor(tensor);
  v.dtype = p.tensors[v.tensor].dtype;
  v.elem_size = dtypeSize(v.dtype);
  v.partition = partition, v.partitions = partitions, v.offset = offset;
  v.count = count, v.step2 = step2, v.count2 = count2;
  return v;
}

// What the interpreter did before copyView: gather, hash the buffer, scatter.
uint64_t copyThroughBuffer(Storage& s, const ResolvedView& src, const ResolvedView& dst) {
  std::vector<uint8_t> buf(src.bytes());
  gatherView(s, src, buf.data());
  OperandHasher h;
  h.bytes(buf.data(), buf.size());
  scatterView(s, dst, buf.data());
  return h.digest();
}

std::vector<uint8_t> bytesOf(Storage& s, const Program& p, const char* tensor) {
  const TensorId t = p.findTensor(tensor);
  std::vector<uint8_t> out;
  for (uint32_t q = 0; q < p.tensors[t].partitions; ++q) {
    const uint8_t* row = s.row(t, q);
    out.insert(out.end(), row, row + p.tensors[t].bytesPerPartition());
  }
  return out;
}

TEST(CopyView, CopiesAndHashesAsABufferWould) {
  const Program p = parseProgram(kProgram);
  struct Case {
    ResolvedView src, dst;
    const char* dst_name;
  } cases[] = {
      {view(p, "A", 0, 2, 0, 8), view(p, "X", 0, 2, 0, 8), "X"},            // whole rows
      {view(p, "A", 0, 2, 1, 3, 4, 2), view(p, "s", 1, 2, 4, 3, 5, 2), "s"},  // two runs per partition, strided
      {view(p, "s", 0, 2, 0, 4, 2, 3), view(p, "X", 0, 2, 1, 4, 1, 3), "X"},  // runs overlapping: later ones win
      {view(p, "A", 1, 1, 0, 8), view(p, "s", 3, 1, 2, 8), "s"},              // one 16-byte run
  };
  for (const Case& c : cases) {
    PhysicalStorage direct(p, 3), buffered(p, 3);
    OperandHasher h;
    ASSERT_TRUE(copyView(direct, c.src, c.dst, h));
    EXPECT_EQ(h.digest(), copyThroughBuffer(buffered, c.src, c.dst));
    EXPECT_EQ(bytesOf(direct, p, c.dst_name), bytesOf(buffered, p, c.dst_name));
  }
}

TEST(CopyView, RefusesViewsThatShareBytesOrDifferInRuns) {
  const Program p = parseProgram(kProgram);
  PhysicalStorage s(p, 3);
  OperandHasher h, untouched;
  // A's partition 0 elements 4..7 are DRAM bytes 24..31: B's partition 0 elements 0..3.
  EXPECT_FALSE(copyView(s, view(p, "A", 0, 1, 4, 4), view(p, "B", 0, 1, 0, 4), h));
  EXPECT_FALSE(copyView(s, view(p, "A", 0, 1, 0, 4), view(p, "A", 0, 1, 2, 4), h));  // in place, at an offset
  // The same elements in runs of different lengths: the caller gathers and scatters.
  EXPECT_FALSE(copyView(s, view(p, "A", 0, 1, 0, 4), view(p, "X", 0, 1, 0, 2, 2, 2), h));
  EXPECT_EQ(h.digest(), untouched.digest());
  // Disjoint bytes of one tensor are copied.
  EXPECT_TRUE(copyView(s, view(p, "A", 0, 1, 0, 2), view(p, "A", 1, 1, 0, 2), h));
  EXPECT_EQ(s.row(p.findTensor("A"), 1)[3], s.row(p.findTensor("A"), 0)[3]);
}

}  // namespace
}  // namespace allocsim
