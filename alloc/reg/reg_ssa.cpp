#include "alloc/reg/reg_ssa.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "alloc/linear_order.h"
#include "alloc/reg/reg_operands.h"
#include "ir/plant.h"

namespace allocsim {
namespace {

// A sorted set of def ids. Most hold one (a register's last write), without a heap block: the pass runs on every REG
// allocation, and a vector per register and per loop state was most of its blocks. Invariant: `many_` is empty or
// holds the whole set (two ids or more); otherwise `has_one_` tells whether `one_` is its only id.
class DefSet {
 public:
  const uint32_t* begin() const { return many_.empty() ? &one_ : many_.data(); }
  const uint32_t* end() const { return many_.empty() ? &one_ + (has_one_ ? 1 : 0) : many_.data() + many_.size(); }
  bool empty() const { return !has_one_ && many_.empty(); }
  uint32_t front() const { return *begin(); }  // the smallest id
  void clear() {
    many_.clear();  // keeps its room
    has_one_ = false;
  }
  void setOnly(uint32_t d) {
    clear();
    one_ = d;
    has_one_ = true;
  }
  // *this |= b; whether it grew. Most merges add nothing (a loop's second pass, a register the body does not write).
  bool merge(const DefSet& b) {
    bool grew = false;
    for (uint32_t d : b)
      if (!std::binary_search(begin(), end(), d)) {
        insert(d);
        grew = true;
      }
    return grew;
  }

 private:
  void insert(uint32_t d) {  // d is not in the set
    if (empty()) return setOnly(d);
    if (many_.empty()) {
      many_ = d < one_ ? std::vector<uint32_t>{d, one_} : std::vector<uint32_t>{one_, d};
      has_one_ = false;
      return;
    }
    many_.insert(std::upper_bound(many_.begin(), many_.end(), d), d);
  }

  std::vector<uint32_t> many_;
  uint32_t one_ = 0;
  bool has_one_ = false;
};
using State = std::vector<DefSet>;  // by RegId

bool mergeState(State& a, const State& b) {
  bool grew = false;
  for (size_t r = 0; r < a.size(); ++r) grew |= a[r].merge(b[r]);
  return grew;
}

struct UnionFind {
  std::vector<uint32_t> parent;
  uint32_t add() {
    parent.push_back(uint32_t(parent.size()));
    return parent.back();
  }
  uint32_t find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(uint32_t a, uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the earlier def represents
  }
};

// A mention to rename: instruction id, slot (index into registerSlots' reads; kWriteSlot = the write / loop rd).
constexpr uint32_t kWriteSlot = UINT32_MAX;
struct Mention {
  uint32_t inst = 0, slot = 0;
  RegId reg = kNone;
  uint32_t def = 0;  // the def id whose web it belongs to
};

class Splitter {
 public:
  Splitter(Program& p, const std::vector<bool>& kept) : p_(p), kept_(kept) {}

  uint32_t run(uint32_t& next_id) {
    p_.renumber();
    const LinearOrder order = linearize(p_);
    def_of_pos_.assign(order.positions.size(), kNoDef);
    // Def ids are assigned on the first pass and reused on later ones (a position's def id is fixed).
    const size_t n = p_.registers.size();
    std::vector<State> back(order.loops.size(), State(n));
    State state(n);  // kept over the passes: each starts with every set empty, their room kept
    RegisterSlots s;  // an instruction's slots, its room kept from one to the next
    for (int pass = 0; pass < 64; ++pass) {
      mentions_.clear();
      bool changed = false;
      for (DefSet& d : state) d.clear();
      for (uint32_t pos = 0; pos < order.positions.size(); ++pos) {
        const LinearPosition& at = order.positions[pos];
        if (!at.executes) continue;
        const Instruction* inst = at.inst;
        switch (at.kind) {
          case LinearPosition::Kind::LoopHeader: {
            const int32_t L = loopIndex(order, pos);
            // A register bound's registers are read on entry, before the loop writes its own (slots 0, 1, ...).
            for (uint32_t k = 0; k < inst->rare->mask.c.terms.size(); ++k) {
              const RegId r = inst->rare->mask.c.terms[k].reg;
              if (r >= n || state[r].empty()) continue;
              const DefSet& seen = state[r];
              for (uint32_t d : seen) uf_.unite(seen.front(), d);
              mentions_.push_back({inst->id, k, r, seen.front()});
            }
            if (inst->rd < n) {
              const uint32_t d = defAt(pos);
              state[inst->rd].setOnly(d);
              mentions_.push_back({inst->id, kWriteSlot, inst->rd, d});
            }
            if (!ALLOCSIM_PLANT("reg_back_edge_dropped")) mergeState(state, back[L]);
            if (inst->rd < n) state[inst->rd].setOnly(defAt(pos));  // the increment belongs to the loop's def
            break;
          }
          case LinearPosition::Kind::LoopEnd: {
            const int32_t L = loopIndex(order, pos);
            if (mergeState(back[L], state)) changed = true;
            if (inst->rd < n) {
              const uint32_t h = defAt(order.loops[L].header);
              for (uint32_t d : state[inst->rd]) uf_.unite(h, d);  // the loop reads its register at the end
              setDef(state[inst->rd], h, at.conditional);         // and leaves the exit value in it
            }
            break;
          }
          case LinearPosition::Kind::Instruction: {
            // Slots are only read here (registerSlots hands out mutable ones, for rename's apply); a non-loop
            // instruction has no body.
            registerSlots(const_cast<Instruction&>(*inst), s);
            uint32_t read_of_written = UINT32_MAX;  // the web of the written register, when the instruction reads it
            for (uint32_t k = 0; k < s.reads.size(); ++k) {
              const RegId r = *s.reads[k];
              if (r >= n) continue;
              const DefSet& seen = state[r];
              if (seen.empty()) continue;  // read before any write: a malformed program; left alone
              for (uint32_t d : seen) uf_.unite(seen.front(), d);
              mentions_.push_back({inst->id, k, r, seen.front()});
              if (s.write && *s.write == r) read_of_written = seen.front();
            }
            if (s.write && *s.write < n) {
              const uint32_t d = defAt(pos);
              // An instruction that reads and writes one register (`addi x, x, 1`) keeps the value it writes in the
              // web of the one it reads: as in the input, the new value takes the old one's lanes. Split apart,
              // the two values would meet at this instruction (REG's ranges are closed) and need lanes of their
              // own there, more than the input names (verify/register_demand.h).
              if (read_of_written != UINT32_MAX) uf_.unite(read_of_written, d);
              setDef(state[*s.write], d, at.conditional);
              mentions_.push_back({inst->id, kWriteSlot, *s.write, d});
            }
            break;
          }
          default: break;
        }
      }
      if (!changed) break;
    }
    return rename(next_id);
  }

