#include "verify/timing_agreement.h"

#include <algorithm>
#include <map>

#include "sim/agreement.h"

namespace allocsim::verify {
namespace {

constexpr uint32_t kEngineTracks = 5, kSequencerTrack = 6, kFirstQueueTrack = 7;

std::string trackName(uint32_t track) {
  if (track < kEngineTracks) return engineName(Engine(track));
  if (track == kSequencerTrack) return "the sequencer";
  return "DMA queue " + std::to_string(track - kFirstQueueTrack);
}

std::string what(const Program& p, const Instruction* inst) {
  return inst ? sim::instructionById(p, inst->id) : std::string("nothing");
}

std::string span(uint64_t start, uint64_t end) {
  return "[" + std::to_string(start) + ", " + std::to_string(end) + ")";
}

// Collects lines up to a limit, then counts the rest.
struct Lines {
  std::vector<std::string> out;
  size_t max, more = 0;
  void add(std::string s) {
    if (out.size() < max) out.push_back(std::move(s));
    else ++more;
  }
  std::vector<std::string> done() {
    if (more) out.push_back("... and " + std::to_string(more) + " more");
    return std::move(out);
  }
};

// The model's slices per track, in time order (the trace is sorted by start; a track's own slices keep their order).
std::map<uint32_t, std::vector<const sim::TraceSlice*>> modelTracks(const sim::Trace& trace) {
  std::map<uint32_t, std::vector<const sim::TraceSlice*>> tracks;
  for (const sim::TraceSlice& s : trace.slices) tracks[s.track].push_back(&s);
  return tracks;
}

// The oracle's steps per track, in the order the track runs them.
std::map<uint32_t, std::vector<uint32_t>> oracleTracks(const TimingSchedule& o) {
  std::map<uint32_t, std::vector<uint32_t>> tracks;
  for (uint32_t i = 0; i < o.steps.size(); ++i) tracks[o.steps[i].track].push_back(i);
  for (auto& [track, steps] : tracks)
    std::stable_sort(steps.begin(), steps.end(),
                     [&](uint32_t a, uint32_t b) { return o.steps[a].start < o.steps[b].start; });
  return tracks;
}

void compare(Lines& lines, const std::string& what, uint64_t model, uint64_t oracle) {
  if (model != oracle)
    lines.add(what + ": model " + std::to_string(model) + ", oracle " + std::to_string(oracle));
}

}  // namespace

std::vector<std::string> timingDifferences(const Program& p, const TimingSchedule& oracle, const sim::SimStats& stats,
                                           const sim::Trace& trace, size_t max_lines) {
  Lines lines{{}, max_lines};
  auto model = modelTracks(trace);
  auto ours = oracleTracks(oracle);
  std::vector<uint32_t> tracks;
  for (const auto& [t, v] : model) tracks.push_back(t);
  for (const auto& [t, v] : ours)
    if (!model.count(t)) tracks.push_back(t);
  std::sort(tracks.begin(), tracks.end());
  for (uint32_t track : tracks) {
    const auto& m = model[track];
    const auto& o = ours[track];
    for (size_t i = 0; i < std::max(m.size(), o.size()); ++i) {
      const sim::TraceSlice* ms = i < m.size() ? m[i] : nullptr;
      const TimedStep* os = i < o.size() ? &oracle.steps[o[i]] : nullptr;
      if (ms && os && ms->inst == os->inst && ms->start == os->start && ms->end == os->end) continue;
      std::string line = trackName(track) + ", execution " + std::to_string(i + 1) + " on it: model ";
      line += ms ? what(p, ms->inst) + " " + span(ms->start, ms->end) : "none";
      line += ", oracle ";
      line += os ? what(p, os->inst) + " " + span(os->start, os->end) : "none";
      lines.add(line);
    }
  }
  const size_t nr = std::max(trace.ring_occupancy.size(), oracle.ring_occupancy.size());
  for (size_t i = 0; i < nr; ++i) {
    const sim::TraceCounter* m = i < trace.ring_occupancy.size() ? &trace.ring_occupancy[i] : nullptr;
    const TimingSchedule::RingChange* o = i < oracle.ring_occupancy.size() ? &oracle.ring_occupancy[i] : nullptr;
    if (m && o && m->queue == o->queue && m->cycle == o->cycle && m->value == o->value) continue;
    auto text = [](uint32_t q, uint64_t c, uint32_t v) {
      return "queue " + std::to_string(q) + " holds " + std::to_string(v) + " at cycle " + std::to_string(c);
    };
    lines.add("ring occupancy change " + std::to_string(i + 1) + ": model " +
              (m ? text(m->queue, m->cycle, m->value) : "none") + ", oracle " +
              (o ? text(o->queue, o->cycle, o->value) : "none"));
    break;  // one is enough: every later change is shifted
  }
  compare(lines, "cycles", stats.cycles, oracle.cycles);
  for (uint32_t e = 0; e < sim::kEngines; ++e) {
    const std::string name = engineName(Engine(e));
    if (e < kEngineTracks) compare(lines, name + " busy cycles", stats.engines[e].busy_cycles, oracle.busy_cycles[e]);
    compare(lines, name + " instructions", stats.engines[e].instructions, oracle.instructions[e]);
  }
  compare(lines, "loop iterations", stats.loop_iterations, oracle.loop_iterations);
  uint64_t dependence_stalls = 0;
  for (size_t c = 0; c < sim::kStallCauses; ++c)
    if (c != size_t(sim::StallCause::RingFull) && c != size_t(sim::StallCause::EngineBusy))
      dependence_stalls += stats.stall_cycles[c];
  compare(lines, "engine-busy stall cycles", stats.stall_cycles[size_t(sim::StallCause::EngineBusy)],
          oracle.engine_busy_stall_cycles);
  compare(lines, "ring-full stall cycles", stats.stall_cycles[size_t(sim::StallCause::RingFull)],
          oracle.ring_full_stall_cycles);
  compare(lines, "dependence stall cycles (every kind)", dependence_stalls, oracle.dependence_stall_cycles);
  compare(lines, "sequencer busy cycles", stats.sequencer_busy_cycles, oracle.sequencer_busy_cycles);
  compare(lines, "DMA queues", stats.queues.size(), oracle.queues.size());
  for (size_t q = 0; q < std::min(stats.queues.size(), oracle.queues.size()); ++q) {
    const sim::QueueStats& m = stats.queues[q];
    const TimingSchedule::Queue& o = oracle.queues[q];
    const std::string name = "DMA queue " + std::to_string(q);
    compare(lines, name + " transfers", m.transfers, o.transfers);
    compare(lines, name + " bytes", m.bytes, o.bytes);
    compare(lines, name + " descriptors", m.descriptors, o.descriptors);
    compare(lines, name + " busy cycles", m.busy_cycles, o.busy_cycles);
    compare(lines, name + " peak occupancy", m.peak_occupancy, o.peak_occupancy);
  }
  return lines.done();
}

std::vector<std::string> timingInvariantViolations(const Program& p, const sim::Trace& trace,
                                                   const TimingSchedule* deps, size_t max_lines) {
  Lines lines{{}, max_lines};
  auto tracks = modelTracks(trace);
  const uint32_t slots = p.arch.dma_ring_slots;
  for (const auto& [track, slices] : tracks) {
    for (size_t i = 0; i < slices.size(); ++i) {
      const sim::TraceSlice& s = *slices[i];
      if (s.end < s.start)
        lines.add(trackName(track) + ": " + what(p, s.inst) + " ends at cycle " + std::to_string(s.end) +
                  " before it starts at " + std::to_string(s.start));
      if (i == 0 || track == kSequencerTrack || (track >= kEngineTracks && track < kFirstQueueTrack)) continue;
      // One at a time: each engine, each DMA queue.
      const sim::TraceSlice& before = *slices[i - 1];
      if (s.start < before.end)
        lines.add(trackName(track) + ": " + what(p, s.inst) + " starts at cycle " + std::to_string(s.start) +
                  " before " + what(p, before.inst) + " ends at " + std::to_string(before.end));
      // Its ring slot: the transfer `slots` places ahead on the queue had ended.
      if (track >= kFirstQueueTrack && i >= slots && s.start < slices[i - slots]->end)
        lines.add(trackName(track) + ": " + what(p, s.inst) + " starts at cycle " + std::to_string(s.start) +
                  " while its ring's " + std::to_string(slots) + " slots are held (" + what(p, slices[i - slots]->inst) +
                  " ends at " + std::to_string(slices[i - slots]->end) + ")");
    }
  }
  for (const sim::TraceCounter& c : trace.ring_occupancy)
    if (c.value > slots)
      lines.add("DMA queue " + std::to_string(c.queue) + ": " + std::to_string(c.value) + " transfers on a ring of " +
                std::to_string(slots) + " slots at cycle " + std::to_string(c.cycle));
  if (deps) {
    // The model's slice of each of the oracle's steps: the same track, the same position on it.
    auto ours = oracleTracks(*deps);
    std::vector<const sim::TraceSlice*> slice_of(deps->steps.size(), nullptr);
    for (const auto& [track, steps] : ours) {
      const auto it = tracks.find(track);
      if (it == tracks.end()) continue;
      for (size_t i = 0; i < steps.size() && i < it->second.size(); ++i)
        if (it->second[i]->inst == deps->steps[steps[i]].inst) slice_of[steps[i]] = it->second[i];
    }
    for (size_t i = 0; i < deps->steps.size(); ++i) {
      const sim::TraceSlice* s = slice_of[i];
      if (!s) continue;
      for (uint32_t producer : deps->steps[i].producers) {
        const sim::TraceSlice* ps = slice_of[producer];
        if (ps && s->start < ps->end)
          lines.add(trackName(s->track) + ": " + what(p, s->inst) + " starts at cycle " + std::to_string(s->start) +
                    " before " + what(p, ps->inst) + ", which it depends on, ends at " + std::to_string(ps->end));
      }
    }
  }
  return lines.done();
}

std::string timingDisagreement(const Program& allocated, const sim::SimOptions& o, const sim::SimStats& stats,
                               const sim::Trace& trace) {
  TimingOracleOptions oo;
  oo.max_steps = o.max_steps;
  oo.max_storage_bytes = o.max_storage_bytes;
  const TimingSchedule oracle = timingSchedule(allocated, o.timingFor(allocated), oo);
  std::vector<std::string> lines = timingDifferences(allocated, oracle, stats, trace);
  for (std::string& v : timingInvariantViolations(allocated, trace, &oracle)) lines.push_back(std::move(v));
  if (lines.empty()) return "";
  std::string out = "the simulated timing differs from the timing oracle's or breaks an invariant "
                    "(docs/simulator.md \"Timing\"):\n";
  for (const std::string& l : lines) out += "  " + l + "\n";
  return out;
}

TimingCheck checkTiming(const Program& allocated, sim::SimOptions o) {
  TimingCheck c;
  sim::Trace trace;
  o.trace = &trace;
  c.result = sim::simulate(allocated, o);
  TimingOracleOptions oo;
  oo.max_steps = o.max_steps;
  oo.max_storage_bytes = o.max_storage_bytes;
  c.oracle = timingSchedule(allocated, o.timingFor(allocated), oo);
  c.differences = timingDifferences(allocated, c.oracle, c.result.stats, trace);
  c.violations = timingInvariantViolations(allocated, trace, &c.oracle);
  return c;
}

}  // namespace allocsim::verify
