// The scoreboard (DESIGN.md section 4; issue 8 item 1): the accesses of dispatched instructions that have not yet
// happened, over physical footprints (sim/footprint.h). A new access depends on every older conflicting one:
// a read on an unfinished write (RAW), a write on an unperformed read (WAR) or on an unfinished write (WAW).
// Program order is dispatch order, so every dependence points to an older instruction and waiting never
// deadlocks. Entries leave when the instruction ends (it streams its sources through its whole latency and
// writes its results at the end). Its size is bounded by the instructions in flight, not by the program's length.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/program.h"
#include "sim/footprint.h"

namespace allocsim::sim {

enum class DepKind : uint8_t { RAW, WAR, WAW };
const char* depKindName(DepKind k);

// A test-only switch (issue 8 item 6): a scoreboard that ignores one class of dependence must produce a
// mismatch the equivalence check detects.
enum class DropDependency : uint8_t { None, RAW, WAR, WAW };

struct Dependence {
  uint32_t slot;  // the older instruction's record in the simulator's pool
  uint64_t seq;   // and its dispatch number (a record whose number changed has finished)
  DepKind kind;
  const Instruction* producer;
};

class Scoreboard {
 public:
  explicit Scoreboard(DropDependency drop = DropDependency::None) : drop_(drop) {}
  void reset(DropDependency drop) { entries_.clear(), drop_ = drop; }

  // Appends to `deps` the older accesses that `fp` (a read or a write) must wait for; when `record` is set, the
  // access stays on the board until retired (a register read done at dispatch is not recorded).
  void access(const Footprint& fp, bool write, uint32_t slot, uint64_t seq, const Instruction* inst, bool record,
              std::vector<Dependence>& deps);
  void retire(uint64_t seq);  // the instruction ended: its accesses happened
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Footprint fp;
    bool write;
    uint32_t slot;
    uint64_t seq;
    const Instruction* inst;
  };
  std::vector<Entry> entries_;
  DropDependency drop_;
};

}  // namespace allocsim::sim
