#include "alloc/dma_opt/dead_store.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/plant.h"

namespace allocsim {
namespace {

// What scan asks of an instruction: its areas, and the area its destination certainly covers.
struct ScanFacts {
  InstAreas areas;
  std::optional<Area> kills;  // exactArea of the destination; none for a loop or a matmul (see scan)
};

// The facts of the non-loop instructions of each body, computed once: a scan per DMA over the rest of its body
// recomputed them for every instruction each time (O(DMAs x instructions) area computations and allocations). A body
// is keyed by its elements' address, which erasing from it or moving its enclosing loop instruction does not change;
// a loop's facts (everything in its body) are not kept, as erasing in its body changes them.
class FactCache {
 public:
  const ScanFacts& get(const Program& p, const std::vector<Instruction>& body, size_t k) {
    if (hasBody(body[k].op)) {
      loop_ = {areasOf(p, body[k]), std::nullopt};
      return loop_;
    }
    std::vector<std::optional<ScanFacts>>& slots = bodies_[body.data()];
    if (slots.size() != body.size()) slots.resize(body.size());
    if (!slots[k]) {
      const Instruction& inst = body[k];
      ScanFacts f{areasOf(p, inst), std::nullopt};
      if (inst.op != Op::Matmul && inst.dst.tensor < p.tensors.size()) f.kills = exactArea(p, inst.dst);
      slots[k] = std::move(f);
    }
    return *slots[k];
  }
  // Before body[k] is erased (never the top level: Remover::visit).
  void erase(const std::vector<Instruction>& body, size_t k) {
    auto it = bodies_.find(body.data());
    if (it != bodies_.end() && k < it->second.size()) it->second.erase(it->second.begin() + long(k));
  }

  // The positions of the top-level body whose facts may read or kill an area of x's own region (a tensor without
  // a placement, dma_footprint.h: nothing but a view of that tensor touches it), ascending; nullptr when x is in a
  // shared region or `body` is not the top level. The other positions can neither read nor kill x, so scan skips
  // them: a spill slot's last store, read by nothing after it, scanned to the end of the program, O(spills x
  // instructions). Built once: the top level is not
  // erased from while the Remover runs, and a loop's areas only shrink as dead stores inside it go, so the
  // positions stay a superset of those that matter, and scan asks each one's current facts.
  const std::vector<size_t>* ownPositions(const Program& p, const std::vector<Instruction>& body, const Area& x) {
    if (x.region != Area::Region::Own || &body != &p.body) return nullptr;
    if (!own_indexed_) {
      own_indexed_ = true;
      for (size_t k = 0; k < body.size(); ++k) {
        const ScanFacts& f = get(p, body, k);
        auto note = [&](const Area& a) {
          if (a.region != Area::Region::Own) return;
          std::vector<size_t>& at = own_at_[a.own];
          if (at.empty() || at.back() != k) at.push_back(k);
        };
        for (const Area& a : f.areas.reads) note(a);
        if (f.kills) note(*f.kills);
      }
    }
    static const std::vector<size_t> kNowhere;
    auto it = own_at_.find(x.own);
    return it == own_at_.end() ? &kNowhere : &it->second;
  }

 private:
  std::unordered_map<const Instruction*, std::vector<std::optional<ScanFacts>>> bodies_;
  ScanFacts loop_;
  bool own_indexed_ = false;
  std::unordered_map<TensorId, std::vector<size_t>> own_at_;  // ownPositions, by tensor
};

enum class Fate : uint8_t { Read, Killed, Unknown };

// The first thing that happens to `x` in body[from..]: a read, a kill, or neither. A matmul may keep part of what
// it accumulates, and a loop kills nothing for sure.
Fate scan(const Program& p, const std::vector<Instruction>& body, size_t from, const Area& x, FactCache& facts) {
  auto fate = [&](size_t k) {
    // A loop kills nothing for sure (its facts have no `kills`): only whether it reads x, asked without listing
    // its areas (they are not cached, FactCache::get).
    if (hasBody(body[k].op))
      return readsAny(p, body[k], x) && !ALLOCSIM_PLANT("dma_dead_store_ignores_loop_reads") ? Fate::Read
                                                                                            : Fate::Unknown;
    const ScanFacts& f = facts.get(p, body, k);
    if (readsAny(f.areas, x)) return Fate::Read;
    if (f.kills && contains(*f.kills, x)) return Fate::Killed;
    return Fate::Unknown;
  };
  if (const std::vector<size_t>* at = facts.ownPositions(p, body, x)) {
    for (auto it = std::lower_bound(at->begin(), at->end(), from); it != at->end(); ++it)
      if (const Fate f = fate(*it); f != Fate::Unknown) return f;
    return Fate::Unknown;
  }
  for (size_t k = from; k < body.size(); ++k)
    if (const Fate f = fate(k); f != Fate::Unknown) return f;
  return Fate::Unknown;
}

class Remover {
 public:
  Remover(Program& p, DmaOptInstance instance) : p_(p), instance_(instance) {}

  uint32_t run() {
    visit(p_.body, kNoLoop);
    p_.renumber();
    return removed_;
  }

 private:
  static constexpr size_t kNoLoop = SIZE_MAX;

  // `top` is the index in p_.body of the outermost loop enclosing `body` (kNoLoop at top level).
  //
  // A dead store at top level is only marked, and the marked ones are erased together at the end: erasing each at
  // once moved the rest of the body every time (O(removed x
  // instructions)). The answers are the same: every later question about the top level scans forward from a later
  // position, or reads a later loop, and never sees the marked instruction. Inside a loop a dead store is still
  // erased at once, as the enclosing loop's areas (isDead) must no longer include it.
  void visit(std::vector<Instruction>& body, size_t top) {
    std::vector<bool> dead;
    if (top == kNoLoop) dead.assign(body.size(), false);
    for (size_t j = 0; j < body.size(); ++j) {
      if (hasBody(body[j].op)) {
        visit(body[j].body, top == kNoLoop ? j : top);
        continue;
      }
      if (!isDead(body, j, top)) continue;
      ++removed_;
      if (top == kNoLoop) {
        dead[j] = true;
        continue;
      }
      facts_.erase(body, j);
      body.erase(body.begin() + long(j));
      --j;
    }
    if (top != kNoLoop || removed_ == 0) return;
    size_t kept = 0;
    for (size_t j = 0; j < body.size(); ++j)
      if (!dead[j]) {
        if (kept != j) body[kept] = std::move(body[j]);
        ++kept;
      }
    body.erase(body.begin() + long(kept), body.end());
  }

  bool isDead(const std::vector<Instruction>& body, size_t j, size_t top) {
    const Instruction& d = body[j];
    if (!isOptimizable(p_, d, instance_)) return false;
    const Tensor& t = p_.tensors[d.dst.tensor];
    if (t.origin == Origin::Source || t.pinned || t.output) return false;
    const std::optional<Area> x = exactArea(p_, d.dst);
    if (!x) return false;
    switch (scan(p_, body, j + 1, *x, facts_)) {
      case Fate::Read: return false;
      case Fate::Killed: return true;
      case Fate::Unknown: break;
    }
    if (top == kNoLoop) return true;  // the end of the program: an inserted tensor is no output
    if (readsAny(p_, p_.body[top], *x)) return false;
    return scan(p_, p_.body, top + 1, *x, facts_) != Fate::Read;
  }

  Program& p_;
  DmaOptInstance instance_;
  FactCache facts_;
  uint32_t removed_ = 0;
};

}  // namespace

uint32_t removeDeadStores(Program& p, DmaOptInstance instance) { return Remover(p, instance).run(); }

}  // namespace allocsim
