#include "tools/report_format.h"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace allocsim::cli {
namespace {

std::string num(double v) { return formatReportNumber(v, 2); }

std::string orderName(const ColorOrderName& o) { return o.heuristic + (o.plain ? " (plain order)" : ""); }

// How the PSUM and SBUF colorers differ in the words of their reports.
struct ColorerWords {
  std::string memory;  // "PSUM" or "SB", as in the lines
  std::string key;     // the fields' prefix: "psum" or "sbuf"
};

// The plain line beside the production allocator's "<ratio>% <memory> demand before ..." line, whose ratio is
// capacity / demand (so 800% means the demand is an eighth of the capacity): what the demand and the capacity are, in
// `unit`.
std::string demandPlainLine(const std::string& memory, const std::string& unit, uint64_t demand, uint64_t max_live,
                            uint64_t capacity) {
  if (demand == 0) return memory + " demand: none (no " + memory + " tensor is live), so the line above says 100%";
  return memory + " demand: " + std::to_string(demand) + " " + unit + " summed over all " + memory +
         " tensors (at most " + std::to_string(max_live) + " live at once) against a capacity of " +
         std::to_string(capacity) + " " + unit + "; the line above is the production compiler's ratio capacity / demand = " +
         num(100.0 * double(capacity) / double(demand)) + "%, i.e. demand is " +
         num(100.0 * double(demand) / double(capacity ? capacity : 1)) + "% of capacity";
}

std::string scoreLine(const std::string& memory, double score) {
  return memory + " score = " + num(score) + " (lower is better)";
}

// One traced event of a colorer's rounds (alloc/colorer_stats.h).
void eventLines(AllocReport& r, const ColorerWords& w, const ColorerEvent& e) {
  using namespace colorer_event;
  std::visit(
      [&](const auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, RunStart>) {
          r.line("heuristic " + ev.heuristic + ": its spill fixpoint");
        } else if constexpr (std::is_same_v<T, RoundStart>) {
          r.line("spill round " + std::to_string(ev.round));
        } else if constexpr (std::is_same_v<T, Tried>) {
          r.line("best-of-n loop, heuristic = " + orderName(ev.order));
          if (ev.sizes) {  // simplify's worklist sizes and their total, one indented line each
            r.line("            lo = " + std::to_string(ev.sizes->lo));
            r.line("            hi = " + std::to_string(ev.sizes->hi));
            r.line("            inf = " + std::to_string(ev.sizes->inf));
            r.line("            total = " + std::to_string(ev.sizes->lo + ev.sizes->hi + ev.sizes->inf));
          }
          for (const FailedNode& f : ev.failed)
            r.line(f.tensor + " cannot allocate " +
                   (w.key == "psum" ? std::to_string(f.size) + " banks"
                                    : std::to_string(f.size) + " partitions x " + std::to_string(f.bytes) + " bytes"));
          r.line(scoreLine(w.memory, ev.score));
        } else if constexpr (std::is_same_v<T, RoundBest>) {
          r.line("best " + w.memory + " heuristic = " + orderName(ev.order));
        } else if constexpr (std::is_same_v<T, Spilled>) {
          const std::string to = w.key == "psum" ? "" : " to DRAM";
          for (const std::string& t : ev.spilled) r.line("spill " + t + to);
          for (const std::string& t : ev.rehomed) r.line("rehome " + t + " to DRAM");
        } else if constexpr (std::is_same_v<T, Abandoned>) {
          r.line("abandoned: " + std::to_string(ev.spill_bytes) + " bytes spilled, a finished run spilled " +
                 std::to_string(ev.bound));
        } else if constexpr (std::is_same_v<T, Inserted>) {
          r.line("insert spill " + std::to_string(ev.stores) + ", insert reload " + std::to_string(ev.reloads));
        }
      },
      e);
}

