#include "alloc/lsa/lsa_allocator.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/copy_tensor.h"
#include "alloc/lsa/best_fit_memory_manager.h"
#include "alloc/lsa/live_range_manager.h"
#include "alloc/lsa/lsa_spill.h"
#include "alloc/psum/psum_bank_model.h"
#include "alloc/sbuf/sbuf_allocator.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "ir/print.h"

namespace allocsim {
namespace {

// The log channel of allocate(Function*): "PSUM" if the memory type is PSUM, else "SB".
const char* memoryTypeName(Space s) { return s == Space::Psum ? "PSUM" : "SB"; }
const char* fieldPrefix(Space s) { return s == Space::Psum ? "lsa.psum." : "lsa.sbuf."; }

struct PassTotals {
  uint32_t rounds = 0, spilled = 0;
  uint64_t footprint = 0;  // the production footprint: the live sizes of every interval allocated (last round)
  uint64_t placed = 0;
  FragmentationStats frag;
};

std::string demandText(const Program& p, Space s, const BestFitMemoryManager& m) {
  const BestFitGeometry& g = m.geometry();
  const uint64_t window = uint64_t(g.rows) * g.cols;
  if (s == Space::Psum)
    return std::to_string(m.usedCells()) + " of " + std::to_string(window) + " PSUM banks in use";
  return std::to_string(m.usedCells()) + " of " + std::to_string(window) + " SBUF partition-bytes in use (" +
         std::to_string(p.arch.sbuf_partitions) + " partitions x " + std::to_string(p.arch.sbuf_bytes) + " bytes)";
}

std::string requestText(Space s, const MemoryBlock& req) {
  if (s == Space::Psum) return std::to_string(req.cols) + (req.cols == 1 ? " bank" : " banks");
  return std::to_string(req.rows) + " partitions x " + std::to_string(req.cols) + " bytes";
}

class SpacePass {
 public:
  SpacePass(Program& p, Space s, LsaSpillState& st, AllocReport& r, int verbosity, const ProgressFn* progress)
      : p_(p), s_(s), st_(st), r_(r), verbosity_(verbosity), progress_(progress) {}

  PassTotals run() {
    PassTotals totals;
    uint32_t bound = 1;  // every rescan follows a spill of a tensor that was spillable (lsa_allocator.h)
    for (const Tensor& t : p_.tensors) bound += t.space == s_ && !t.placement;
    for (;;) {
      if (++totals.rounds > bound) throw std::logic_error("linear scan: the spill rescans did not converge");
      reportProgress(progress_, s_ == Space::Psum ? "linear scan, PSUM" : "linear scan, SBUF", totals.rounds, "scans");
      // Best fit first; where it fails, the same scan with the free blocks in address order (first fit) before
      // anything is spilled; the spill is the best-fit scan's (lsa_allocator.h).
      if (scanOnce(totals, FreeBlockOrder::BySize, false) || scanOnce(totals, FreeBlockOrder::ByAddress, false))
        break;
      scanOnce(totals, FreeBlockOrder::BySize, true);
      ++totals.spilled;
    }
    return totals;
  }

