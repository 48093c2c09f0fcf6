// The instructions NKI kernels use beyond the elementwise core (docs/format.md "Iota", "Transpose and broadcast",
// "Tensor-tensor scan", "Batch-norm statistics"): iota on POOL, transpose and partition broadcast on the PE into a
// fresh PSUM tensor, tt_scan on DVE, and bn_stats chunks merged by bn_aggr. Each reads only full tensors and keeps
// the magnitudes bounded, as the other statements do.
#include <algorithm>
#include <cmath>

#include "gen/generator.h"

namespace allocsim::gen {
void Generator::nkiOpStatement() {
  std::vector<TensorId> floats, sbufFloats;
  for (TensorId t : readable(true))
    if (isFloat(prog_.tensors[t].dtype)) floats.push_back(t);
  for (TensorId t : readable(false))
    if (isFloat(prog_.tensors[t].dtype) && prog_.tensors[t].space == Space::Sbuf) sbufFloats.push_back(t);
  const uint32_t peOk = sbufFloats.empty() ? 0u : 3u;
  switch (weighted({3, peOk, peOk, floats.empty() ? 0u : 3u, floats.empty() ? 0u : 3u})) {
    case 1: return peMoveStatement(sbufFloats, Op::Transpose);
    case 2: return peMoveStatement(sbufFloats, Op::Broadcast);
    case 3: return scanStatement(floats);
    case 4: return batchNormStatement(floats);
    default: return iotaStatement();
  }
}

// iota: small coefficients on the view's p and e, an offset c that is a constant or uses a register.
void Generator::iotaStatement() {
  const DType dt = anyDType();
  uint32_t parts, elems;
  chooseShape(dt, parts, elems);
  const TensorId t = newPoolTensor(parts, elems, dt, {});
  static const int64_t kP[] = {1, 0, -1, 2, 128}, kE[] = {1, 0, -1, 3};
  Instruction i;
  i.op = Op::Iota;
  i.dst = whole(t);
  i.rare.mut().mask.p_scale = kP[c_.below(std::size(kP))];
  i.rare.mut().mask.e_scale = kE[c_.below(std::size(kE))];
  i.rare.mut().mask.c = Index::constantIndex(int64_t(upTo(16)) - 8);
  double regMag = 0;
  if (std::optional<RegId> r = yes(40) ? readableReg(32, false) : std::nullopt) {
    const int64_t scale = yes(50) ? 1 : 64;
    i.rare.mut().mask.c.addTerm(*r, scale);
    regMag = double(UINT32_MAX) * double(scale);  // any 32-bit value
  }
  const double mag = std::min(double(INT32_MAX) + 1, std::fabs(double(i.rare.mut().mask.p_scale)) * parts +
                                                        std::fabs(double(i.rare.mut().mask.e_scale)) * elems + 8 + regMag);
  charge(uint64_t(parts) * elems * dtypeSize(dt));
  emit(std::move(i));
  ts_[t].mag = mag;
  addToPool(t);
}

// transpose [P, F] -> [F, P] or broadcast [1, N] -> [M, N], from a full SBUF tensor into a new PSUM tensor of one bank.
void Generator::peMoveStatement(const std::vector<TensorId>& srcs, Op op) {
  const Arch& arch = prog_.arch;
  const TensorId a = srcs[c_.below(srcs.size())];
  const uint32_t maxPe = std::min<uint32_t>(128, arch.sbuf_partitions);
  // f32 elements per partition of one bank, and of the SBUF tensor it is evacuated to (a partition may hold less)
  const uint32_t bankElems = std::min(arch.psum_bank_bytes / 4, std::max<uint32_t>(1, arch.sbuf_bytes / 4));
  uint32_t parts, free, dstParts, dstFree;
  if (op == Op::Transpose) {
    parts = uint32_t(between(1, std::min({prog_.tensors[a].partitions, maxPe, bankElems})));
    free = uint32_t(between(1, std::min<uint64_t>({prog_.tensors[a].elements, maxPe})));
    dstParts = free, dstFree = parts;
  } else {
    parts = 1;
    free = uint32_t(between(1, std::min<uint64_t>({prog_.tensors[a].elements, 512, bankElems})));
    dstParts = uint32_t(yes(60) ? maxPe : between(1, maxPe));
    dstFree = free;
  }
  std::optional<AccessPattern> va = chooseView(a, parts, free, true, /*allowSelfOverlap=*/true);
  if (!va) return;
  makePsumRoom(1);
  const TensorId ps = addTensor(Space::Psum, dstParts, dstFree, DType::F32, "ps");
  Instruction i;
  i.op = op;
  i.dst = whole(ps);
  i.a = *va;
  charge(uint64_t(dstParts) * dstFree * 4);
  emit(std::move(i));
  ts_[ps].mag = magOf(a);
  addToPool(ps);
}

// tt_scan over a full float tensor and a second of at least its shape; INIT an immediate or a [P, 1] column. The
// chain's bound is followed step by step; a scan whose bound grows past 1e30 takes max as its second op instead.
void Generator::scanStatement(const std::vector<TensorId>& srcs) {
  const std::optional<SourceView> src = chooseSourceView(srcs);
  if (!src) return;
  const auto& [a, parts, elems, va] = *src;
  const DType dt = prog_.tensors[a].dtype;
  std::vector<TensorId> bs;
  const bool aInPsum = prog_.tensors[a].space == Space::Psum;  // DVE reads at most one of them from PSUM
  for (TensorId t : srcs)
    if (prog_.tensors[t].partitions >= parts && prog_.tensors[t].elements >= elems &&
        !(aInPsum && prog_.tensors[t].space == Space::Psum))
      bs.push_back(t);
  if (bs.empty()) return;
  const TensorId b = bs[c_.below(bs.size())];
  std::optional<AccessPattern> vb = chooseView(b, parts, elems, true, /*allowSelfOverlap=*/true);
  if (!vb) return;
  Instruction i;
  i.op = Op::TTScan;
  i.a = va;
  i.b = *vb;
  static const AluOp kOp0[] = {AluOp::Add, AluOp::Sub, AluOp::Max, AluOp::Min};
  static const AluOp kOp1[] = {AluOp::Add, AluOp::Sub, AluOp::Max, AluOp::Min, AluOp::Mul};
  i.alu = kOp0[c_.below(std::size(kOp0))];
  i.alu2 = kOp1[c_.below(std::size(kOp1))];
  double initMag = 1;
  if (yes(40)) {
    if (std::optional<AccessPattern> col = scalarColumn(dt, parts, {a, b})) {
      i.scalar.kind = ScalarOperand::Kind::Tensor;
      i.scalar.ap = *col;
      initMag = magOf(col->tensor);
    }
  }
  if (i.scalar.kind != ScalarOperand::Kind::Tensor) {
    static const double kInit[] = {0.0, 1.0, -0.5, 2.0};
    i.scalar.kind = ScalarOperand::Kind::Imm;
    i.scalar.imm = floatImm(kInit[c_.below(std::size(kInit))]);
  }
  auto bound = [&] {
    double m = initMag;
    for (uint64_t k = 0; k < elems && m < 1e30; ++k) m = aluMag(i.alu2, aluMag(i.alu, magOf(a), m), magOf(b));
    return m;
  };
  double mag = bound();
  if (mag >= 1e30) {
    i.alu2 = AluOp::Max;
    mag = bound();
  }
  const TensorId d = newPoolTensor(parts, uint32_t(elems), dt, {a, b});
  i.dst = whole(d);
  charge(uint64_t(parts) * elems * dtypeSize(dt) * 3);
  emit(std::move(i));
  noteWrite(d, mag, false);
  addToPool(d);
}

// bn_stats over one or two chunks of at most 512 elements of a full float tensor into the six-value slots of a
// statistics tensor, then (mostly) bn_aggr of those slots into [P, 2].
void Generator::batchNormStatement(const std::vector<TensorId>& srcs) {
  const TensorId a = srcs[c_.below(srcs.size())];
  uint32_t parts;
  uint64_t elems;
  chooseSubShape(a, parts, elems);
  elems = std::min<uint64_t>(elems, 512);
  const uint32_t chunks = elems >= 2 && yes(40) ? 2 : 1;
  const uint64_t chunk = elems / chunks;
  const DType sdt = yes(70) ? DType::F32 : DType::BF16;
  // Six statistics per chunk in each partition: a machine with a small SBUF partition may not hold them.
  if (uint64_t(6) * chunks * dtypeSize(sdt) > prog_.arch.sbuf_bytes) return;
  const TensorId stats = newPoolTensor(parts, 6 * chunks, sdt, {a});
  for (uint32_t k = 0; k < chunks; ++k) {
    std::optional<AccessPattern> va = chooseView(a, parts, chunk, true, /*allowSelfOverlap=*/true);
    if (!va) va = chooseView(a, parts, chunk, false);
    if (!va) return;
    Instruction i;
    i.op = Op::BnStats;
    i.a = *va;
    i.dst = whole(stats);
    i.dst.count = 6;
    i.dst.offset.constant = int64_t(6) * k;
    charge(uint64_t(parts) * chunk * dtypeSize(prog_.tensors[a].dtype));
    emit(std::move(i));
  }
  const double m = magOf(a);
  ts_[stats].mag = std::max({512.0, m, double(chunk) * 4 * m * m});
  addToPool(stats);
  if (!yes(70)) return;
  const DType adt = yes(70) ? DType::F32 : DType::BF16;
  if (2 * dtypeSize(adt) > prog_.arch.sbuf_bytes) return;  // the mean and the variance in each partition
  const TensorId agg = newPoolTensor(parts, 2, adt, {stats});
  Instruction i;
  i.op = Op::BnAggr;
  i.a = whole(stats);
  i.dst = whole(agg);
  charge(uint64_t(parts) * 6 * chunks * 4);
  emit(std::move(i));
  ts_[agg].mag = std::max(m, 4 * m * m);
  addToPool(agg);
}

}  // namespace allocsim::gen
