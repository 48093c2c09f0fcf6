// Matmul accumulation groups: straight-line groups of several matmuls, K-loops written with start@first /
// stop@last, groups that open before a loop and close after it, and PSUM tensors of several banks filled
// one bank-sized piece per group (possibly in a loop over the pieces, or every piece in one K-loop).
#include <algorithm>

#include "gen/generator.h"

namespace allocsim::gen {

// The shape of one matmul statement's PSUM accumulator, chosen by chooseMatmulShape, and the bound on its values.
struct MatmulPlan {
  DType dt = DType::F32;   // the SBUF operands' dtype
  DType pdt = DType::F32;  // the accumulator's
  uint32_t M = 0;          // the accumulator's partitions (the stationary operand's columns)
  uint32_t N = 0;          // elements per piece
  uint32_t bankElems = 0;  // elements of one bank
  uint32_t pieces = 0;     // bank-sized pieces, one accumulation group each
  bool partialLast = false;
  uint32_t lastN = 0;  // elements of the last piece
  uint64_t cap = 0;    // elementCap()
  TensorId ps = kNone;
  double mag = 0;

  // dst becomes piece j of the tensor: a bank's elements, fewer in a partly used last bank.
  void pieceAt(AccessPattern& dst, uint32_t j) const {
    dst.offset.constant = int64_t(j) * bankElems;
    dst.count = j + 1 == pieces ? lastN : N;
  }
};

// A PSUM accumulator of one or several bank-sized pieces, each filled by an accumulation group: one group per piece,
// a loop over the pieces with one group in its body, or one K-loop accumulating every piece.
void Generator::matmulStatement() {
  MatmulPlan p;
  chooseMatmulShape(p);
  AccessPattern dst = whole(p.ps);
  dst.count = p.N;
  if (p.pieces > 1 && !p.partialLast && depth() < kMaxLoopDepth && p.pieces <= tripRoom() && yes(40)) {
    openLoop(0, p.pieces, 1);
    dst.offset = regIndex(scopes_.back().var, p.bankElems);
    accumulationGroup(p, dst);
    closeLoop();
  } else if (p.pieces > 1 && depth() < kMaxLoopDepth && yes(30)) {
    interleavedPieces(p, dst);
  } else {
    for (uint32_t j = 0; j < p.pieces; ++j) {
      p.pieceAt(dst, j);
      accumulationGroup(p, dst);
    }
  }
  openPsumBanks_ -= p.pieces;
  ts_[p.ps].piecesLeft = 0;
  ts_[p.ps].mag = isFloat(p.pdt) ? p.mag : 0;
  addToPool(p.ps);
}

// The dtypes, the accumulator's shape and pieces; makes room for it in PSUM and adds it.
void Generator::chooseMatmulShape(MatmulPlan& p) {
  const Arch& arch = prog_.arch;
  const uint32_t P = arch.sbuf_partitions;
  p.dt = anyDType();
  p.pdt = isFloat(p.dt) ? DType::F32 : (yes(50) ? DType::I32 : DType::U32);
  // The accumulator is evacuated to an SBUF tensor of its shape, which must fit a partition: on a machine whose SBUF
  // partition is smaller than the PSUM (`--sbuf-bytes 512` on tiny) a 4-bank accumulator made an ill-formed program.
  const uint32_t sbufElems = std::max<uint32_t>(1, arch.sbuf_bytes / 4);
  p.bankElems = std::min(arch.psum_bank_bytes / 4, sbufElems);
  // The stationary operand [K, M] holds M elements in each partition: at most a partition's f32 elements.
  uint32_t M = std::min(yes(60) ? P : uint32_t(between(1, P)), sbufElems);
  // Several banks per tensor, up to half the pressure target, so a few tensors reach the target together; some
  // tensors draw from every bank count up to the whole target (at the default pressure, every count up to the
  // capacity: the colorers' and the bank arithmetic's edge cases).
  const uint32_t capacityPieces = std::max<uint32_t>(1, std::min(arch.psum_banks, sbufElems / p.bankElems));
  const uint32_t maxPieces = std::clamp<uint32_t>(yes(35) ? psumTarget_ : psumTarget_ / 2, 1, capacityPieces);
  p.pieces = uint32_t(between(1, maxPieces));
  p.N = p.pieces > 1 ? p.bankElems : uint32_t(between(1, p.bankElems));
  // A multi-bank tensor whose last bank is partly used (its bank count rounds up), unless one loop covers the pieces.
  p.partialLast = p.pieces > 1 && p.bankElems > 1 && yes(30);
  p.lastN = p.partialLast ? uint32_t(between(1, p.bankElems - 1)) : p.N;
  p.cap = elementCap();
  p.M = uint32_t(std::clamp<uint64_t>(p.cap / (uint64_t(p.pieces - 1) * p.N + p.lastN), 1, M));
  makePsumRoom(p.pieces);
  p.ps = addTensor(Space::Psum, p.M, (p.pieces - 1) * p.N + p.lastN, p.pdt, "ps");
  openPsumBanks_ += p.pieces;
  ts_[p.ps].piecesLeft = p.pieces;
}

// One K-loop accumulating every piece, their groups interleaved (as a kernel tiles N inside its K loop, the inner
// loop unrolled): each piece opens on the first iteration and closes on the last, between the other pieces'
// matmuls. The PSUM spill planner has no save point for such a loop (alloc/psum/psum_def_regions.cpp).
void Generator::interleavedPieces(MatmulPlan& p, AccessPattern& dst) {
  const uint64_t kt = std::min(2 + upTo(yes(70) ? 2 : 6), tripRoom());
  openLoop(0, int64_t(kt), 1);
  std::vector<double> pieceMag(p.pieces, 0.0);
  for (uint32_t j = 0; j < p.pieces; ++j) {
    p.pieceAt(dst, j);
    emitMatmul(p, dst, When::First, When::Last, pieceMag[j]);
  }
  closeLoop();
  for (double m : pieceMag) p.mag = std::max(p.mag, m);
}

// One accumulation group into dst: straight-line matmuls, a K-loop (start on the first iteration, stop on the last),
// or a group opened before a loop, accumulated in it and closed after it.
void Generator::accumulationGroup(MatmulPlan& p, const AccessPattern& dst) {
  double groupMag = 0;
  const bool loopOk = depth() < kMaxLoopDepth;
  switch (weighted({5, loopOk ? 5u : 0u, loopOk ? 2u : 0u})) {
    case 1: {  // K-loop: start on the first iteration, stop on the last
      const uint64_t kt = std::min(2 + upTo(yes(70) ? 2 : 6), tripRoom());  // 1 when capped: starts and stops
      int64_t lo = yes(20) ? 1 : 0;
      openLoop(lo, lo + int64_t(kt), 1);
      uint32_t n = 1 + uint32_t(yes(30));
      for (uint32_t j = 0; j < n; ++j)
        emitMatmul(p, dst, j == 0 ? When::First : When::Never, j + 1 == n ? When::Last : When::Never, groupMag);
      closeLoop();
      break;
    }
    case 2: {  // opened before a loop, accumulated in it, closed after it
      emitMatmul(p, dst, When::Always, When::Never, groupMag);
      openLoop(0, int64_t(std::min(1 + upTo(3), tripRoom())), 1);
      emitMatmul(p, dst, When::Never, When::Never, groupMag);
      closeLoop();
      emitMatmul(p, dst, When::Never, When::Always, groupMag);
      break;
    }
    default: {
      uint32_t n = 1 + uint32_t(upTo(2));
      for (uint32_t j = 0; j < n; ++j)
        emitMatmul(p, dst, j == 0 ? When::Always : When::Never, j + 1 == n ? When::Always : When::Never, groupMag);
    }
  }
  p.mag = std::max(p.mag, groupMag);
}

// One matmul into dst with a drawn contraction size K; adds the bound on what it accumulates to groupMag.
void Generator::emitMatmul(const MatmulPlan& p, const AccessPattern& dst, When start, When stop, double& groupMag) {
  const uint32_t K0 = yes(60) ? prog_.arch.sbuf_partitions : uint32_t(between(1, prog_.arch.sbuf_partitions));
  const uint32_t K = uint32_t(std::clamp<uint64_t>(p.cap / std::max(p.M, p.N), 1, K0));
  double ma = 0, mb = 0;
  AccessPattern stat = matmulOperand(p.dt, K, p.M, {}, ma);
  AccessPattern mov = matmulOperand(p.dt, K, dst.count, {stat.tensor}, mb);
  Instruction i = binary(Op::Matmul, dst, stat, mov);
  i.start = start;
  i.stop = stop;
  charge(uint64_t(K) * p.M * dst.count * 4);
  emit(std::move(i));
  groupMag += double(K) * ma * mb * double(trips());
}

// An SBUF [K, cols] operand of dtype dt: a view of a live tensor, a fresh load, or (in a loop) a tile of a DRAM input
// selected by a register-indexed partition slice. m: the bound on its values.
AccessPattern Generator::matmulOperand(DType dt, uint32_t K, uint32_t cols, const std::vector<TensorId>& keep,
                                       double& m) {
  std::vector<TensorId> cands;
  for (TensorId t : pool_)
    if (prog_.tensors[t].dtype == dt && prog_.tensors[t].partitions >= K && prog_.tensors[t].elements >= cols)
      cands.push_back(t);
  switch (weighted({4, cands.empty() ? 0u : 5u, depth() > 0 ? 3u : 0u})) {
    case 1: {
      TensorId t = cands[c_.below(cands.size())];
      if (auto v = chooseView(t, K, cols, true, /*allowSelfOverlap=*/true)) {
        m = magOf(t);
        return *v;
      }
      break;
    }
    case 2:
      if (std::optional<AccessPattern> tile = loopTileOperand(dt, K, cols)) {
        m = 2;
        return *tile;
      }
      break;
    default:
      break;
  }
  m = 2;
  return whole(loadInput(K, cols, dt, keep));
}

// matmulOperand's tile of a new DRAM input of (at least two) loop trips' K rows, loaded through a register-indexed
// partition slice when the loop registers allow one; nullopt when fit_dram leaves no room for the input.
std::optional<AccessPattern> Generator::loopTileOperand(DType dt, uint32_t K, uint32_t cols) {
  uint32_t rows = K * uint32_t(std::max<uint64_t>(2, scopes_.back().trips));
  if (!dramRoomFor(uint64_t(rows) * cols * dtypeSize(dt))) return std::nullopt;  // a load from the shared input
  TensorId in = addTensor(Space::Dram, rows, cols, dt, "in");
  prog_.tensors[in].input = true;
  ts_[in].full = true;
  TensorId tile = addTensor(Space::Sbuf, K, cols, dt, "t");
  Instruction dma;
  dma.op = Op::Dma;
  dma.dst = whole(tile);
  dma.a = whole(in);
  dma.a.partitions = K;
  if (auto idx = chooseIndex(rows - K, K)) dma.a.partition = *idx;
  else dma.a.partition.constant = int64_t(upTo(rows - K));
  charge(uint64_t(K) * cols * dtypeSize(dt));
  emit(std::move(dma));
  ts_[tile].full = true;
  return whole(tile);
}
}  // namespace allocsim::gen