 private:
  // One scan over the current program. True when every interval was placed (placements written). Otherwise false,
  // after a spill when `may_spill` (the program was rewritten and must be scanned again), else with nothing changed.
  bool scanOnce(PassTotals& totals, FreeBlockOrder order, bool may_spill) {
    p_.renumber();
    st_.local.resize(p_.tensors.size(), false);
    const Liveness live = s_ == Space::Sbuf ? sbufLiveness(p_, st_.local) : computeLiveness(p_);
    BestFitMemoryManager m(p_.arch, s_);
    m.setFreeBlockOrder(order);
    std::vector<bool> mine(p_.tensors.size(), false);
    for (TensorId t = 0; t < p_.tensors.size(); ++t) {
      const Tensor& x = p_.tensors[t];
      if (x.space != s_) continue;
      if (!x.placement) {
        mine[t] = true;
      } else if (!live.tensors[t].empty()) {
        m.obstruct(BestFitMemoryManager::blockOf(p_.arch, x, *x.placement));  // fixed by the input or a pass
      }
    }
    LiveRangeManager lrm(p_, live, s_, mine);
    std::vector<MemoryBlock> at(p_.tensors.size());
    std::vector<std::string> expired;  // the expiry lines, reported by the scan that is kept
    uint64_t footprint = 0;
    for (const LsaInterval& iv : lrm.intervals()) {
      const uint32_t pos = iv.range.first;
      for (const LsaInterval& gone : lrm.expireBefore(pos)) {
        if (verbosity_ >= 2) {
          expired.push_back(p_.tensors[gone.tensor].name + " has no more uses");
          expired.push_back(p_.tensors[gone.tensor].name + " erased");
        }
        m.deallocate(gone.tensor);
      }
      const MemoryBlock req = BestFitMemoryManager::requestOf(p_.arch, p_.tensors[iv.tensor]);
      const std::optional<MemoryBlock> b = m.allocate(iv.tensor, req.rows, req.cols);
      if (!b) {
        if (!may_spill) return false;
        for (std::string& line : expired) r_.line(std::move(line));
        spillAtInterval(live, lrm, m, iv, req);
        return false;
      }
      at[iv.tensor] = *b;
      lrm.makeLive(iv);
      footprint += iv.size;
    }
    for (std::string& line : expired) r_.line(std::move(line));
    // Tensors that executed code never mentions interfere with nothing: the window's origin is legal for all.
    for (TensorId t = 0; t < p_.tensors.size(); ++t) {
      if (!mine[t]) continue;
      if (live.tensors[t].empty()) at[t] = BestFitMemoryManager::requestOf(p_.arch, p_.tensors[t]);
      p_.tensors[t].placement = BestFitMemoryManager::placementOf(s_, at[t]);
      ++totals.placed;
    }
    totals.footprint = footprint;
    totals.frag = m.stats();
    return true;
  }

  void spillAtInterval(const Liveness& live, const LiveRangeManager& lrm, const BestFitMemoryManager& m,
                       const LsaInterval& iv, const MemoryBlock& req) {
    const uint32_t pos = iv.range.first;
    const std::string name = p_.tensors[iv.tensor].name;
    r_.line("Failed to allocate " + name);
    const std::vector<ActiveEntry> order = lrm.sorted(pos);
    if (verbosity_ >= 1)
      for (size_t i = 0; i < order.size(); ++i)
        r_.line(std::to_string(i) + ": " + *order[i].name + " (" + memoryTypeName(s_) + ")");
    // The head of the order that can be spilled; one the instruction being allocated uses only when no other
    // can be (its stand-in is live there too: only a fresh placement of the stand-in may help).
    TensorId victim = kNone;
    for (bool allow_used : {false, true})
      for (const ActiveEntry& e : order) {
        if (victim != kNone || e.in_instruction != allow_used) continue;
        if (lsaSpillObstacle(p_, e.tensor, st_).empty()) victim = e.tensor;
      }
    if (victim == kNone) {
      std::string msg = "Failed to allocate " + name + ": no free block of " + requestText(s_, req) + " next to the " +
                        std::to_string(order.size()) + " live " + (order.size() == 1 ? "tensor" : "tensors") +
                        " (" + demandText(p_, s_, m) + ")";
      if (order.empty()) {
        msg += ", and nothing is live to spill";
      } else {
        // The tensors live there, their sizes and why each stays (at most eight named).
        msg += ", none of which can be spilled: ";
        for (size_t i = 0; i < order.size() && i < 8; ++i) {
          const std::string obstacle = lsaSpillObstacle(p_, order[i].tensor, st_);
          msg += (i ? ", '" : "'") + *order[i].name + "' (" + std::to_string(order[i].size) +
                 (s_ == Space::Psum ? (order[i].size == 1 ? " bank" : " banks") : " bytes over its partitions") +
                 (obstacle.empty() ? "" : ", " + obstacle) + ")";
        }
        if (order.size() > 8) msg += " and " + std::to_string(order.size() - 8) + " more";
      }
      throw AllocError(declarationLoc(p_, iv.tensor), msg);
    }
    r_.line("Spilling " + p_.tensors[victim].name);
    const uint32_t q = lrm.nextRead(pos, victim);
    if (q != kNone)
      r_.line("It will be reloaded at " + printInstruction(p_, *live.order.positions[q].inst));
    else
      r_.line("It will not be reloaded: no later instruction reads it");
    lsaSpill(p_, victim, st_);
  }

