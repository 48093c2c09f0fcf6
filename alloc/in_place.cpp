#include "alloc/in_place.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/first_fit_placer.h"
#include "alloc/liveness.h"
#include "alloc/operand_effects.h"
#include "alloc/sbuf/sbuf_interference.h"
#include "alloc/sbuf/sbuf_live_ranges.h"
#include "alloc/psum/psum_bank_model.h"
#include "alloc/reg/reg_live_pieces.h"
#include "ir/plant.h"

namespace allocsim {

const char kInPlaceFailure[] = "smt allocation fails in-place write checker";

namespace {

// One re-placed item: a tensor (of one space) or a register. Its footprint is a box [lo, hi) on up to two axes
// (SBUF: partitions x bytes; PSUM banks, DRAM bytes and register lanes use axis 1 only).
struct Item {
  enum class Kind : uint8_t { Sbuf, Psum, Dram, Reg } kind = Kind::Sbuf;
  uint32_t index = 0;  // TensorId or RegId
  LiveRange live;
  uint64_t lo0 = 0, hi0 = 1;  // axis 0 (SBUF partitions; [0, 1) otherwise)
  uint64_t lo1 = 0, hi1 = 0;  // axis 1
};

bool overlap(const Item& a, const Item& b) {
  return a.lo0 < b.hi0 && b.lo0 < a.hi0 && a.lo1 < b.hi1 && b.lo1 < a.hi1;
}

// a + b > limit without overflow.
bool exceeds(uint64_t a, uint64_t b, uint64_t limit) { return a > limit || b > limit - a; }

std::string range(uint64_t lo, uint64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + ")"; }

class Checker {
 public:
  explicit Checker(const Program& p) : p_(p), mentioned_(sbufMentionedBytes(p)) {}

  std::string describe(const Item& it) const {
    if (it.kind == Item::Kind::Reg) return describeRegister(p_, it.index);
    return describeTensor(p_, it.index);
  }

  std::string where(const Item& it) const {
    switch (it.kind) {
      case Item::Kind::Sbuf: {
        const Placement& pl = *p_.tensors[it.index].placement;
        return "@p" + std::to_string(pl.partition) + "+" + std::to_string(pl.offset) + " (partitions " +
               range(it.lo0, it.hi0) + ", bytes " + range(it.lo1, it.hi1) + ")";
      }
      case Item::Kind::Psum:
        return "@bank" + std::to_string(it.lo1) + " (banks " + range(it.lo1, it.hi1) + ")";
      case Item::Kind::Dram: return "@" + std::to_string(it.lo1) + " (bytes " + range(it.lo1, it.hi1) + ")";
      case Item::Kind::Reg: return "@r" + std::to_string(it.lo1) + " (lanes " + range(it.lo1, it.hi1) + ")";
    }
    return "";
  }

  SourceLoc loc(const Item& it) const {
    if (it.kind == Item::Kind::Reg) return p_.registers[it.index].loc;
    const Tensor& t = p_.tensors[it.index];
    if (!t.loc.known() && t.copy_of < p_.tensors.size()) return p_.tensors[t.copy_of].loc;
    return t.loc;
  }

  [[noreturn]] void fail(const Item& it, const std::string& what) const {
    throw AllocError(loc(it), std::string(kInPlaceFailure) + ": " + describe(it) + " " + what);
  }

