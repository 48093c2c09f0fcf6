#include "sim/timing_invariants.h"

#include <algorithm>
#include <map>

#include "ir/print.h"

namespace allocsim::sim {
namespace {

constexpr uint32_t kEngineTracks = 5;      // PE, ACT, DVE, POOL, SP: one instruction at a time each
constexpr uint32_t kFirstQueueTrack = 7;   // 7 + q: DMA queue q, served in order

std::string trackName(uint32_t track) {
  if (track < kEngineTracks) return engineName(Engine(track));
  return "DMA queue " + std::to_string(track - kFirstQueueTrack);
}

std::string what(const Program& p, const TraceSlice& s) {
  if (!s.inst) return "an instruction";
  return "`" + printInstruction(p, withoutBody(*s.inst)) + "`";
}

}  // namespace

std::vector<std::string> timingInvariantViolations(const Program& p, const Trace& trace) {
  std::vector<std::string> out;
  std::map<uint32_t, std::vector<const TraceSlice*>> tracks;
  for (const TraceSlice& s : trace.slices) {
    if (s.end < s.start)
      out.push_back(trackName(s.track) + ": " + what(p, s) + " ends at cycle " + std::to_string(s.end) +
                    " before it starts at " + std::to_string(s.start));
    if (s.track < kEngineTracks || s.track >= kFirstQueueTrack) tracks[s.track].push_back(&s);
  }
  for (auto& [track, slices] : tracks) {
    std::stable_sort(slices.begin(), slices.end(),
                     [](const TraceSlice* a, const TraceSlice* b) { return a->start < b->start; });
    for (size_t i = 1; i < slices.size(); ++i)
      if (slices[i]->start < slices[i - 1]->end && slices[i]->end > slices[i]->start &&
          slices[i - 1]->end > slices[i - 1]->start)
        out.push_back(trackName(track) + ": " + what(p, *slices[i]) + " starts at cycle " +
                      std::to_string(slices[i]->start) + " before " + what(p, *slices[i - 1]) + " ends at " +
                      std::to_string(slices[i - 1]->end));
  }
  for (const TraceCounter& c : trace.ring_occupancy)
    if (c.value > p.arch.dma_ring_slots)
      out.push_back("DMA queue " + std::to_string(c.queue) + ": " + std::to_string(c.value) +
                    " transfers on a ring of " + std::to_string(p.arch.dma_ring_slots) + " slots at cycle " +
                    std::to_string(c.cycle));
  return out;
}

}  // namespace allocsim::sim
