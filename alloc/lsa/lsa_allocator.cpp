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
  SpacePass(Program& p, Space s, LsaSpillState& st, LsaPassStats& totals, int verbosity, const ProgressFn* progress)
      : p_(p), s_(s), st_(st), totals_(totals), verbosity_(verbosity), progress_(progress) {}

  void run() {
    LsaPassStats& totals = totals_;
    uint32_t bound = 1;  // every rescan follows a spill of a tensor that was spillable (lsa_allocator.h)
    for (const Tensor& t : p_.tensors) bound += t.space == s_ && !t.placement;
    for (;;) {
      if (++totals.scans > bound) throw std::logic_error("linear scan: the spill rescans did not converge");
      reportProgress(progress_, s_ == Space::Psum ? "linear scan, PSUM" : "linear scan, SBUF", totals.scans, "scans");
      // Best fit first; where it fails, the same scan with the free blocks in address order (first fit) before
      // anything is spilled; the spill is the best-fit scan's (lsa_allocator.h).
      if (scanOnce(totals, FreeBlockOrder::BySize, false) || scanOnce(totals, FreeBlockOrder::ByAddress, false))
        break;
      scanOnce(totals, FreeBlockOrder::BySize, true);
      ++totals.spilled;
    }
    const BestFitGeometry g = s_ == Space::Psum ? psumGeometry(p_.arch) : sbufGeometry(p_.arch);
    const double capacity = double(std::max<uint64_t>(uint64_t(g.rows) * g.cols, 1));
    totals.peak_utilization_pct = 100.0 * double(totals.frag.peak_used) / capacity;
  }

 private:
  // One scan over the current program. True when every interval was placed (placements written). Otherwise false,
  // after a spill when `may_spill` (the program was rewritten and must be scanned again), else with nothing changed.
  bool scanOnce(LsaPassStats& totals, FreeBlockOrder order, bool may_spill) {
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
    std::vector<LsaEvent> expired;  // the expiries, recorded by the scan that is kept
    uint64_t footprint = 0;
    for (const LsaInterval& iv : lrm.intervals()) {
      const uint32_t pos = iv.range.first;
      for (const LsaInterval& gone : lrm.expireBefore(pos)) {
        if (verbosity_ >= 2) expired.push_back(lsa_event::Expired{p_.tensors[gone.tensor].name});
        m.deallocate(gone.tensor);
      }
      const MemoryBlock req = BestFitMemoryManager::requestOf(p_.arch, p_.tensors[iv.tensor]);
      const std::optional<MemoryBlock> b = m.allocate(iv.tensor, req.rows, req.cols);
      if (!b) {
        if (!may_spill) return false;
        for (LsaEvent& e : expired) totals_.log.push_back(std::move(e));
        spillAtInterval(live, lrm, m, iv, req);
        return false;
      }
      at[iv.tensor] = *b;
      lrm.makeLive(iv);
      footprint += iv.size;
    }
    for (LsaEvent& e : expired) totals_.log.push_back(std::move(e));
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
    lsa_event::Spilled event;
    event.failed = name;
    const std::vector<ActiveEntry> order = lrm.sorted(pos);
    if (verbosity_ >= 1)
      for (const ActiveEntry& e : order) event.active.push_back(*e.name);
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
    event.victim = p_.tensors[victim].name;
    const uint32_t q = lrm.nextRead(pos, victim);
    if (q != kNone) event.reload_at = printInstruction(p_, *live.order.positions[q].inst);  // before the rewrite
    totals_.log.push_back(std::move(event));
    lsaSpill(p_, victim, st_);
  }

  Program& p_;
  Space s_;
  LsaSpillState& st_;
  LsaPassStats& totals_;
  int verbosity_;
  const ProgressFn* progress_;
};

void requirePsumTensorsFit(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.space == Space::Psum) requirePsumFits(p.arch, t);
}

}  // namespace

LsaResult allocateLinearScan(const Program& input, const LsaOptions& o) {
  LsaResult result{input, {}};
  Program& p = result.program;
  LsaStats& stats = result.stats;
  requirePsumTensorsFit(p);
  requireSbufTensorsFit(p);
  stats.loop_aware = o.loop_aware;
  LsaSpillState st;
  for (Space s : {Space::Psum, Space::Sbuf})
    SpacePass(p, s, st, s == Space::Psum ? stats.psum : stats.sbuf, o.verbosity, o.progress).run();
  stats.spill_stores = st.stores;
  stats.spill_reloads = st.reloads;
  stats.spill_store_bytes = st.stored_bytes;
  p.renumber();
  return result;
}

}  // namespace allocsim
