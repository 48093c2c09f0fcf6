#include "verify/timing_agreement.h"

#include <algorithm>
#include <map>
#include <stdexcept>

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

bool sameSlice(const sim::TraceSlice* m, const TimedStep* o) {
  return m && o && m->inst == o->inst && m->start == o->start && m->end == o->end;
}

// Execution i (0-based) on a track differs: the model's slice and the oracle's step (either may be missing).
std::string sliceLine(const Program& p, uint32_t track, size_t i, const sim::TraceSlice* ms, const TimedStep* os) {
  std::string line = trackName(track) + ", execution " + std::to_string(i + 1) + " on it: model ";
  line += ms ? what(p, ms->inst) + " " + span(ms->start, ms->end) : "none";
  line += ", oracle ";
  line += os ? what(p, os->inst) + " " + span(os->start, os->end) : "none";
  return line;
}

bool sameRingChange(const sim::TraceCounter* m, const TimingSchedule::RingChange* o) {
  return m && o && m->queue == o->queue && m->cycle == o->cycle && m->value == o->value;
}

std::string ringLine(size_t i, const sim::TraceCounter* m, const TimingSchedule::RingChange* o) {
  auto text = [](uint32_t q, uint64_t c, uint32_t v) {
    return "queue " + std::to_string(q) + " holds " + std::to_string(v) + " at cycle " + std::to_string(c);
  };
  return "ring occupancy change " + std::to_string(i + 1) + ": model " +
         (m ? text(m->queue, m->cycle, m->value) : "none") + ", oracle " +
         (o ? text(o->queue, o->cycle, o->value) : "none");
}

// The run's totals: cycles, per engine and per queue.
void compareTotals(Lines& lines, const TimingSchedule& oracle, const sim::SimStats& stats) {
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
}

// The invariants of the model's run alone (timingInvariantViolations without the oracle's dependences).
void modelInvariants(Lines& lines, const Program& p, const sim::Trace& trace) {
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
}

// A step starting, in the model's run, before a producer's end.
void checkDependence(Lines& lines, const Program& p, const sim::TraceSlice& s, const sim::TraceSlice& ps) {
  if (s.start < ps.end)
    lines.add(trackName(s.track) + ": " + what(p, s.inst) + " starts at cycle " + std::to_string(s.start) + " before " +
              what(p, ps.inst) + ", which it depends on, ends at " + std::to_string(ps.end));
}

// timingDifferences and timingInvariantViolations as the oracle places each step: each step is held against the
// model's slice at its place on its track and forgotten. Per step nothing is kept but the model's trace itself and
// a link from each of its slices to the next on the same track; a producer is found by its tag, the model's slice
// of it. The lines come out as the two functions give them (tracks in order, the limit, the count of the rest).
class StreamedCheck : public TimingStepSink {
 public:
  StreamedCheck(const Program& p, const sim::Trace& trace, size_t max_lines)
      : p_(p), trace_(trace), max_lines_(max_lines), violations_{{}, max_lines} {
    next_.assign(trace.slices.size(), kNone);
    std::map<uint32_t, uint32_t> last;
    for (uint32_t i = 0; i < trace.slices.size(); ++i) {
      const uint32_t track = trace.slices[i].track;
      const auto it = last.find(track);
      if (it == last.end()) tracks_[track].model = i;
      else next_[it->second] = i;
      last[track] = i;
    }
    modelInvariants(violations_, p, trace);
  }

  uint64_t onStep(uint32_t, const TimedStep& s, const std::vector<uint64_t>& producer_tags) override {
    Track& t = tracks_[s.track];
    if (t.executions > 0 && s.start < t.last_start)
      throw std::logic_error("timing oracle: a track's steps came out of the order it runs them");
    t.last_start = s.start;
    const sim::TraceSlice* ms = t.model == kNone ? nullptr : &trace_.slices[t.model];
    if (ms) t.model = next_[t.model];
    if (!sameSlice(ms, &s)) t.add(sliceLine(p_, s.track, t.executions, ms, &s), max_lines_);
    ++t.executions;
    const sim::TraceSlice* mine = ms && ms->inst == s.inst ? ms : nullptr;
    if (mine)
      for (uint64_t tag : producer_tags)
        if (tag) checkDependence(violations_, p_, *mine, trace_.slices[tag - 1]);
    return mine ? uint64_t(mine - trace_.slices.data()) + 1 : 0;  // 0: no slice of the model's
  }

  void onRingChange(const TimingSchedule::RingChange& c) override {
    const size_t i = ring_changes_++;
    const sim::TraceCounter* m = i < trace_.ring_occupancy.size() ? &trace_.ring_occupancy[i] : nullptr;
    if (ring_line_.empty() && !sameRingChange(m, &c)) ring_line_ = ringLine(i, m, &c);
  }