// The closing lines, then the fields <key>.score, .best_heuristic, .spill_cost_cycles, .tensors_spilled, the
// colorer's own fields, .utilization_pct and .rounds.
void summary(AllocReport& r, const ColorerWords& w, const ColorerOutcome& s, bool traced,
             const std::vector<std::pair<std::string, int64_t>>& own_fields, const std::string& utilization_meaning) {
  // Traced reports have these per heuristic and round already; the final ones are repeated here, so that every
  // verbosity ends on the same score (the one the fields hold).
  if (traced)
    r.line("final selection (spill round " + std::to_string(s.rounds) + " of " + std::to_string(s.rounds) + "):");
  r.line(scoreLine(w.memory, s.score));
  r.line("best " + w.memory + " heuristic = " + orderName(s.best));
  r.line("spilling from " + w.memory + " cost about " + num(s.spill_cycles) + " cycles");
  r.line("number of tensors spilled from " + w.memory + " = " + std::to_string(s.tensors_spilled));
  r.line(num(s.utilization_pct) + "% " + w.memory + " utilization after allocation");
  r.line(w.memory + " utilization: " + utilization_meaning);
  r.set(w.key + ".score", s.score);
  r.set(w.key + ".best_heuristic", orderName(s.best));
  r.set(w.key + ".spill_cost_cycles", s.spill_cycles);
  r.set(w.key + ".tensors_spilled", int64_t(s.tensors_spilled));
  for (const auto& [key, value] : own_fields) r.set(w.key + "." + key, value);
  r.set(w.key + ".utilization_pct", s.utilization_pct);
  r.set(w.key + ".rounds", int64_t(s.rounds));
}

AllocReport formatNoReuse(const NoReuseStats& s) {
  AllocReport r;
  r.line("no-reuse placement (O0): " + std::to_string(s.sbuf_tensors) + " SBUF and " + std::to_string(s.psum_tensors) +
         " PSUM tensors, each in storage of its own");
  r.set("no_reuse.sbuf_tensors", int64_t(s.sbuf_tensors));
  r.set("no_reuse.psum_tensors", int64_t(s.psum_tensors));
  return r;
}

AllocReport formatInPlace(const InPlaceStats& s) {
  AllocReport r;
  r.line("fixed assignment (O7): " + std::to_string(s.fixed_tensors) + " tensor and " +
         std::to_string(s.fixed_registers) +
         " register placements reproduced from the input; no PSUM coloring pass; SBUF pass " +
         (s.sbuf_pass ? "ran" : "skipped"));
  r.line("in-place write checker: " + std::to_string(s.checked) + " placements re-placed, no conflict");
  r.set("in_place.fixed_tensors", int64_t(s.fixed_tensors));
  r.set("in_place.fixed_registers", int64_t(s.fixed_registers));
  r.set("in_place.checked", int64_t(s.checked));
  return r;
}

AllocReport formatValueSplit(const ValueSplitStats& s) {
  AllocReport r;
  r.line(std::to_string(s.tensors) + (s.tensors == 1 ? " tensor" : " tensors") + " with several values split into " +
         std::to_string(s.values) + " more " + (s.values == 1 ? "tensor" : "tensors") + ", one per value");
  r.set("values.split_tensors", int64_t(s.tensors));
  r.set("values.added_tensors", int64_t(s.values));
  return r;
}

}  // namespace

AllocReport formatPsum(const PsumStats& s) {
  const ColorerWords w{"PSUM", "psum"};
  AllocReport r;
  auto demand = [&] {
    r.line(num(s.demand_pct) + "% PSUM demand before spilling");
    r.line(demandPlainLine("PSUM", "banks", s.bank_demand, s.max_concurrent_banks, s.banks));
    r.set("psum.demand_before_spilling_pct", s.demand_pct);
    r.set("psum.banks", int64_t(s.banks));
    r.set("psum.bank_demand", int64_t(s.bank_demand));
    r.set("psum.max_concurrent_banks", int64_t(s.max_concurrent_banks));
  };
  if (s.trace.on) r.line(" allocating PSUM");
  else demand();
  bool first_round = true;
  for (const ColorerEvent& e : s.trace.events) {
    eventLines(r, w, e);
    if (first_round && std::holds_alternative<colorer_event::RoundStart>(e)) {  // measured in the first round
      demand();
      first_round = false;
    }
  }
  summary(r, w, s.outcome, s.trace.on,
          {{"spill_saves", int64_t(s.spill_saves)},
           {"spill_reloads", int64_t(s.spill_reloads)},
           {"banks_used", int64_t(s.banks_used)}},
          std::to_string(s.banks_used) + " of " + std::to_string(s.banks) +
              " banks hold a tensor that is live at some point");
  return r;
}

