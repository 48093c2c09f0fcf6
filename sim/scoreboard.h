// The scoreboard: the accesses of dispatched instructions that have not yet
// happened, over physical footprints (sim/footprint.h). A new access depends on every older conflicting one:
// a read on an unfinished write (RAW), a write on an unperformed read (WAR) or on an unfinished write (WAW).
// Program order is dispatch order, so every dependence points to an older instruction and waiting never
// deadlocks. Entries leave when the instruction ends (it streams its sources through its whole latency and
// writes its results at the end). Its size is bounded by the instructions in flight, not by the program's length.
//
// It is the simulator's hottest search (every operand of every instruction), so it is organized for it: entries
// are kept per physical resource (an SBUF access never looks at PSUM, DRAM or register entries), within a resource
// per bucket of byte addresses (an access looks only at the entries of the buckets its bytes fall in), and reads
// apart from writes (a read only looks at writes). An access that hides older ones from every later access takes
// them off the board (access() says when). Retiring is O(1): it marks the instruction's pool slot finished;
// a search drops the entries of finished instructions it finds overlapping its access, and a list is swept of the
// others as it grows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/program.h"
#include "sim/footprint.h"

namespace allocsim::sim {

// Port: not a data dependence but a shared access port (docs/simulator.md "Shared ports"); entered by the
// sequencer, never by the scoreboard.
enum class DepKind : uint8_t { RAW, WAR, WAW, Port };
const char* depKindName(DepKind k);

// A test-only switch: a scoreboard that ignores one class of dependence must produce a
// mismatch the equivalence check detects.
enum class DropDependency : uint8_t { None, RAW, WAR, WAW };

// (32 bytes: the widest fields first. An instruction's dependences are appended, sorted and read again by its
// engine, several per instruction.)
struct Dependence {
  uint64_t seq;  // the older instruction's dispatch number (a record whose number changed has finished)
  const Instruction* producer;
  // Filled by the simulator at dispatch: the producer's end when it is decided by then; else `counted`, and the
  // producer's record stays until this consumer has read it.
  static constexpr uint64_t kEndUnknown = UINT64_MAX;
  uint64_t end = kEndUnknown;
  uint32_t slot;  // its record in the simulator's pool
  DepKind kind;
  bool counted = false;
  uint8_t engine;  // the older instruction's engine (ir/program.h Engine)
};

// Puts an instruction's dependences in the order it waits for them, one per older instruction: oldest first, and
// for one older instruction the first kind in RAW, WAR, WAW order (all of its accesses end together). A stall is
// attributed to the last dependence waited for (the binding one; of several ending together, the youngest), so
// the attribution depends only on program order, not on how the board stores its entries.
void orderDependences(std::vector<Dependence>& deps);

class Scoreboard {
 public:
  explicit Scoreboard(DropDependency drop = DropDependency::None) : drop_(drop) {}
  void reset(DropDependency drop);

  // What access() takes from the accessing instruction (pool slot `slot`, dispatch number `seq` > 0), derived once
  // per instruction; the slot counts as live (its accesses on the board) from then on.
  struct Recorder {
    uint32_t slot;
    uint64_t seq;
    const Instruction* inst;
    uint8_t engine;          // Engine of inst
    uint8_t in_order;        // the engine whose older instructions its accesses leave out (kNoEngine: none)
    uint8_t reads_in_order;  // the same for a read's search of the writes (setOwnEngineReads)
    bool may_prune;
  };
  Recorder recorder(uint32_t slot, uint64_t seq, const Instruction* inst);
  // Appends to `deps` the older accesses that `fp` (a read or a write) must wait for, and keeps the access on the
  // board until the instruction is retired. It leaves out older instructions of the same compute engine (PE, ACT,
  // DVE, POOL, SP run one instruction at a time in program order, so those have ended when it starts), except a
  // read's on an engine setOwnEngineReads names; DMA transfers end out of order on their queues and are always
  // kept.
  void access(const Recorder& rc, const Footprint& fp, bool write, std::vector<Dependence>& deps);
  // The sequencer's own read (RAW) or write (WAW: a loop's induction register) of register lanes [lo, hi), not
  // recorded; as access() with the register's footprint: the live writers it waits for. Inline: the sequencer
  // reads a few registers for most instructions.
  void sequencerRegisterAccess(uint32_t lo, uint32_t hi, DepKind kind, std::vector<Dependence>& deps) {
    if (uint8_t(kind) + 1 == uint8_t(drop_)) return;
    const uint32_t end = std::min<uint32_t>(hi, uint32_t(lane_writer_.size()));
    for (uint32_t lane = lo; lane < end; ++lane) {
      const Entry& w = lane_writer_[lane];
      if (w.seq != 0 && live(w))
        deps.push_back({w.seq, w.inst, Dependence::kEndUnknown, w.slot, kind, false, w.engine});
    }
  }
  // The resources (Footprint::resource) the job's program writes; a read of any other can wait for nothing (no
  // write is ever entered there) and nothing waits for it (only writes wait for reads), so access() leaves it off
  // the board: the input tensors a kernel streams from DRAM. Until set, every resource counts as written.
  void setWritten(std::vector<bool> written);
  // The compute engines (a bit per ir/program.h Engine) whose instructions' results are complete only some cycles
  // after the engine may start the next one (sim/timing.h dependent interval): a read of such an engine keeps its RAW
  // dependences on older instructions of its own engine, which may then still be completing.
  void setOwnEngineReads(uint32_t engines) { own_engine_reads_ = engines; }
  // The bucket sizes (as shifts) of SBUF and of PSUM, and the SBUF byte offset (below 2^sbuf) the buckets start at,
  // before the job's first access (see Resource).
  void setBucketShifts(uint32_t sbuf, uint32_t psum, uint64_t sbuf_origin = 0) {
    sbuf_shift_ = sbuf, psum_shift_ = psum, sbuf_origin_ = sbuf_origin;
  }
  void retire(uint32_t slot);  // the instruction in `slot` ended: its accesses happened
  size_t size();               // live entries (drops finished ones first)