  Program& p_;
  Space s_;
  LsaSpillState& st_;
  AllocReport& r_;
  int verbosity_;
  const ProgressFn* progress_;
};

void requirePsumTensorsFit(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Psum) requirePsumFits(p.arch, t);
}

void reportPass(AllocReport& r, Space s, const PassTotals& t, const Arch& arch) {
  if (!reportsOn()) return;  // its lines and figures would be dropped: not built (alloc/report.h)
  const std::string k = fieldPrefix(s);
  const BestFitGeometry g = s == Space::Psum ? psumGeometry(arch) : sbufGeometry(arch);
  const double capacity = double(std::max<uint64_t>(uint64_t(g.rows) * g.cols, 1));
  const double utilization = 100.0 * double(t.frag.peak_used) / capacity;
  const std::string type = memoryTypeName(s);
  r.line(formatReportNumber(utilization) + "% " + type + " peak utilization after linear scan, " +
         std::to_string(t.spilled) + " spilled, " + std::to_string(t.rounds) +
         (t.rounds == 1 ? " scan" : " scans"));
  r.line("BestFit " + type + " fragmentation p50 = " + formatReportNumber(t.frag.fragmentation_p50, 3) +
         ", p90 = " + formatReportNumber(t.frag.fragmentation_p90, 3) + " over " + std::to_string(t.frag.samples) +
         " allocations");
  r.set(k + "tensors_placed", int64_t(t.placed));
  r.set(k + "spilled", int64_t(t.spilled));
  r.set(k + "scans", int64_t(t.rounds));
  r.set(k + "footprint", int64_t(t.footprint));
  r.set(k + "peak_used", int64_t(t.frag.peak_used));
  r.set(k + "peak_utilization_pct", utilization);
  r.set(k + "fragmentation_p50", t.frag.fragmentation_p50);
  r.set(k + "fragmentation_p90", t.frag.fragmentation_p90);
  r.set(k + "block_p50", t.frag.block_p50);
  r.set(k + "block_p90", t.frag.block_p90);
}

}  // namespace

LsaResult allocateLinearScan(const Program& input, const LsaOptions& o) {
  LsaResult result{input, {}};
  Program& p = result.program;
  AllocReport& r = result.report;
  requirePsumTensorsFit(p);
  requireSbufTensorsFit(p);
  r.line(o.loop_aware ? "Linear Scan Allocator(LIW)" : "Linear Scan Allocator");
  r.set("lsa.loop_aware", int64_t(o.loop_aware));
  LsaSpillState st;
  for (Space s : {Space::Psum, Space::Sbuf}) {
    r.line(std::string(" allocating ") + memoryTypeName(s));
    const PassTotals t = SpacePass(p, s, st, r, o.verbosity, o.progress).run();
    reportPass(r, s, t, p.arch);
  }
  r.set("lsa.spill_stores", int64_t(st.stores));
  r.set("lsa.spill_reloads", int64_t(st.reloads));
  r.set("lsa.spill_store_bytes", int64_t(st.stored_bytes));
  p.renumber();
  return result;
}

}  // namespace allocsim