AllocReport formatSbuf(const SbufStats& s) {
  const ColorerWords w{"SB", "sbuf"};
  AllocReport r;
  if (s.trace.on) r.line(" allocating SB");
  r.line(num(s.demand_pct) + "% SB demand before allocation");
  r.line(demandPlainLine("SB", "bytes", s.demand_bytes, s.max_live_bytes, s.capacity_bytes));
  r.set("sbuf.demand_before_allocation_pct", s.demand_pct);
  r.set("sbuf.capacity_bytes", int64_t(s.capacity_bytes));
  r.set("sbuf.demand_bytes", int64_t(s.demand_bytes));
  r.set("sbuf.max_live_bytes", int64_t(s.max_live_bytes));
  for (const ColorerEvent& e : s.trace.events) eventLines(r, w, e);
  if (s.trace.on) {
    switch (s.packing) {
      case SbufStats::Packing::NotTried: break;
      case SbufStats::Packing::NotSearched:
        r.line("exact packing: not searched, the best run spills nothing and its footprint is the max-live bound (" +
               std::to_string(s.max_live_bytes) + " bytes)");
        break;
      case SbufStats::Packing::Found:
        r.line("exact packing: height within the capacity, " + std::to_string(s.packing_footprint) + " bytes");
        r.line(scoreLine("SB", s.packing_score));
        break;
      case SbufStats::Packing::None: r.line("exact packing: none within the capacity"); break;
    }
    r.line("best heuristic's fixpoint: " + orderName(s.outcome.best));
  }
  for (const SbufSplitCopy& c : s.split_log)
    r.line("live-range split: copy '" + c.copy + "' of '" + c.tensor + "' inserted after " +
           (c.line ? "line " + std::to_string(c.line) : std::string("a statement without a source line")) +
           "; the later mentions of '" + c.tensor + "' use the copy");
  summary(r, w, s.outcome, s.trace.on,
          {{"spill_stores", int64_t(s.spill_stores)},
           {"spill_reloads", int64_t(s.spill_reloads)},
           {"spill_bytes", int64_t(s.spill_bytes)},
           {"footprint_bytes", int64_t(s.footprint_bytes)},
           {"rotation_bytes", int64_t(s.rotation_bytes)},
           {"headroom_bytes", int64_t(s.headroom_bytes)}},
          std::to_string(s.footprint_bytes + s.rotation_bytes + s.headroom_bytes) + " of " +
              std::to_string(s.capacity_bytes) +
              " bytes: each partition's high-water mark (largest offset + size), summed over the partitions" +
              (s.rotation_bytes == 0 ? std::string()
                                     : "; " + std::to_string(s.rotation_bytes) +
                                           " of them below the peak, from keeping a loop's freshly freed bytes apart") +
              (s.headroom_bytes == 0 ? std::string()
                                     : "; " + std::to_string(s.headroom_bytes) +
                                           " of them above it, from the loads moved into the load headroom"));
  return r;
}

