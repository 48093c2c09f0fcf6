#include "alloc/dma_opt/dead_store.h"

#include <optional>
#include <vector>

namespace allocsim {
namespace {

enum class Fate : uint8_t { Read, Killed, Unknown };

// The first thing that happens to `x` in body[from..]: a read, a kill, or neither.
Fate scan(const Program& p, const std::vector<Instruction>& body, size_t from, const Area& x) {
  for (size_t k = from; k < body.size(); ++k) {
    const Instruction& inst = body[k];
    if (readsAny(areasOf(p, inst), x)) return Fate::Read;
    if (inst.op == Op::Loop || inst.op == Op::Matmul) continue;  // a matmul may keep part of what it accumulates
    if (inst.dst.tensor >= p.tensors.size()) continue;
    const std::optional<Area> w = exactArea(p, inst.dst);
    if (w && contains(*w, x)) return Fate::Killed;
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
        body.erase(body.begin() + long(j));
        --j;
        ++removed_;
      }
    }
  }

  bool isDead(const std::vector<Instruction>& body, size_t j, size_t top) const {
    const Instruction& d = body[j];
    if (!isOptimizable(p_, d, instance_)) return false;
    const Tensor& t = p_.tensors[d.dst.tensor];
    if (t.origin == Origin::Source || t.pinned || t.output) return false;
    const std::optional<Area> x = exactArea(p_, d.dst);
    if (!x) return false;
    switch (scan(p_, body, j + 1, *x)) {
      case Fate::Read: return false;
      case Fate::Killed: return true;
      case Fate::Unknown: break;
    }
    if (top == kNoLoop) return true;  // the end of the program: an inserted tensor is no output
    if (readsAny(areasOf(p_, p_.body[top]), *x)) return false;
    return scan(p_, p_.body, top + 1, *x) != Fate::Read;
  }

  Program& p_;
  DmaOptInstance instance_;
  uint32_t removed_ = 0;
};

}  // namespace

uint32_t removeDeadStores(Program& p, DmaOptInstance instance) { return Remover(p, instance).run(); }

}  // namespace allocsim
