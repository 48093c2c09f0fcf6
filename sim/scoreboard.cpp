#include "sim/scoreboard.h"

#include <algorithm>
#include <stdexcept>

#include "ir/plant.h"

namespace allocsim::sim {

const char* depKindName(DepKind k) {
  switch (k) {
    case DepKind::RAW: return "RAW";
    case DepKind::WAR: return "WAR";
    case DepKind::WAW: return "WAW";
    case DepKind::Port: return "port";
  }
  return "?";
}

void orderDependences(std::vector<Dependence>& deps) {
  if (deps.size() < 2) return;
  // A handful of entries, mostly in order already: insertion sort. Entries with equal keys are equal (one seq is
  // one instruction), so the order among them does not matter.
  auto less = [](const Dependence& a, const Dependence& b) { return a.seq != b.seq ? a.seq < b.seq : a.kind < b.kind; };
  if (deps.size() > 32) {  // deep engine queues: a write may wait for every queued reader of its bytes
    std::sort(deps.begin(), deps.end(), less);
  } else {
    for (size_t i = 1; i < deps.size(); ++i) {
      const Dependence d = deps[i];
      size_t j = i;
      for (; j > 0 && less(d, deps[j - 1]); --j) deps[j] = deps[j - 1];
      deps[j] = d;
    }
  }
  deps.erase(std::unique(deps.begin(), deps.end(), [](const Dependence& a, const Dependence& b) { return a.seq == b.seq; }),
             deps.end());
}

void Scoreboard::reset(DropDependency drop) {
  resources_.clear();
  live_seq_.assign(live_seq_.size(), 0);
  lane_writer_.clear();
  written_.clear();
  drop_ = drop;
}

template <bool kDedupe>
void Scoreboard::scan(List& list, const Query& q, uint64_t bucket, uint8_t in_order, DepKind kind) {
  // Overlap first: most entries are elsewhere, and the test needs only the entry itself. An overlapping entry of a
  // finished instruction is dropped here (its check has loaded it already); the others are swept out in access()
  // (keepSwept). The list is only read until the first entry to drop, and compacted from there on.
  const uint64_t byte_lo = q.byte_lo, byte_hi = q.byte_hi;
  const uint32_t row_lo = q.row_lo, row_hi = q.row_hi;
  const uint64_t seq = q.seq;
  // Whether an overlapping entry is dropped: finished, or covered by a recorded write, it goes off the board (see
  // access()). Its copies in other buckets lie in fp's buckets too and go with them.
  // (Inlined: called as a function, building its closure cost more than the search of a short list.)
  auto visit = [&](const Entry& e) __attribute__((always_inline)) {
    if (!live(e)) return true;  // finished: dropped here rather than at the next sweep
    if (e.seq != seq && e.engine != in_order &&
        (!kDedupe || std::max(bucketOf(e.byte_lo, q.bias, q.shift), q.first) == bucket))
      q.deps->push_back({e.seq, e.inst, Dependence::kEndUnknown, e.slot, kind, false, e.engine});
    return q.prune && e.seq != seq && byte_lo <= e.byte_lo && e.byte_hi <= byte_hi && row_lo <= e.row_lo &&
           e.row_hi <= row_hi;
  };
  auto apart = [&](const Entry& e) {
    return e.byte_lo >= byte_hi || byte_lo >= e.byte_hi || e.row_lo >= row_hi || row_lo >= e.row_hi;
  };
  Entry* e = list.entries.data();
  Entry* const end = e + list.entries.size();
  for (; e != end; ++e)
    if (!apart(*e) && visit(*e)) break;
  if (e == end) return;
  Entry* kept = e;
  for (++e; e != end; ++e)
    if (apart(*e) || !visit(*e)) *kept++ = *e;
  list.entries.resize(size_t(kept - list.entries.data()));
}

void Scoreboard::pruneCovered(List& list, const Footprint& fp, uint64_t seq, uint8_t engine) {
  // Over pointers, the list's end kept in a register: a covered entry is overwritten by the last one.
  std::vector<Entry>& v = list.entries;
  Entry* e = v.data();
  Entry* const old_end = e + v.size();
  Entry* end = old_end;
  const uint64_t byte_lo = fp.byte_lo, byte_hi = fp.byte_hi;
  const uint32_t row_lo = fp.row_lo, row_hi = fp.row_hi;
  while (e != end) {
    if (e->engine == engine && e->seq != seq && byte_lo <= e->byte_lo && e->byte_hi <= byte_hi &&
        row_lo <= e->row_lo && e->row_hi <= row_hi)
      *e = *--end;
    else
      ++e;
  }
  if (end != old_end) v.resize(size_t(end - v.data()));
}

void Scoreboard::keepSwept(List& list) {
  // Sweep when the list has grown by a quarter since the last sweep (and by a few entries): bounded by the
  // instructions in flight, at a cost per entry that does not depend on how often the list is searched. (By half,
  // 45% of the entries a search tested had finished; by a quarter costs 0.6% fewer instructions per run.)
  if (list.entries.size() < list.sweep_at) return;
  sweep(list.entries);
  list.sweep_at = list.entries.size() + list.entries.size() / 4 + 4;
}

void Scoreboard::sweep(std::vector<Entry>& list) {
  for (size_t i = 0; i < list.size();) {
    if (live(list[i])) {
      ++i;
    } else {
      list[i] = list.back();
      list.pop_back();
    }
  }
}

void Scoreboard::accessRegisters(const Recorder& rc, const Footprint& fp, bool write,
                                 std::vector<Dependence>& deps) {
  const uint64_t lo = fp.byte_lo / 4, hi = (fp.byte_hi + 3) / 4;
  if (hi > lane_writer_.size()) lane_writer_.resize(hi, Entry{0, 0, 0, 0, 0, 0, 0, nullptr});
  const DepKind kind = write ? DepKind::WAW : DepKind::RAW;
  const bool dropped = uint8_t(kind) + 1 == uint8_t(drop_);
  for (uint64_t lane = lo; lane < hi; ++lane) {
    const Entry& w = lane_writer_[lane];
    // It leaves out its own in-order engine, as access() does.
    if (w.seq != 0 && live(w) && w.seq != rc.seq && w.engine != rc.engine && !dropped)
      deps.push_back({w.seq, w.inst, Dependence::kEndUnknown, w.slot, kind, false, w.engine});
  }
  if (!write || rc.engine != uint8_t(Engine::SP))
    throw std::logic_error("the scoreboard records register writes of SP instructions only");
  for (uint64_t lane = lo; lane < hi; ++lane)
    lane_writer_[lane] = Entry{fp.byte_lo, fp.byte_hi, fp.row_lo, fp.row_hi, rc.slot, rc.engine, rc.seq, rc.inst};
}

Scoreboard::Recorder Scoreboard::recorder(uint32_t slot, uint64_t seq, const Instruction* inst) {
  if (slot >= live_seq_.size()) live_seq_.resize(slot + 1, 0);
  live_seq_[slot] = seq;
  const uint8_t engine = uint8_t(engineOf(inst->op));
  const uint8_t in_order = engine != uint8_t(Engine::DMA) ? engine : kNoEngine;
  // The writes a read waits for (RAW): those of its own engine too when that engine's results complete late.
  const uint8_t reads_in_order = (own_engine_reads_ >> engine & 1) ? kNoEngine : in_order;
  // A write W covering an older instruction's access A (A's footprint inside W's) takes A off the board:
  // W waits for A (a WAW or WAR dependence, or A is older on W's own in-order engine), so W ends after A ends and
  // writes after A has read and written; every later access overlapping A overlaps W and depends on W, the younger,
  // which then binds instead of A (ending later) and orders the values after A's. Likewise a read R of a
  // compute engine covering an older read A of the same engine: a later write overlapping A depends on R, whose
  // instruction is younger on the same in-order engine and alone is kept of that engine's (keepYoungestPerEngine in
  // the sequencer), and A's instruction leaves the board no later than R's. The cycles, waits and stall
  // attributions stay the same, and an operand rewritten or reread again and again (a tile reloaded in a loop, a
  // PSUM bank accumulated into, a stationary tile) keeps one entry instead of one per instruction in flight. Not
  // with a test switch dropping a class of dependence, nor with a planted engine that ignores its own order.
  const bool may_prune = drop_ == DropDependency::None && !ALLOCSIM_PLANT("sim_engine_ignores_own_clock");
  return Recorder{slot, seq, inst, engine, in_order, reads_in_order, may_prune};
}

// Flattened: everything it calls is inlined, the appends of dependences above all (several per access on a busy
// board), which the compiler otherwise leaves as calls.
__attribute__((flatten)) void Scoreboard::access(const Recorder& rc, const Footprint& fp, bool write,
                                                 std::vector<Dependence>& deps) {
  if (fp.empty()) return;
  if (fp.resource == Footprint::kRegisters) return accessRegisters(rc, fp, write, deps);
  if (fp.resource >= resources_.size()) {
    const size_t from = resources_.size();
    resources_.resize(fp.resource + 1);
    // Buckets of about a tile: SBUF as setBucketShifts says, PSUM a bank, DRAM 1 MiB.
    for (size_t i = from; i < resources_.size(); ++i) {
      resources_[i].shift = i == Footprint::kSbuf ? sbuf_shift_ : i == Footprint::kPsum ? psum_shift_ : 20;
      // SBUF buckets start at sbuf_origin_: the byte b lies in bucket (b + bias) >> shift.
      const uint64_t size = uint64_t(1) << resources_[i].shift;
      if (i == Footprint::kSbuf) resources_[i].bias = (size - sbuf_origin_ % size) % size;
      resources_[i].written = i >= written_.size() || written_[i];
    }
  }
  Resource& r = resources_[fp.resource];
  if (!write && !r.written) return;
  const uint8_t writes_in_order = write ? rc.in_order : rc.reads_in_order;
  const bool war = !ALLOCSIM_PLANT("sim_war_dependence_dropped");
  const uint64_t first = r.bucketOf(fp.byte_lo), last = r.bucketOf(fp.byte_hi - 1);
  const DepKind kind = write ? DepKind::WAW : DepKind::RAW;
  // A test switch may drop a class of dependence (DropDependency::RAW == DepKind::RAW + 1, ...).
  const bool search_writes = uint8_t(kind) + 1 != uint8_t(drop_);
  const bool search_reads = write && war && drop_ != DropDependency::WAR;
  const uint64_t stop = std::min<uint64_t>(last + 1, r.buckets.size());
  const Query q{fp.byte_lo, fp.byte_hi, fp.row_lo, fp.row_hi, rc.seq, first,
                r.bias, r.shift, rc.may_prune && write, &deps};
  // (An empty list, most often the wide ones, is not searched.)
  if (first + 1 == stop) {  // one bucket (most accesses): no entry can be reported twice
    Bucket& bucket = r.buckets[first];
    if (search_writes && !bucket.writes.entries.empty()) scan<false>(bucket.writes, q, first, writes_in_order, kind);
    if (search_reads && !bucket.reads.entries.empty())
      scan<false>(bucket.reads, q, first, rc.in_order, DepKind::WAR);
  } else {
    for (uint64_t b = first; b < stop; ++b) {
      Bucket& bucket = r.buckets[b];
      if (search_writes && !bucket.writes.entries.empty()) scan<true>(bucket.writes, q, b, writes_in_order, kind);
      if (search_reads && !bucket.reads.entries.empty()) scan<true>(bucket.reads, q, b, rc.in_order, DepKind::WAR);
    }
  }
  if (search_writes && !r.wide.writes.entries.empty()) scan<false>(r.wide.writes, q, 0, writes_in_order, kind);
  if (search_reads && !r.wide.reads.entries.empty()) scan<false>(r.wide.reads, q, 0, rc.in_order, DepKind::WAR);
  const Entry e{fp.byte_lo, fp.byte_hi, fp.row_lo, fp.row_hi, rc.slot, rc.engine, rc.seq, rc.inst};
  const bool wide = last - first >= kMaxSpan;
  if (!write && rc.may_prune && rc.engine != uint8_t(Engine::DMA)) {
    for (uint64_t b = first; b < stop; ++b)
      if (!r.buckets[b].reads.entries.empty()) pruneCovered(r.buckets[b].reads, fp, rc.seq, rc.engine);
    if (wide && !r.wide.reads.entries.empty()) pruneCovered(r.wide.reads, fp, rc.seq, rc.engine);
  }
  auto add = [&](Bucket& bucket) {
    List& list = write ? bucket.writes : bucket.reads;
    keepSwept(list);
    list.entries.push_back(e);
  };
  if (wide) return add(r.wide);
  if (r.buckets.size() <= last) r.buckets.resize(last + 1);
  for (uint64_t b = first; b <= last; ++b) add(r.buckets[b]);
}

void Scoreboard::setWritten(std::vector<bool> written) {
  written_ = std::move(written);
  for (size_t i = 0; i < resources_.size(); ++i) resources_[i].written = i >= written_.size() || written_[i];
}

void Scoreboard::retire(uint32_t slot) {
  if (slot < live_seq_.size()) live_seq_[slot] = 0;
}

size_t Scoreboard::size() {
  size_t n = 0;
  for (Resource& r : resources_) {
    for (uint64_t b = 0; b < r.buckets.size(); ++b)
      for (List* list : {&r.buckets[b].reads, &r.buckets[b].writes}) {
        sweep(list->entries);
        for (const Entry& e : list->entries) n += r.bucketOf(e.byte_lo) == b;  // an entry once, in its first bucket
      }
    for (List* list : {&r.wide.reads, &r.wide.writes}) sweep(list->entries), n += list->entries.size();
  }
  for (const Entry& w : lane_writer_) n += w.seq != 0 && live(w);
  return n;
}

}  // namespace allocsim::sim