AllocReport formatReg(const RegStats& s) {
  AllocReport r;
  for (size_t i = 0; i < s.round_log.size(); ++i) {
    const RegRound& round = s.round_log[i];
    // "interation": the production allocator's spelling
    r.line("REG GCA interation nums = " + std::to_string(i + 1));
    r.line("REG score = " + formatReportNumber(round.score, 3) + " (lower is better)");
    if (s.traced && !round.spilled.empty()) {
      std::string names;
      for (const std::string& n : round.spilled) names += (names.empty() ? "" : ", ") + n;
      r.line("REG round " + std::to_string(i + 1) + ": " + std::to_string(round.uncolored) + " uncolored, spilling " +
             names);
    }
  }
  r.set("reg.ssa_split", int64_t(s.ssa_split));
  r.set("reg.rounds", int64_t(s.rounds));
  r.set("reg.score", s.score);
  r.set("reg.edges", int64_t(s.edges));
  r.set("reg.coalesced_copies", int64_t(s.coalesced_copies));
  r.line("Number of registers spilled = " + std::to_string(s.spilled));
  r.line("Spilling from REG cost about " + std::to_string(s.spill_cycles) + " cycles");
  r.line(formatReportNumber(s.utilization_pct) + "% REG utilization after allocation");
  r.set("reg.method", std::string("coloring"));
  r.set("reg.registers", int64_t(s.registers));
  r.set("reg.spilled", int64_t(s.spilled));
  r.set("reg.spilled_loop_registers", int64_t(s.spilled_loop_registers));
  r.set("reg.spill_stores", int64_t(s.spill_stores));
  r.set("reg.spill_reloads", int64_t(s.spill_reloads));
  r.set("reg.spill_cycles", int64_t(s.spill_cycles));
  r.set("reg.lanes_used", int64_t(s.lanes_used));
  r.set("reg.lanes", int64_t(s.lanes));
  r.set("reg.utilization_pct", s.utilization_pct);
  return r;
}

AllocReport formatLsa(const LsaStats& s) {
  AllocReport r;
  r.line(s.loop_aware ? "Linear Scan Allocator(LIW)" : "Linear Scan Allocator");
  r.set("lsa.loop_aware", int64_t(s.loop_aware));
  for (const bool psum : {true, false}) {
    const LsaPassStats& t = psum ? s.psum : s.sbuf;
    const std::string type = psum ? "PSUM" : "SB";  // the log channel of the production allocator
    r.line(" allocating " + type);
    for (const LsaEvent& e : t.log) {
      if (const auto* gone = std::get_if<lsa_event::Expired>(&e)) {
        r.line(gone->tensor + " has no more uses");
        r.line(gone->tensor + " erased");
        continue;
      }
      const auto& sp = std::get<lsa_event::Spilled>(e);
      r.line("Failed to allocate " + sp.failed);
      for (size_t i = 0; i < sp.active.size(); ++i) r.line(std::to_string(i) + ": " + sp.active[i] + " (" + type + ")");
      r.line("Spilling " + sp.victim);
      r.line(sp.reload_at ? "It will be reloaded at " + *sp.reload_at
                          : std::string("It will not be reloaded: no later instruction reads it"));
    }
    r.line(formatReportNumber(t.peak_utilization_pct) + "% " + type + " peak utilization after linear scan, " +
           std::to_string(t.spilled) + " spilled, " + std::to_string(t.scans) + (t.scans == 1 ? " scan" : " scans"));
    r.line("BestFit " + type + " fragmentation p50 = " + formatReportNumber(t.frag.fragmentation_p50, 3) +
           ", p90 = " + formatReportNumber(t.frag.fragmentation_p90, 3) + " over " + std::to_string(t.frag.samples) +
           " allocations");
    const std::string k = psum ? "lsa.psum." : "lsa.sbuf.";
    r.set(k + "tensors_placed", int64_t(t.placed));
    r.set(k + "spilled", int64_t(t.spilled));
    r.set(k + "scans", int64_t(t.scans));
    r.set(k + "footprint", int64_t(t.footprint));
    r.set(k + "peak_used", int64_t(t.frag.peak_used));
    r.set(k + "peak_utilization_pct", t.peak_utilization_pct);
    r.set(k + "fragmentation_p50", t.frag.fragmentation_p50);
    r.set(k + "fragmentation_p90", t.frag.fragmentation_p90);
    r.set(k + "block_p50", t.frag.block_p50);
    r.set(k + "block_p90", t.frag.block_p90);
  }
  r.set("lsa.spill_stores", int64_t(s.spill_stores));
  r.set("lsa.spill_reloads", int64_t(s.spill_reloads));
  r.set("lsa.spill_store_bytes", int64_t(s.spill_store_bytes));
  if (s.dram_slots_placed) {
    r.line("DRAM spill slots placed without reuse (O8): " + std::to_string(*s.dram_slots_placed));
    r.set("lsa.dram_slots_placed", int64_t(*s.dram_slots_placed));
  }
  return r;
}