 private:
  struct Entry {
    uint64_t byte_lo, byte_hi;
    uint32_t row_lo, row_hi;
    uint32_t slot;
    uint8_t engine;  // Engine of inst
    uint64_t seq;
    const Instruction* inst;
  };
  struct List {
    std::vector<Entry> entries;
    size_t sweep_at = 4;  // the size at which it is swept next (keepSwept)
    uint32_t adds = 0;    // additions to a long list since its last sweep (keepSwept)
  };
  struct Bucket {
    List reads, writes;
  };
  // A resource's bytes in buckets of 2^shift bytes, the first ending at 2^shift - bias (the last bucket takes every
  // address beyond kMaxBuckets); an entry is kept in every bucket it overlaps, or, spanning more than kMaxSpan
  // buckets, in `wide`, which every access searches.
  static constexpr uint64_t kMaxBuckets = uint64_t(1) << 16, kMaxSpan = 64;
  static uint64_t bucketOf(uint64_t byte, uint64_t bias, uint32_t shift) {
    return std::min((byte + bias) >> shift, kMaxBuckets - 1);
  }
  struct Resource {
    uint32_t shift = 10;
    uint64_t bias = 0;
    bool written = true;  // setWritten
    std::vector<Bucket> buckets;
    Bucket wide;
    uint64_t bucketOf(uint64_t byte) const { return Scoreboard::bucketOf(byte, bias, shift); }
  };
  // (Every entry on a list was recorded, and recording sizes live_seq_ to its slot.)
  bool live(const Entry& e) const { return live_seq_[e.slot] == e.seq; }
  // Appends the live entries of `list` that overlap `fp` as dependences of kind `kind`, each once: an entry kept in
  // several buckets is reported from the first bucket both it and `fp` overlap (`bucket` is the list's bucket,
  // `first` fp's first bucket; `r` null for the wide list, whose entries are in no other).
  // `in_order`: the consumer's engine when its older instructions on that engine can be left out, else kNoEngine.
  // `prune`: drops the entries of older instructions that `fp` covers (access() says why).
  static constexpr uint8_t kNoEngine = 0xff;
  // One access's search (what scan compares each entry with).
  struct Query {
    uint64_t byte_lo, byte_hi;
    uint32_t row_lo, row_hi;
    uint64_t seq;
    uint64_t first;      // fp's first bucket
    uint64_t bias;       // the resource's bucket bias
    uint32_t shift;      // the resource's bucket shift
    bool prune;
    std::vector<Dependence>* deps;
  };
  // `kDedupe`: the access spans several buckets, so an entry kept in several of them is reported from the first
  // bucket both overlap only; `bucket` is the list's bucket. Inline in access(): it runs for every list searched.
  template <bool kDedupe>
  [[gnu::always_inline]] inline void scan(List& list, const Query& q, uint64_t bucket, uint8_t in_order, DepKind kind);
  // Drops the entries of older instructions of engine `engine` that `fp` covers.
  static void pruneCovered(List& list, const Footprint& fp, uint64_t seq, uint8_t engine);
  void sweep(std::vector<Entry>& list);  // drops the entries of finished instructions
  void keepSwept(List& list);            // sweeps once the list has grown enough
  // Registers (Footprint::kRegisters) are written only by SP instructions, which end in program order, and read
  // only at dispatch (never recorded): the youngest recorded writer of a lane is the one every later access of it
  // waits for (the older ones end first), so a lane keeps just that writer instead of a list to search.
  void accessRegisters(const Recorder& rc, const Footprint& fp, bool write, std::vector<Dependence>& deps);

  std::vector<Resource> resources_;  // by Footprint::resource
  std::vector<Entry> lane_writer_;    // by register lane: its youngest recorded writer (seq 0: none)
  std::vector<uint64_t> live_seq_;   // by pool slot: the dispatch number of the instruction holding entries, or 0
  std::vector<bool> written_;        // by resource (setWritten)
  uint32_t sbuf_shift_ = 10, psum_shift_ = 11;
  uint64_t sbuf_origin_ = 0;
  uint32_t own_engine_reads_ = 0;  // setOwnEngineReads
  DropDependency drop_;
};

}  // namespace allocsim::sim