  // Builds the item of tensor `t` (already known to be placed), checking its bounds and alignment.
  Item tensorItem(TensorId t, const LiveRange& live) const {
    const Arch& a = p_.arch;
    const Tensor& x = p_.tensors[t];
    const Placement& pl = *x.placement;
    Item it;
    it.index = t;
    it.live = live;
    switch (x.space) {
      case Space::Sbuf: {
        it.kind = Item::Kind::Sbuf;
        const uint64_t bpp = x.bytesPerPartition();
        it.lo0 = pl.partition;
        it.hi0 = uint64_t(pl.partition) + x.partitions;
        it.lo1 = pl.offset;
        it.hi1 = exceeds(pl.offset, bpp, UINT64_MAX) ? UINT64_MAX : pl.offset + bpp;
        if (exceeds(pl.partition, x.partitions, a.sbuf_partitions) || exceeds(pl.offset, bpp, a.sbuf_bytes))
          fail(it, where(it) + " exceeds SBUF (" + std::to_string(a.sbuf_partitions) + " partitions, " +
                       std::to_string(a.sbuf_bytes) + " bytes)");
        if (a.sbuf_align != 0 && pl.offset % a.sbuf_align != 0)
          fail(it, where(it) + ": byte offset " + std::to_string(pl.offset) + " is not a multiple of sbuf-align " +
                       std::to_string(a.sbuf_align));
        if (a.sbuf_partition_quantum != 0 && pl.partition % a.sbuf_partition_quantum != 0)
          fail(it, where(it) + ": base partition " + std::to_string(pl.partition) +
                       " is not a multiple of sbuf-partition-quantum " + std::to_string(a.sbuf_partition_quantum));
        // Within bounds, the tensor holds data in the bytes its mentions reach only (the SBUF colorer's rectangle,
        // alloc/sbuf/sbuf_interference.h): the rest may be another live tensor's.
        it.lo1 = pl.offset + mentioned_[t].first;
        it.hi1 = pl.offset + mentioned_[t].second;
        break;
      }
      case Space::Psum: {
        it.kind = Item::Kind::Psum;
        const uint64_t banks = psumBanksOf(a, x);
        it.lo1 = pl.bank;
        it.hi1 = uint64_t(pl.bank) + banks;
        if (exceeds(pl.bank, banks, a.psum_banks))
          fail(it, where(it) + " exceeds PSUM (" + std::to_string(a.psum_banks) + " banks)");
        if (x.partitions > a.psumPartitions())
          fail(it, "has " + std::to_string(x.partitions) + " partitions; PSUM has " +
                       std::to_string(a.psumPartitions()));
        break;
      }
      case Space::Dram: {
        it.kind = Item::Kind::Dram;
        const uint64_t bytes = x.totalBytes();
        it.lo1 = pl.offset;
        it.hi1 = exceeds(pl.offset, bytes, UINT64_MAX) ? UINT64_MAX : pl.offset + bytes;
        if (exceeds(pl.offset, bytes, a.dram_limit))
          fail(it, where(it) + " exceeds dram-limit " + std::to_string(a.dram_limit));
        break;
      }
    }
    return it;
  }

  Item registerItem(RegId r, const LiveRange& live) const {
    const Register& x = p_.registers[r];
    Item it;
    it.kind = Item::Kind::Reg;
    it.index = r;
    it.live = live;
    it.lo1 = *x.phys;
    it.hi1 = uint64_t(*x.phys) + x.lanes();
    if (exceeds(*x.phys, x.lanes(), p_.arch.sp_registers))
      fail(it, where(it) + " exceeds the " + std::to_string(p_.arch.sp_registers) + " SP registers");
    return it;
  }

  // Re-places the items in order of their first live position; an item conflicts with an earlier one of the same
  // kind that is still live when it starts (its range then interferes, as earlier items start no later).
  void replace(std::vector<Item>& items, const CopyContacts& contacts) const {
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      auto key = [](const Item& i) { return i.live.empty() ? uint64_t(UINT64_MAX) : uint64_t(i.live.first); };
      return key(a) < key(b);
    });
    std::vector<const Item*> active;
    for (const Item& it : items) {
      if (it.live.empty()) continue;  // never live: occupies nothing at any position
      std::erase_if(active, [&](const Item* u) {
        return u->live.last + (ALLOCSIM_PLANT("in_place_touching_ranges_conflict") ? 1 : 0) < it.live.first;
      });
      for (const Item* u : active) {
        const bool touch = ALLOCSIM_PLANT("in_place_touching_ranges_conflict") && !u->live.empty() &&
                           (u->live.last + 1 == it.live.first || it.live.last + 1 == u->live.first);
        if (u->kind != it.kind || !overlap(*u, it) || (!interferes(u->live, it.live) && !touch)) continue;
        if (it.kind == Item::Kind::Reg &&
            (u->index == it.index || (u->lo1 == it.lo1 && contacts.onlyAtCopy(u->index, it.index))))
          continue;  // two pieces of one register; a coalesced copy (alloc/reg/reg_live_pieces.h)
        fail(it, where(it) + " overlaps " + describe(*u) + " " + where(*u) + " while both are live (linear positions " +
                     std::to_string(it.live.first) + ".." + std::to_string(it.live.last) + " and " +
                     std::to_string(u->live.first) + ".." + std::to_string(u->live.last) + ")");
      }
      active.push_back(&it);
    }
  }