// DMAReport::DMA_analysis's line: "<label> DMA instructions: N (executed M), descriptors: D, bytes: B".
static std::string dmaTrafficLine(const std::string& label, const DmaTraffic& t) {
  return label + " DMA instructions: " + std::to_string(t.instructions) + " (executed " + std::to_string(t.executed) +
         "), descriptors: " + std::to_string(t.descriptors) + ", bytes: " + std::to_string(t.bytes);
}

static void setTraffic(AllocReport& r, const std::string& prefix, const DmaTraffic& t) {
  r.set(prefix + ".instructions", int64_t(t.instructions));
  r.set(prefix + ".executed", int64_t(t.executed));
  r.set(prefix + ".descriptors", int64_t(t.descriptors));
  r.set(prefix + ".bytes", int64_t(t.bytes));
}

AllocReport formatDmaOpt(const DmaOptStats& s) {
  AllocReport r;
  const std::string name = dmaOptInstanceName(s.instance);
  r.set("dma.level", int64_t(s.level));
  if (!s.ran) {
    r.line(s.level < 0 ? name + ": off (--gca-dma-optlevel -1)" : name + ": skipped, the program has no DMA");
    r.set("dma.ran", std::string(s.level < 0 ? "off" : "skipped"));
    return r;
  }
  r.set("dma.ran", std::string("yes"));
  r.line(dmaTrafficLine("Pre GCA", s.pre));
  for (const DmaOptEvent& e : s.log) {
    if (const auto* rm = std::get_if<dma_event::Removed>(&e)) {
      r.line("load merging: removed `" + rm->instruction + "` (" + std::to_string(rm->line) + ":" +
             std::to_string(rm->col) + "): its data is resident in '" + rm->resident + "'");
      continue;
    }
    const auto& c = std::get<dma_event::CopyConsidered>(e);
    r.line("IO to Internal copy instruction increases DMA ring usage by 0");
    r.line("leads to DMA ring decrease " + std::to_string(c.ring_decrease));
    r.line("leads to scratch pad increase: '" + c.resident + "' held " + std::to_string(c.distance) +
           " instructions longer for " + std::to_string(c.bytes) + " bytes per partition; " +
           (c.taken ? "copy inserted" : "kept the DMA"));
  }
  if (s.instance == DmaOptInstance::Psum && s.level >= 1)
    r.line("[psum spill optimization]: removed " + std::to_string(s.psum_spill_removed));
  r.line(dmaTrafficLine("Post GCA", s.post));
  r.line("DMA optimization: " + std::to_string(s.loads_removed) + " redundant loads and " +
         std::to_string(s.saves_removed) + " redundant saves removed, " + std::to_string(s.dead_removed) +
         " dead stores removed, " + std::to_string(s.copies) + " loads turned into on-chip copies, " +
         std::to_string(s.coalesced) + " DMAs coalesced away, " + std::to_string(s.partial) + " DMAs narrowed, " +
         std::to_string(s.tensors_removed) + " tensors removed");
  setTraffic(r, "dma.pre_gca", s.pre);
  setTraffic(r, "dma.post_gca", s.post);
  r.set("dma.loads_removed", int64_t(s.loads_removed));
  r.set("dma.saves_removed", int64_t(s.saves_removed));
  r.set("dma.dead_stores_removed", int64_t(s.dead_removed));
  r.set("dma.copies", int64_t(s.copies));
  r.set("dma.coalesced", int64_t(s.coalesced));
  r.set("dma.partial", int64_t(s.partial));
  r.set("dma.tensors_removed", int64_t(s.tensors_removed));
  r.set("dma.psum_spill_removed", int64_t(s.psum_spill_removed));
  return r;
}

