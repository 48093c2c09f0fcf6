#include "ir/check_known_values.h"

namespace allocsim::check {

void KnownValues::store(const View& v, Value value) {
  invalidate(v);  // a store covers one register: few values can overlap it
  if (entries_.size() >= kCapacity) entries_.erase(entries_.begin());
  entries_[Key{v.tensor, v.p0, v.off}] = Entry{v.extent(), value};
}

std::optional<KnownValues::Value> KnownValues::load(const View& v) const {
  auto it = entries_.find(Key{v.tensor, v.p0, v.off});
  if (it == entries_.end() || it->second.count != v.extent() || v.np != 1 || !v.oneRun()) return std::nullopt;
  return it->second.value;
}

uint64_t KnownValues::invalidate(const View& v) {
  if (entries_.empty()) return 0;
  uint64_t visited = 0;
  auto it = entries_.lower_bound(Key{v.tensor, v.p0, 0});
  for (; it != entries_.end() && it->first.tensor == v.tensor && it->first.partition < v.p0 + v.np; ++visited) {
    bool overlaps = false;
    // A stored value covers at most a few elements (one register, 4 or 8 bytes).
    for (uint64_t e = it->first.element; e < it->first.element + it->second.count && !overlaps; ++e)
      overlaps = v.containsElement(e);
    it = overlaps ? entries_.erase(it) : std::next(it);
  }
  return visited;
}

}  // namespace allocsim::check