 private:
  // A write inside an if's body may not run: the defs before it still reach what follows, so it joins them.
  static void setDef(DefSet& reaching, uint32_t d, bool conditional) {
    if (!conditional) return reaching.setOnly(d);
    DefSet one;
    one.setOnly(d);
    reaching.merge(one);
  }
  static int32_t loopIndex(const LinearOrder& order, uint32_t pos) {
    for (size_t L = 0; L < order.loops.size(); ++L)
      if (order.loops[L].header == pos || order.loops[L].end == pos) return int32_t(L);
    return -1;
  }

  uint32_t defAt(uint32_t pos) {
    if (def_of_pos_[pos] == kNoDef) def_of_pos_[pos] = uf_.add();
    return def_of_pos_[pos];
  }

  bool splittable(RegId r) const {
    return p_.registers[r].origin == Origin::Source && !(r < kept_.size() && kept_[r]);
  }

  uint32_t rename(uint32_t& next_id) {
    // Every name of the program, gathered when the first web needs a register of its own (most rounds split none).
    std::unordered_set<std::string> names;
    auto gatherNames = [&] {
      if (!names.empty()) return;
      for (const Tensor& t : p_.tensors) names.insert(t.name);
      for (const Register& r : p_.registers) names.insert(r.name);
    };
    // Webs per register in order of first mention; the first keeps the register. A web (a union-find root) holds
    // the defs of one register only: every unite above joins defs of the register being read or written.
    std::vector<RegId> web_reg(uf_.parent.size(), kNone);  // web root -> register
    std::vector<uint32_t> webs_seen(p_.registers.size(), 0);
    std::map<std::pair<uint32_t, uint32_t>, RegId> renamed;  // (inst id, slot) -> register
    uint32_t added = 0;
    for (const Mention& m : mentions_) {
      if (!splittable(m.reg)) continue;
      const uint32_t root = uf_.find(m.def);
      if (web_reg[root] == kNone) {
        RegId target = m.reg;
        if (webs_seen[m.reg]++ > 0) {
          Register x;
          const Register& orig = p_.registers[m.reg];
          gatherNames();
          for (;;) {
            x.name = orig.name + "_Ssa" + std::to_string(next_id++);
            if (names.insert(x.name).second) break;
          }
          x.width = orig.width;
          x.origin = Origin::Copy;
          x.copy_of = m.reg;
          x.loc = orig.loc;
          p_.registers.push_back(std::move(x));
          target = RegId(p_.registers.size() - 1);
          ++added;
        }
        web_reg[root] = target;
      }
      const RegId target = web_reg[root];
      if (target != m.reg && p_.registers[target].copy_of != m.reg)
        throw std::logic_error("splitRegisterValues: a web holds two registers");  // see above: cannot happen
      if (target != m.reg) renamed[{m.inst, m.slot}] = target;
    }
    if (!renamed.empty()) apply(p_.body, renamed);
    return added;
  }

  void apply(std::vector<Instruction>& body, const std::map<std::pair<uint32_t, uint32_t>, RegId>& renamed) {
    for (Instruction& inst : body) {
      if (inst.op == Op::Loop) {
        auto it = renamed.find({inst.id, kWriteSlot});
        if (it != renamed.end()) inst.rd = it->second;
        if (RareOperands* r = inst.rare.ifStored()) {
          for (uint32_t k = 0; k < r->mask.c.terms.size(); ++k)  // a register bound's registers
            if (auto b = renamed.find({inst.id, k}); b != renamed.end()) r->mask.c.terms[k].reg = b->second;
          r->mask.c.normalize();
        }
        apply(inst.body, renamed);
        continue;
      }
      RegisterSlots s = registerSlots(inst);
      for (uint32_t k = 0; k < s.reads.size(); ++k) {
        auto it = renamed.find({inst.id, k});
        if (it != renamed.end()) *s.reads[k] = it->second;
      }
      if (s.write) {
        auto it = renamed.find({inst.id, kWriteSlot});
        if (it != renamed.end()) *s.write = it->second;
      }
      normalizeRegisterTerms(inst);
      if (inst.op == Op::If) apply(inst.body, renamed);  // after its condition's registers
    }
  }

  Program& p_;
  const std::vector<bool>& kept_;
  UnionFind uf_;
  static constexpr uint32_t kNoDef = UINT32_MAX;
  std::vector<uint32_t> def_of_pos_;  // by position: its def id, kNoDef until the first pass reaches it
  std::vector<Mention> mentions_;
};

}  // namespace

uint32_t splitRegisterValues(Program& p, const std::vector<bool>& kept, uint32_t& next_id) {
  return Splitter(p, kept).run(next_id);
}

}  // namespace allocsim