AllocReport formatExact(const ExactStats& s) {
  AllocReport r;
  if (s.split_tensors > 0)
    r.line("values: " + std::to_string(s.split_tensors) + " tensors split into " + std::to_string(s.split_values) +
           " more, one per value");
  for (const bool sbuf : {false, true}) {
    const ExactSpaceStats& x = sbuf ? s.sbuf : s.psum;
    const std::string name = sbuf ? "SBUF" : "PSUM";
    const std::string key = sbuf ? "exact.sbuf." : "exact.psum.";
    const std::string unit = sbuf ? " bytes" : " banks";
    r.set(key + "tensors", int64_t(x.tensors));
    r.set(key + "status", std::string(exactStatusName(x.status)));
    r.set(key + "height", int64_t(x.height));
    r.set(key + "lower_bound", int64_t(x.lower_bound));
    r.set(key + "nodes", int64_t(x.nodes));
    r.set(key + "seconds", x.seconds);
    const std::string shape = sbuf && x.rows > 1 ? " (" + std::to_string(x.rows) + " partitions x bytes)" : "";
    const double gap = x.lower_bound ? double(x.height) / double(x.lower_bound) : 1.0;
    r.line("exact " + name + ": " + std::to_string(x.tensors) + " live " + name + " tensors" + shape +
           " placed within " + std::to_string(x.capacity) + unit + ", height " + std::to_string(x.height) +
           " (lower bound " + std::to_string(x.lower_bound) + ", " + formatReportNumber(gap, 3) + "x), by " +
           x.method + ", " + std::to_string(x.nodes) + " nodes, " + formatReportNumber(x.seconds, 3) + " s");
  }
  return r;
}

AllocReport formatLiveness(const LivenessStats& s) {
  AllocReport r;
  const uint32_t asked = s.per_iteration + s.carried + s.undecidable;
  r.line(std::to_string(asked) + " (tensor, loop) back-edge questions decided from the views: " +
         std::to_string(s.per_iteration) + " per iteration, " + std::to_string(s.carried) + " loop-carried, " +
         std::to_string(s.undecidable) + " undecidable (kept live over the loop: the conservative rule)");
  r.set("liveness.per_iteration", int64_t(s.per_iteration));
  r.set("liveness.carried", int64_t(s.carried));
  r.set("liveness.undecidable", int64_t(s.undecidable));
  return r;
}

std::string stepName(const StepStats& s) {
  struct Name {
    std::string operator()(const NoReuseStats&) const { return "no-reuse"; }
    std::string operator()(const PsumStats&) const { return "psum"; }
    std::string operator()(const SbufStats&) const { return "sbuf"; }
    std::string operator()(const RegStats&) const { return "reg"; }
    std::string operator()(const LsaStats&) const { return "lsa"; }
    std::string operator()(const DmaOptStats& x) const { return dmaOptInstanceName(x.instance); }
    std::string operator()(const ExactStats&) const { return "exact"; }
    std::string operator()(const InPlaceStats&) const { return "in-place"; }
    std::string operator()(const ValueSplitStats&) const { return "values"; }
  };
  return std::visit(Name{}, s);
}

AllocReport formatStep(const StepStats& s) {
  struct Body {
    AllocReport operator()(const NoReuseStats& x) const { return formatNoReuse(x); }
    AllocReport operator()(const PsumStats& x) const { return formatPsum(x); }
    AllocReport operator()(const SbufStats& x) const { return formatSbuf(x); }
    AllocReport operator()(const RegStats& x) const { return formatReg(x); }
    AllocReport operator()(const LsaStats& x) const { return formatLsa(x); }
    AllocReport operator()(const DmaOptStats& x) const { return formatDmaOpt(x); }
    AllocReport operator()(const ExactStats& x) const { return formatExact(x); }
    AllocReport operator()(const InPlaceStats& x) const { return formatInPlace(x); }
    AllocReport operator()(const ValueSplitStats& x) const { return formatValueSplit(x); }
  };
  AllocReport r;
  r.set("allocator", stepName(s));
  r.append(std::visit(Body{}, s));
  return r;
}

}  // namespace allocsim::cli
