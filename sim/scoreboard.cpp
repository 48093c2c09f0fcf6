#include "sim/scoreboard.h"

namespace allocsim::sim {

const char* depKindName(DepKind k) {
  switch (k) {
    case DepKind::RAW: return "RAW";
    case DepKind::WAR: return "WAR";
    case DepKind::WAW: return "WAW";
  }
  return "?";
}

void Scoreboard::access(const Footprint& fp, bool write, uint32_t slot, uint64_t seq, const Instruction* inst,
                        bool record, std::vector<Dependence>& deps) {
  if (fp.empty()) return;
  for (const Entry& e : entries_) {
    if (e.seq == seq || (!write && !e.write) || !e.fp.overlaps(fp)) continue;
    DepKind kind = !write ? DepKind::RAW : e.write ? DepKind::WAW : DepKind::WAR;
    if (uint8_t(kind) + 1 == uint8_t(drop_)) continue;  // DropDependency::RAW == DepKind::RAW + 1, ...
    deps.push_back({e.slot, e.seq, kind, e.inst});
  }
  if (record) entries_.push_back({fp, write, slot, seq, inst});
}

void Scoreboard::retire(uint64_t seq) {
  for (size_t i = 0; i < entries_.size();) {
    if (entries_[i].seq == seq) {
      entries_[i] = entries_.back();
      entries_.pop_back();
    } else {
      ++i;
    }
  }
}

}  // namespace allocsim::sim
