#include "sim/stats.h"

#include <algorithm>

namespace allocsim::sim {

const char* stallCauseName(StallCause c) {
  switch (c) {
    case StallCause::RAW: return "RAW";
    case StallCause::WAR: return "WAR";
    case StallCause::WAW: return "WAW";
    case StallCause::RingFull: return "ring-full";
    case StallCause::EngineBusy: return "engine-busy";
  }
  return "?";
}

size_t SimStats::PairHash::operator()(const PairKey& k) const {
  const auto mix = [](uint64_t h, uint64_t v) { return (h ^ v) * 0x9e3779b97f4a7c15ull; };
  return size_t(mix(mix(k.cause, uint64_t(uintptr_t(k.producer))), uint64_t(uintptr_t(k.consumer))));
}

void SimStats::addStall(StallCause c, const Instruction* producer, const Instruction* consumer, uint64_t n) {
  if (n == 0) return;
  stall_cycles[size_t(c)] += n;
  pairs_[{uint8_t(c), producer, consumer}] += n;
}

std::vector<StallPair> SimStats::topPairs(size_t n) const {
  std::vector<StallPair> out;
  for (const auto& [key, cycles] : pairs_) out.push_back({StallCause(key.cause), key.producer, key.consumer, cycles});
  auto id = [](const Instruction* i) { return i ? i->id : UINT32_MAX; };
  std::sort(out.begin(), out.end(), [&](const StallPair& a, const StallPair& b) {
    if (a.cycles != b.cycles) return a.cycles > b.cycles;
    if (a.cause != b.cause) return a.cause < b.cause;
    if (id(a.consumer) != id(b.consumer)) return id(a.consumer) < id(b.consumer);
    return id(a.producer) < id(b.producer);
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace allocsim::sim