  // The lines of timingDifferences, once the oracle is done.
  std::vector<std::string> differences(const TimingSchedule& summary, const sim::SimStats& stats) {
    Lines lines{{}, max_lines_};
    for (auto& [track, t] : tracks_) {  // the model's slices the oracle has none for
      for (uint32_t m = t.model; m != kNone; m = next_[m])
        t.add(sliceLine(p_, track, t.executions++, &trace_.slices[m], nullptr), max_lines_);
      for (std::string& l : t.lines) lines.add(std::move(l));
      lines.more += t.more;
    }
    if (ring_line_.empty() && ring_changes_ < trace_.ring_occupancy.size())
      ring_line_ = ringLine(ring_changes_, &trace_.ring_occupancy[ring_changes_], nullptr);
    if (!ring_line_.empty()) lines.add(ring_line_);
    compareTotals(lines, summary, stats);
    return lines.done();
  }
  std::vector<std::string> violations() { return violations_.done(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Track {
    uint32_t model = kNone;  // its next slice in the model's trace
    size_t executions = 0;   // the oracle's steps on it so far
    uint64_t last_start = 0;
    std::vector<std::string> lines;  // its first difference lines, at most the limit
    size_t more = 0;
    void add(std::string l, size_t max) {
      if (lines.size() < max) lines.push_back(std::move(l));
      else ++more;
    }
  };
  const Program& p_;
  const sim::Trace& trace_;
  const size_t max_lines_;
  std::vector<uint32_t> next_;      // per model slice: the next on its track
  std::map<uint32_t, Track> tracks_;
  size_t ring_changes_ = 0;         // the oracle's so far
  std::string ring_line_;           // the first ring change that differs
  Lines violations_;
};

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
      if (!sameSlice(ms, os)) lines.add(sliceLine(p, track, i, ms, os));
    }
  }
  const size_t nr = std::max(trace.ring_occupancy.size(), oracle.ring_occupancy.size());
  for (size_t i = 0; i < nr; ++i) {
    const sim::TraceCounter* m = i < trace.ring_occupancy.size() ? &trace.ring_occupancy[i] : nullptr;
    const TimingSchedule::RingChange* o = i < oracle.ring_occupancy.size() ? &oracle.ring_occupancy[i] : nullptr;
    if (sameRingChange(m, o)) continue;
    lines.add(ringLine(i, m, o));
    break;  // one is enough: every later change is shifted
  }
  compareTotals(lines, oracle, stats);
  return lines.done();
}

std::vector<std::string> timingInvariantViolations(const Program& p, const sim::Trace& trace,
                                                   const TimingSchedule* deps, size_t max_lines) {
  Lines lines{{}, max_lines};
  modelInvariants(lines, p, trace);
  if (deps) {
    auto tracks = modelTracks(trace);
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
      for (uint32_t producer : deps->steps[i].producers)
        if (const sim::TraceSlice* ps = slice_of[producer]) checkDependence(lines, p, *s, *ps);
    }
  }
  return lines.done();
}

std::string timingDisagreement(const Program& allocated, const sim::SimOptions& o, const sim::SimStats& stats,
                               const sim::Trace& trace) {
  TimingOracleOptions oo;
  oo.max_steps = o.max_steps;
  oo.max_storage_bytes = o.max_storage_bytes;
  StreamedCheck check(allocated, trace, 8);
  const TimingSchedule summary = timingSchedule(allocated, o.timingFor(allocated), check, oo);
  std::vector<std::string> lines = check.differences(summary, stats);
  for (std::string& v : check.violations()) lines.push_back(std::move(v));
  if (lines.empty()) return "";
  std::string out = "the simulated timing differs from the timing oracle's or breaks an invariant "
                    "(docs/simulator.md \"Timing\"):\n";
  for (const std::string& l : lines) out += "  " + l + "\n";
  return out;
}

TimingCheck checkTiming(const Program& allocated, sim::SimOptions o) {
  TimingCheck c;
  o.trace = &c.trace;
  c.result = sim::simulate(allocated, o);
  TimingOracleOptions oo;
  oo.max_steps = o.max_steps;
  oo.max_storage_bytes = o.max_storage_bytes;
  c.oracle = timingSchedule(allocated, o.timingFor(allocated), oo);
  c.differences = timingDifferences(allocated, c.oracle, c.result.stats, c.trace);
  c.violations = timingInvariantViolations(allocated, c.trace, &c.oracle);
  return c;
}

}  // namespace allocsim::verify
