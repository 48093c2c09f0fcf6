// Physical storage (ir/physical_storage.h) and its geometry (ir/machine_layout.h): where each tensor's bytes and
// each register's lanes live, that placements sharing bytes really share them, poison that depends on the seed,
// and the errors for programs that cannot be placed on the machine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/physical_storage.h"
#include "ir/view.h"

namespace allocsim {
namespace {

const char* kProgram = R"(arch tiny
dram A [2, 4] u32 input @16
dram B [2, 4] u32 @24
dram X [2, 4] u32 output
sbuf s [4, 8] u32 @p2+8
psum acc [8, 16] u32 @bank1
reg w 64 @r1
reg k @r2
)";

TEST(MachineLayout, LocatesEveryKindOfTensor) {
  Program p = parseProgram(kProgram);
  MachineLayout l(p);
  EXPECT_EQ(l.locate(p.findTensor("s"), 1, 4), (PhysicalByte{PhysRegion::Sbuf, 3, 12, kNone}));
  EXPECT_EQ(l.describe(p.findTensor("s"), 1, 4), "SBUF p3 byte 12");
  // PSUM @bank1, partition 2, element 3: row 2, byte 1*256 + 3*4.
  EXPECT_EQ(l.locate(p.findTensor("acc"), 2, 12), (PhysicalByte{PhysRegion::Psum, 2, 268, kNone}));
  EXPECT_EQ(l.describe(p.findTensor("acc"), 2, 12), "PSUM p2 bank 1 byte 12");
  // DRAM row-major: 16 + (1*4 + 1)*4.
  EXPECT_EQ(l.locate(p.findTensor("A"), 1, 4), (PhysicalByte{PhysRegion::Dram, 0, 36, kNone}));
  EXPECT_EQ(l.describe(p.findTensor("A"), 1, 4), "DRAM byte 36");
  TensorId x = p.findTensor("X");
  EXPECT_EQ(l.locate(x, 1, 0), (PhysicalByte{PhysRegion::OwnDram, 0, 16, x}));
  EXPECT_EQ(l.describe(x, 1, 0), "DRAM 'X' (own buffer) byte 16");
  EXPECT_EQ(l.describe(l.locate(p.findTensor("s"), 0, 0), 4), "SBUF p2 bytes 8..11");
  EXPECT_EQ(l.sharedDramBytes(), 56u);  // B ends at 24 + 32
  EXPECT_EQ(l.firstLane(p.findRegister("w")), 1u);
  EXPECT_EQ(l.lanes(p.findRegister("w")), 2u);
}

TEST(MachineLayout, ElementAtInvertsLocate) {
  Program p = parseProgram(kProgram);
  MachineLayout l(p);
  TensorId a = p.findTensor("A"), b = p.findTensor("B"), s = p.findTensor("s");
  // A [16, 48) and B [24, 56) share bytes 24..47: byte 40 is A[1, 2] and B[0, 4 - 0]... B[0, 4] does not exist,
  // B has 4 elements per partition, so byte 40 is B[1, 0].
  PhysicalByte byte40{PhysRegion::Dram, 0, 40, kNone};
  ASSERT_TRUE(l.elementAt(a, byte40));
  EXPECT_EQ(l.elementAt(a, byte40)->partition, 1u);
  EXPECT_EQ(l.elementAt(a, byte40)->element, 2u);
  EXPECT_EQ(l.elementAt(b, byte40)->partition, 1u);
  EXPECT_EQ(l.elementAt(b, byte40)->element, 0u);
  EXPECT_FALSE(l.elementAt(s, byte40));
  EXPECT_FALSE(l.elementAt(s, PhysicalByte{PhysRegion::Sbuf, 1, 8, kNone}));   // row above the tensor
  EXPECT_FALSE(l.elementAt(s, PhysicalByte{PhysRegion::Sbuf, 2, 40, kNone}));  // byte past its row
  EXPECT_EQ(l.elementAt(s, PhysicalByte{PhysRegion::Sbuf, 5, 39, kNone})->element, 7u);
}

TEST(MachineLayout, CoversFollowsTheViewsSecondDimension) {
  Program p = parseProgram(kProgram);
  MachineLayout l(p);
  ResolvedView v;  // s[1:2, 1:2, 4:2]: elements 1, 2, 5, 6 of partitions 1 and 2
  v.tensor = p.findTensor("s");
  v.partition = 1;
  v.partitions = 2;
  v.offset = 1;
  v.count = 2;
  v.step2 = 4;
  v.count2 = 2;
  auto at = [&](uint32_t q, uint64_t e) { return l.locate(v.tensor, q, e * 4 + 3); };
  for (uint64_t e : {1, 2, 5, 6}) EXPECT_TRUE(l.covers(v, at(1, e))) << e;
  for (uint64_t e : {0, 3, 4, 7}) EXPECT_FALSE(l.covers(v, at(1, e))) << e;
  EXPECT_TRUE(l.covers(v, at(2, 6)));
  EXPECT_FALSE(l.covers(v, at(0, 1)));
  EXPECT_FALSE(l.covers(v, at(3, 1)));
}

TEST(PhysicalStorage, TensorsPlacedOnTheSameBytesShareThem) {
  Program p = parseProgram(kProgram);
  PhysicalStorage s(p, 7);
  TensorId a = p.findTensor("A"), b = p.findTensor("B");
  s.row(a, 1)[8] = 0xab;  // A[1, 2] byte 0 = DRAM byte 40 = B[1, 0] byte 0
  EXPECT_EQ(s.row(b, 1)[0], 0xab);
  EXPECT_EQ(s.byteAt({PhysRegion::Dram, 0, 40, kNone}), 0xab);
  s.row(p.findTensor("s"), 1)[4] = 0x5c;
  EXPECT_EQ(s.byteAt({PhysRegion::Sbuf, 3, 12, kNone}), 0x5c);
  s.row(p.findTensor("acc"), 2)[12] = 0x3d;
  EXPECT_EQ(s.byteAt({PhysRegion::Psum, 2, 268, kNone}), 0x3d);
  TensorId x = p.findTensor("X");
  s.row(x, 1)[0] = 0x11;
  EXPECT_EQ(s.byteAt({PhysRegion::OwnDram, 0, 16, x}), 0x11);
}

TEST(PhysicalStorage, A64BitRegisterUsesTwoLanesLowFirst) {
  Program p = parseProgram(kProgram);
  PhysicalStorage s(p, 7);
  RegId w = p.findRegister("w"), k = p.findRegister("k");
  s.writeReg(w, 0x1122334455667788ULL);
  EXPECT_EQ(s.lane(1), 0x55667788u);
  EXPECT_EQ(s.lane(2), 0x11223344u);
  EXPECT_EQ(s.readReg(k), 0x11223344u);  // k @r2 shares w's high lane
  s.writeReg(k, 0xffffffff12345678ULL);  // truncated to 32 bits
  EXPECT_EQ(s.readReg(k), 0x12345678u);
  EXPECT_EQ(s.readReg(w), 0x1234567855667788ULL);
}

TEST(PhysicalStorage, PoisonDependsOnTheSeed) {
  Program p = parseProgram(kProgram);
  PhysicalStorage s0(p, 0), s1(p, 1), s1again(p, 1);
  auto word = [](PhysicalStorage& s, TensorId t, uint32_t q) {
    uint32_t v = 0;
    for (int b = 0; b < 4; ++b) v |= uint32_t(s.row(t, q)[b]) << (8 * b);
    return v;
  };
  for (const char* name : {"s", "acc", "B", "X"}) {
    TensorId t = p.findTensor(name);
    EXPECT_NE(word(s0, t, 1), word(s1, t, 1)) << name;
    EXPECT_EQ(word(s1, t, 1), word(s1again, t, 1)) << name;
  }
  EXPECT_NE(s0.readReg(p.findRegister("w")), s1.readReg(p.findRegister("w")));
  EXPECT_EQ(s1.readReg(p.findRegister("w")), s1again.readReg(p.findRegister("w")));
  // SBUF and PSUM do not start with the same pattern.
  EXPECT_NE(s0.byteAt({PhysRegion::Sbuf, 0, 0, kNone}) | s0.byteAt({PhysRegion::Sbuf, 0, 1, kNone}) << 8,
            s0.byteAt({PhysRegion::Psum, 0, 0, kNone}) | s0.byteAt({PhysRegion::Psum, 0, 1, kNone}) << 8);
}

TEST(PhysicalStorage, PoisonDoesNotDependOnWhichRowIsTouchedFirst) {
  // Poison is laid down 4 KiB at a time on first touch; T spans two such chunks of shared DRAM.
  Program p = parseProgram("arch tiny\ndram T [1, 50] u32 @4000\ndram U [1, 4] u32 @4090\n");
  TensorId t = p.findTensor("T"), u = p.findTensor("U");
  PhysicalStorage first_t(p, 5), first_u(p, 5);
  std::vector<uint8_t> a(first_t.row(t, 0), first_t.row(t, 0) + 200);
  first_u.row(u, 0);
  std::vector<uint8_t> b(first_u.row(t, 0), first_u.row(t, 0) + 200);
  EXPECT_EQ(a, b);
  EXPECT_EQ(first_t.byteAt({PhysRegion::Dram, 0, 4100, kNone}), a[100]);
}

TEST(PhysicalStorage, RunsAProgramLikePrivateStorage) {
  Program p = parseProgram(R"(arch tiny
dram A [8, 16] u32 input
dram C [8, 16] u32 output
sbuf a [8, 16] u32 @p0+0
sbuf b [8, 16] u32 @p0+64
reg n @r3

loop n = 0, 2, 1 {
  dma a[:, n*8:8], A[:, n*8:8]
}
ts b, a, 3, add
dma C, b
)");
  PhysicalStorage s(p, 42);
  InterpOptions o;
  EXPECT_EQ(interpret(p, s, o).outputs, interpret(p, o).outputs);
}

std::string storageError(const std::string& decls) {
  try {
    PhysicalStorage s(parseProgram("arch tiny\n" + decls), 0);
  } catch (const InputError& e) {
    std::string text = e.format("f");
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }
  return "no error";
}

TEST(PhysicalStorage, RejectsWhatCannotBePlacedAtTheDeclaration) {
  EXPECT_EQ(storageError("sbuf a [8, 4] u32 @p0+0\nsbuf bb [8, 4] u32\n"),
            "f:3:6: sbuf tensor 'bb' has no placement; physical execution needs every SBUF and PSUM tensor placed");
  EXPECT_EQ(storageError("psum acc [8, 4] u32\n"),
            "f:2:6: psum tensor 'acc' has no placement; physical execution needs every SBUF and PSUM tensor placed");
  EXPECT_EQ(storageError("reg n\n"),
            "f:2:5: register 'n' has no placement; physical execution needs every register placed");
  EXPECT_EQ(storageError("sbuf a [8, 4] u32 @p1+0\n"),
            "f:2:6: placement @p1+0 of 'a' [8, 4] (16 bytes per partition) exceeds SBUF (8 partitions, 4096 bytes)");
  EXPECT_EQ(storageError("sbuf a [8, 4] u32 @p0+4084\n"),
            "f:2:6: placement @p0+4084 of 'a' [8, 4] (16 bytes per partition) exceeds SBUF (8 partitions, 4096 bytes)");
  EXPECT_EQ(storageError("psum acc [8, 128] u32 @bank3\n"),
            "f:2:6: placement @bank3 of 'acc' (2 banks) exceeds PSUM (4 banks)");
  EXPECT_EQ(storageError("reg w 64 @r3\n"),
            "f:2:5: placement @r3 of register 'w' (2 lanes) exceeds the 4 SP registers");
  EXPECT_EQ(storageError("dram D [8, 4] u32 @16777200\n"),
            "f:2:6: placement @16777200 of 'D' (128 bytes) exceeds dram-limit 16777216");
}

TEST(PhysicalStorage, BoundsWhatItAllocates) {
  Program p = parseProgram("arch tiny\nsbuf a [8, 4] u32 @p0+0\n");
  EXPECT_THROW(PhysicalStorage(p, 0, 1000), InputError);  // tiny SBUF alone is 32 KiB
  EXPECT_NO_THROW(PhysicalStorage(p, 0, 1 << 20));
}

}  // namespace
}  // namespace allocsim
