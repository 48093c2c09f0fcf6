// Evaluated views: bounds, text for messages, PSUM bank span.
#include <algorithm>

#include "ir/check_internal.h"

namespace allocsim::check {

std::string intText(Int v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u = negative ? -(unsigned __int128)(v) : (unsigned __int128)(v);
  std::string digits;
  for (; u != 0; u /= 10) digits.push_back(char('0' + int(u % 10)));
  if (negative) digits.push_back('-');
  std::reverse(digits.begin(), digits.end());
  return digits;
}

bool View::containsElement(uint64_t e) const {
  if (e < off) return false;
  uint64_t d = e - off;
  if (oneRun()) return d < extent();
  return d / step2 < count2 && d % step2 < count;
}

std::optional<View> viewAt(const Program& p, const AccessPattern& ap, Int p0, Int off) {
  const Tensor& t = p.tensors[ap.tensor];
  View v;
  v.tensor = ap.tensor;
  v.np = ap.partitions;
  v.count = ap.count;
  v.count2 = ap.count2;
  v.step2 = ap.count2 <= 1 ? 0 : ap.step2;
  if (p0 < 0 || off < 0 || p0 + Int(v.np) > Int(t.partitions) || off + Int(v.extent()) > Int(t.elements))
    return std::nullopt;
  v.p0 = uint64_t(p0);
  v.off = uint64_t(off);
  return v;
}

std::string sliceText(const Program& p, const AccessPattern& ap, Int p0, Int off) {
  std::string s = p.tensors[ap.tensor].name + "[" + intText(p0) + ":" + std::to_string(ap.partitions) + ", " +
                  intText(off) + ":" + std::to_string(ap.count);
  if (ap.count2 != 1) s += ", " + std::to_string(ap.step2) + ":" + std::to_string(ap.count2);
  return s + "]";
}

std::string tileProblem(const Program& p, const AccessPattern& ap, Int p0, Int tile, Int off) {
  const Tensor& t = p.tensors[ap.tensor];
  const Int e = t.tileElements();
  const Int extent = ap.count2 <= 1 ? Int(ap.count) : Int(ap.count2 - 1) * ap.step2 + ap.count;
  const Int in = off - tile * e;
  if (tile >= 0 && tile < Int(t.tiles) && in >= 0 && in + extent <= e) return "";
  std::string s = t.name + "{" + intText(tile) + "}[" + intText(p0) + ":" + std::to_string(ap.partitions) + ", " +
                  intText(in) + ":" + std::to_string(ap.count);
  if (ap.count2 != 1) s += ", " + std::to_string(ap.step2) + ":" + std::to_string(ap.count2);
  return s + "] is outside tile array " + quoted(t.name) + " [" + std::to_string(t.tiles) + "] " +
         shapeText(t.partitions, t.tileElements()) + ": a tile view stays inside one tile";
}

std::string shapeText(uint64_t partitions, uint64_t elements) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) about "[" + std::string.
  std::string s = "[";
  s += std::to_string(partitions);
  s += ", ";
  s += std::to_string(elements);
  s += "]";
  return s;
}

std::string quoted(const std::string& name) { return "'" + name + "'"; }

std::pair<uint64_t, uint64_t> bankSpan(const Program& p, const AccessPattern& ap, uint64_t off) {
  uint64_t size = dtypeSize(p.tensors[ap.tensor].dtype);
  uint64_t bank = p.arch.psum_bank_bytes;
  uint64_t last = off + std::max<uint64_t>(ap.count, 1) - 1;
  return {off * size / bank, (last * size + size - 1) / bank};
}

std::string bankMessage(const Program& p, const AccessPattern& dst, uint64_t first, uint64_t last) {
  return "matmul destination " + quoted(p.tensors[dst.tensor].name) + " spans PSUM banks " + std::to_string(first) +
         " to " + std::to_string(last) + " of the tensor; it must lie within one bank (" +
         std::to_string(p.arch.psum_bank_bytes) + " bytes)";
}

}  // namespace allocsim::check