 private:
  const Program& p_;
  std::vector<std::pair<uint64_t, uint64_t>> mentioned_;  // by tensor: sbufMentionedBytes
};

// The SBUF colorer's spill stand-ins (alloc/sbuf/sbuf_live_ranges.h): SBUF tensors of origin reload whose first
// executed mention is a write (a reload before a use, or the defining instruction before its store) and whose
// every executed mention lies in the same loop body (or outside every loop). They are live exactly from first to last mention, as the colorer that made them
// assumed; whether the reloads really cover what is read is the dynamic oracles' to prove (allocsim verify).
std::vector<bool> sbufStandIns(const Program& p, const LinearOrder& order) {
  const size_t n = p.tensors.size();
  std::vector<bool> local(n, false), seen(n, false);
  std::vector<int32_t> loop(n, -1);
  for (TensorId t = 0; t < n; ++t) local[t] = p.tensors[t].space == Space::Sbuf && p.tensors[t].origin == Origin::Reload;
  thread_local OperandEffects e;  // the thread's, kept from one instruction and one call to the next
  for (const LinearPosition& at : order.positions) {
    if (!at.executes || at.kind != LinearPosition::Kind::Instruction) continue;
    operandEffects(p, *at.inst, e);
    auto mention = [&](TensorId t, bool write) {
      if (t >= n || !local[t]) return;
      if (!seen[t]) {
        seen[t] = true;
        loop[t] = at.loop;
        if (!write) local[t] = false;
      } else if (loop[t] != at.loop) {
        local[t] = false;
      }
    };
    for (TensorId t : e.tensor_reads) mention(t, false);
    for (const TensorWrite& w : e.tensor_writes) mention(w.tensor, true);
  }
  return local;
}

}  // namespace

void checkInPlace(const Program& allocated, const InPlaceOptions& opts) {
  const Checker c(allocated);
  const Liveness live = sbufLiveness(allocated, sbufStandIns(allocated, linearize(allocated)));
  const std::vector<std::vector<LiveRange>> pieces = registerLivePieces(allocated, live);
  std::vector<Item> items;
  for (TensorId t = 0; t < allocated.tensors.size(); ++t) {
    const Tensor& x = allocated.tensors[t];
    if (!x.placement) {
      if (opts.require_placed && (x.space != Space::Dram || x.pinned)) {
        Item it;
        it.index = t;
        c.fail(it, x.pinned ? "is pinned but has no placement" : "has no placement");
      }
      continue;
    }
    items.push_back(c.tensorItem(t, live.tensors[t]));
  }
  for (RegId r = 0; r < allocated.registers.size(); ++r) {
    if (!allocated.registers[r].phys) {
      if (opts.require_placed) {
        Item it;
        it.kind = Item::Kind::Reg;
        it.index = r;
        c.fail(it, "has no placement");
      }
      continue;
    }
    if (pieces[r].empty()) items.push_back(c.registerItem(r, LiveRange{}));  // never live: bounds only
    for (const LiveRange& piece : pieces[r]) items.push_back(c.registerItem(r, piece));
  }
  c.replace(items, CopyContacts(allocated, live));
}

}  // namespace allocsim
