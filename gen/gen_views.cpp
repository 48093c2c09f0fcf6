// Views: register ranges, register-indexed starts that stay in bounds on every iteration, and sub-views
// (partial partitions, partial elements, a second dimension).
#include <algorithm>

#include "gen/generator.h"

namespace allocsim::gen {

namespace {
constexpr int64_t kMaxIndexValue = int64_t(1) << 30;  // keeps register values far from unsigned wrap
}

bool Generator::regRange(RegId r, int64_t& lo, int64_t& hi) const {
  const RegState& s = rs_[r];
  if (!s.defined || !s.known || prog_.registers[r].width != 32) return false;
  lo = hi = s.value.constant;
  for (const auto& [var, coef] : s.value.terms) {
    const Scope* scope = nullptr;
    for (const Scope& sc : scopes_)
      if (sc.var == var) scope = &sc;
    if (!scope) return false;
    int64_t a = coef * scope->lo, b = coef * scope->last();
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  return lo >= 0 && hi < kMaxIndexValue;
}

std::optional<Index> Generator::chooseIndex(uint64_t limit, uint64_t preferredScale) {
  // The candidates are the registers regRange accepts, in id order: the defined 32-bit registers with a known
  // value (indexable_), all of which are in range — a value is tracked as known only while its range fits
  // (scalarStatement's setValue; loop variables and their sums and copies by construction).
  if (indexable_.size() == 0 || limit > uint64_t(kMaxIndexValue)) return std::nullopt;
  if (indexable_.size() >= 2 && yes(20)) {
    // An index affine in two registers (e.g. an outer tile index and an inner chunk index): the innermost
    // candidate and one other, scales chosen so that the sum stays in [0, limit] over both ranges.
    const RegId first = indexable_.last(), second = indexable_.kth(uint32_t(c_.below(indexable_.size() - 1)));
    Index idx;
    int64_t left = int64_t(limit), lowSum = 0;
    for (RegId reg : {second, first}) {
      int64_t lo = 0, hi = 0;
      if (!regRange(reg, lo, hi)) return std::nullopt;  // not reached (see above)
      int64_t width = hi - lo;
      int64_t maxScale = width == 0 ? 4 : left / width;
      if (maxScale < 1) return std::nullopt;
      int64_t scale = int64_t(between(1, uint64_t(std::min<int64_t>(maxScale, 1 << 20))));
      idx.addTerm(reg, scale);
      left -= scale * width;
      lowSum += scale * lo;
    }
    // value = c + sum scale * reg, reg in [lo, hi]: c in [-lowSum, -lowSum + left] keeps it in [0, limit].
    idx.constant = -lowSum + int64_t(yes(30) ? upTo(uint64_t(left)) : 0);
    return idx;
  }
  // Prefer the innermost loop's variable: that is what tiles a tensor.
  RegId reg = indexable_.last();
  if (yes(40)) reg = indexable_.kth(uint32_t(c_.below(indexable_.size())));
  int64_t vlo = 0, vhi = 0;
  if (!regRange(reg, vlo, vhi)) return std::nullopt;  // not reached (see above); never an out-of-range index
  // GenOptions::conditionals: the register's floor division by 2 or 3, or its remainder modulo 2 to 4 (double
  // buffering), whose range replaces the register's.
  uint32_t div = 1, mod = 0;
  if (opts_.conditionals > 0 && vhi > vlo && yes(opts_.conditionals)) {
    if (yes(50)) {
      mod = uint32_t(between(2, 4));
      vlo = 0;
      vhi = std::min<int64_t>(vhi, mod - 1);
    } else {
      div = uint32_t(between(2, 3));
      vlo /= div;
      vhi /= div;
    }
  }
  const int64_t lim = int64_t(limit);
  int64_t scale;
  if (vhi == vlo) {
    scale = int64_t(between(1, 4));
  } else {
    int64_t maxScale = lim / (vhi - vlo);
    if (maxScale < 1) return std::nullopt;
    scale = (preferredScale >= 1 && int64_t(preferredScale) <= maxScale && !yes(25)) ? int64_t(preferredScale)
                                                                                  : int64_t(between(1, maxScale));
  }
  int64_t cmin, cmax;
  if (yes(10)) {
    // A descending walk: value = c - scale * reg stays in [0, limit] for reg in [vlo, vhi].
    cmin = scale * vhi;
    cmax = lim + scale * vlo;
    scale = -scale;
  } else {
    cmin = -scale * vlo;
    cmax = lim - scale * vhi;
  }
  if (cmin > cmax) return std::nullopt;
  Index idx;
  idx.addTerm(reg, scale, div, mod);
  idx.constant = cmin + int64_t(yes(30) ? upTo(uint64_t(cmax - cmin)) : 0);
  return idx;
}

std::optional<AccessPattern> Generator::chooseView(TensorId t, uint32_t parts, uint64_t elems, bool allowStrided,
                                                  bool allowSelfOverlap) {
  const Tensor& T = prog_.tensors[t];
  if (parts == 0 || elems == 0 || parts > T.partitions || elems > T.elements) return std::nullopt;
  AccessPattern ap;
  ap.tensor = t;
  ap.partitions = parts;
  if (parts < T.partitions) {
    std::optional<Index> idx;
    if (depth() > 0 && yes(40)) idx = chooseIndex(T.partitions - parts, parts);
    if (idx) ap.partition = *idx;
    else ap.partition.constant = int64_t(upTo(T.partitions - parts));
  }
  if (T.tiles > 1 && elems <= T.tileElements() && yes(60)) {
    // A view inside one tile: q{TILE}[..., OFFSET:elems], the tile constant or register-indexed.
    const uint64_t e = T.tileElements();
    std::optional<Index> tile;
    if (depth() > 0 && yes(60)) tile = chooseIndex(T.tiles - 1, 1);
    if (!tile) tile = Index::constantIndex(int64_t(upTo(T.tiles - 1)));
    ap.count = uint32_t(elems);
    ap.offset = Index::constantIndex(int64_t(upTo(e - elems)));
    for (const IndexTerm& term : tile->terms) ap.offset.addTerm(term.reg, term.scale * int64_t(e), term.div, term.mod);
    ap.offset.constant += tile->constant * int64_t(e);
    ap.tile = std::move(tile);
    return ap;
  }
  uint64_t span = elems;
  ap.count = uint32_t(elems);
  if (allowStrided && elems >= 2 && yes(25)) {
    const Divisors ds = divisorsIn(elems, 2, 16);
    if (!ds.empty()) {
      uint32_t count2 = ds[c_.below(ds.size())];
      uint64_t count = elems / count2;
      uint64_t maxStep = (T.elements - count) / (count2 - 1);
      if (allowSelfOverlap && yes(30)) {  // overlapping rows; step 0 reads one row count2 times
        ap.count = uint32_t(count);
        ap.count2 = count2;
        ap.step2 = uint32_t(upTo(count - 1));
        span = uint64_t(count2 - 1) * ap.step2 + count;
      } else if (maxStep >= count) {
        ap.count = uint32_t(count);
        ap.count2 = count2;
        ap.step2 = uint32_t(count + upTo(std::min<uint64_t>(maxStep - count, 4 * count)));
        span = uint64_t(count2 - 1) * ap.step2 + count;
      }
    }
  }
  if (span < T.elements) {
    std::optional<Index> idx;
    if (depth() > 0 && yes(50)) idx = chooseIndex(T.elements - span, span);
    if (idx) ap.offset = *idx;
    else ap.offset.constant = int64_t(upTo(T.elements - span));
  }
  return ap;
}

void Generator::chooseSubShape(TensorId t, uint32_t& parts, uint64_t& elems) {
  const Tensor& T = prog_.tensors[t];
  parts = T.partitions;
  elems = T.elements;
  if (!yes(45)) return;
  if (yes(50)) parts = uint32_t(between(1, T.partitions));
  elems = between(1, T.elements);
}

std::optional<Generator::SourceView> Generator::chooseSourceView(const std::vector<TensorId>& srcs) {
  SourceView s;
  s.tensor = srcs[c_.below(srcs.size())];
  chooseSubShape(s.tensor, s.parts, s.elems);
  std::optional<AccessPattern> v = chooseView(s.tensor, s.parts, s.elems, true, /*allowSelfOverlap=*/true);
  if (!v) return std::nullopt;
  s.view = *v;
  return s;
}
}  // namespace allocsim::gen
