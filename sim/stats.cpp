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
    case StallCause::Port: return "port";
  }
  return "?";
}

namespace {

// A pair not seen before, under its consumer's id. Out of line, so that adding to a known pair (nearly every
// stall) is a short call.
[[gnu::noinline]] void addPair(std::vector<std::vector<StallPair>>& pairs, const StallPair& pair) {
  const uint32_t id = pair.consumer ? pair.consumer->id : 0;
  if (id >= pairs.size()) pairs.resize(size_t(id) + 1);
  pairs[id].push_back(pair);
}

}  // namespace

void SimStats::addStall(StallCause c, const Instruction* producer, const Instruction* consumer, uint64_t n) {
  if (n == 0) return;
  stall_cycles[size_t(c)] += n;
  const uint32_t id = consumer ? consumer->id : 0;
  if (id < pairs_.size())
    for (StallPair& p : pairs_[id])
      if (p.cause == c && p.producer == producer && p.consumer == consumer) {
        p.cycles += n;
        return;
      }
  addPair(pairs_, {c, producer, consumer, n});
}

void SimStats::addSelfOverlap(const Instruction* inst, bool differs) {
  auto it = std::find_if(self_overlaps.begin(), self_overlaps.end(), [&](const SelfOverlap& s) { return s.inst == inst; });
  if (it == self_overlaps.end()) it = self_overlaps.insert(it, SelfOverlap{inst});
  ++it->executions;
  it->differing += differs;
}

std::vector<StallPair> SimStats::topPairs(size_t n) const {
  std::vector<StallPair> out;
  for (const std::vector<StallPair>& pairs : pairs_) out.insert(out.end(), pairs.begin(), pairs.end());
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
