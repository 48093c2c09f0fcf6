// Matmul accumulation groups: straight-line groups of several matmuls, K-loops written with start@first /
// stop@last, groups that open before a loop and close after it, and PSUM tensors of several banks filled
// one bank-sized piece per group (possibly in a loop over the pieces, or every piece in one K-loop).
#include <algorithm>

#include "gen/generator.h"

namespace allocsim::gen {

void Generator::matmulStatement() {
  const Arch& arch = prog_.arch;
  const uint32_t P = arch.sbuf_partitions;
  const DType dt = anyDType();
  const DType pdt = isFloat(dt) ? DType::F32 : (yes(50) ? DType::I32 : DType::U32);
  // The accumulator is evacuated to an SBUF tensor of its shape, which must fit a partition: on a machine whose SBUF
  // partition is smaller than the PSUM (`--sbuf-bytes 512` on tiny) a 4-bank accumulator made an ill-formed program.
  const uint32_t sbufElems = std::max<uint32_t>(1, arch.sbuf_bytes / 4);
  const uint32_t bankElems = std::min(arch.psum_bank_bytes / 4, sbufElems);
  uint32_t M = yes(60) ? P : uint32_t(between(1, P));
  // Several banks per tensor, up to half the pressure target, so a few tensors reach the target together; some
  // tensors draw from every bank count up to the whole target (at the default pressure, every count up to the
  // capacity: the colorers' and the bank arithmetic's edge cases).
  const uint32_t capacityPieces = std::max<uint32_t>(1, std::min(arch.psum_banks, sbufElems / bankElems));
  const uint32_t maxPieces = std::clamp<uint32_t>(yes(35) ? psumTarget_ : psumTarget_ / 2, 1, capacityPieces);
  const uint32_t pieces = uint32_t(between(1, maxPieces));
  const uint32_t N = pieces > 1 ? bankElems : uint32_t(between(1, bankElems));
  // A multi-bank tensor whose last bank is partly used (its bank count rounds up), unless one loop covers the pieces.
  const bool partialLast = pieces > 1 && bankElems > 1 && yes(30);
  const uint32_t lastN = partialLast ? uint32_t(between(1, bankElems - 1)) : N;
  const uint64_t cap = elementCap();
  M = uint32_t(std::clamp<uint64_t>(cap / (uint64_t(pieces - 1) * N + lastN), 1, M));
  makePsumRoom(pieces);
  const TensorId ps = addTensor(Space::Psum, M, (pieces - 1) * N + lastN, pdt, "ps");
  openPsumBanks_ += pieces;
  ts_[ps].piecesLeft = pieces;
  double mag = 0;

  auto chooseK = [&] {
    const uint32_t K = yes(60) ? P : uint32_t(between(1, P));
    return uint32_t(std::clamp<uint64_t>(cap / std::max(M, N), 1, K));
  };

  // An SBUF [K, cols] operand of dtype dt: a view of a live tensor, a fresh load, or (in a loop) a tile of a
  // DRAM input selected by a register-indexed partition slice.
  auto operand = [&](uint32_t K, uint32_t cols, const std::vector<TensorId>& keep, double& m) -> AccessPattern {
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
      case 2: {
        uint32_t rows = K * uint32_t(std::max<uint64_t>(2, scopes_.back().trips));
        if (!dramRoomFor(uint64_t(rows) * cols * dtypeSize(dt))) break;  // fit_dram: a load from the shared input
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
        m = 2;
        return whole(tile);
      }
      default:
        break;
    }
    m = 2;
    return whole(loadInput(K, cols, dt, keep));
  };

  auto matmul = [&](const AccessPattern& dst, When start, When stop, double& groupMag) {
    uint32_t K = chooseK();
    double ma = 0, mb = 0;
    AccessPattern stat = operand(K, M, {}, ma);
    AccessPattern mov = operand(K, dst.count, {stat.tensor}, mb);
    Instruction i = binary(Op::Matmul, dst, stat, mov);
    i.start = start;
    i.stop = stop;
    charge(uint64_t(K) * M * dst.count * 4);
    emit(std::move(i));
    groupMag += double(K) * ma * mb * double(trips());
  };

  auto group = [&](const AccessPattern& dst) {
    double groupMag = 0;
    const bool loopOk = depth() < kMaxLoopDepth;
    switch (weighted({5, loopOk ? 5u : 0u, loopOk ? 2u : 0u})) {
      case 1: {  // K-loop: start on the first iteration, stop on the last
        const uint64_t kt = std::min(2 + upTo(yes(70) ? 2 : 6), tripRoom());  // 1 when capped: starts and stops
        int64_t lo = yes(20) ? 1 : 0;
        openLoop(lo, lo + int64_t(kt), 1);
        uint32_t n = 1 + uint32_t(yes(30));
        for (uint32_t j = 0; j < n; ++j)
          matmul(dst, j == 0 ? When::First : When::Never, j + 1 == n ? When::Last : When::Never, groupMag);
        closeLoop();
        break;
      }
      case 2: {  // opened before a loop, accumulated in it, closed after it
        matmul(dst, When::Always, When::Never, groupMag);
        openLoop(0, int64_t(std::min(1 + upTo(3), tripRoom())), 1);
        matmul(dst, When::Never, When::Never, groupMag);
        closeLoop();
        matmul(dst, When::Never, When::Always, groupMag);
        break;
      }
      default: {
        uint32_t n = 1 + uint32_t(upTo(2));
        for (uint32_t j = 0; j < n; ++j)
          matmul(dst, j == 0 ? When::Always : When::Never, j + 1 == n ? When::Always : When::Never, groupMag);
      }
    }
    mag = std::max(mag, groupMag);
  };

  AccessPattern dst = whole(ps);
  dst.count = N;
  auto pieceAt = [&](uint32_t j) {  // piece j of the tensor: a bank's elements, fewer in a partly used last bank
    dst.offset.constant = int64_t(j) * bankElems;
    dst.count = j + 1 == pieces ? lastN : N;
  };
  if (pieces > 1 && !partialLast && depth() < kMaxLoopDepth && pieces <= tripRoom() && yes(40)) {
    openLoop(0, pieces, 1);
    dst.offset = regIndex(scopes_.back().var, bankElems);
    group(dst);
    closeLoop();
  } else if (pieces > 1 && depth() < kMaxLoopDepth && yes(30)) {
    // One K-loop accumulating every piece, their groups interleaved (as a kernel tiles N inside its K loop, the
    // inner loop unrolled): each piece opens on the first iteration and closes on the last, between the other
    // pieces' matmuls. The PSUM spill planner has no save point for such a loop (alloc/psum/psum_def_regions.cpp).
    const uint64_t kt = std::min(2 + upTo(yes(70) ? 2 : 6), tripRoom());
    openLoop(0, int64_t(kt), 1);
    std::vector<double> pieceMag(pieces, 0.0);
    for (uint32_t j = 0; j < pieces; ++j) {
      pieceAt(j);
      matmul(dst, When::First, When::Last, pieceMag[j]);
    }
    closeLoop();
    for (double m : pieceMag) mag = std::max(mag, m);
  } else {
    for (uint32_t j = 0; j < pieces; ++j) {
      pieceAt(j);
      group(dst);
    }
  }
  openPsumBanks_ -= pieces;
  ts_[ps].piecesLeft = 0;
  ts_[ps].mag = isFloat(pdt) ? mag : 0;
  addToPool(ps);
}
}  // namespace allocsim::gen
