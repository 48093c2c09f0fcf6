#include "alloc/dma_opt/dead_store.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace allocsim {
namespace {

// What scan asks of an instruction: its areas, and the area its destination certainly covers.
struct ScanFacts {
  InstAreas areas;
  std::optional<Area> kills;  // exactArea of the destination; none for a loop or a matmul (see scan)
};

// The facts of the non-loop instructions of each body, computed once: a scan per DMA over the rest of its body
// recomputed them for every instruction each time (O(DMAs x instructions) area computations and allocations, the
// largest part of the DMA optimization at -O2 on 10,000 buffers under pressure). A body is keyed by its elements'
// address, which erasing from it or moving its enclosing loop instruction does not change; a loop's facts
// (everything in its body) are not kept, as erasing in its body changes them.
class FactCache {
 public:
  const ScanFacts& get(const Program& p, const std::vector<Instruction>& body, size_t k) {
    if (body[k].op == Op::Loop) {
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
  // Before body[k] is erased.
  void erase(const std::vector<Instruction>& body, size_t k) {
    auto it = bodies_.find(body.data());
    if (it != bodies_.end() && k < it->second.size()) it->second.erase(it->second.begin() + long(k));
  }

 private:
  std::unordered_map<const Instruction*, std::vector<std::optional<ScanFacts>>> bodies_;
  ScanFacts loop_;
};

enum class Fate : uint8_t { Read, Killed, Unknown };

// The first thing that happens to `x` in body[from..]: a read, a kill, or neither. A matmul may keep part of what
// it accumulates, and a loop kills nothing for sure.
Fate scan(const Program& p, const std::vector<Instruction>& body, size_t from, const Area& x, FactCache& facts) {
  for (size_t k = from; k < body.size(); ++k) {
    const ScanFacts& f = facts.get(p, body, k);
    if (readsAny(f.areas, x)) return Fate::Read;
    if (f.kills && contains(*f.kills, x)) return Fate::Killed;
  }
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
  void visit(std::vector<Instruction>& body, size_t top) {
    for (size_t j = 0; j < body.size(); ++j) {
      if (body[j].op == Op::Loop) {
        visit(body[j].body, top == kNoLoop ? j : top);
        continue;
      }
      if (isDead(body, j, top)) {
        facts_.erase(body, j);
        body.erase(body.begin() + long(j));
        --j;
        ++removed_;
      }
    }
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
    if (readsAny(areasOf(p_, p_.body[top]), *x)) return false;
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
