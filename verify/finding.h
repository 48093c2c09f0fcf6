// What an oracle reports: the first bad instruction (or declaration) and why, in words a user can act on.
// Every oracle of verify/ returns its findings in this one shape, so `allocsim verify` prints and
// serialises them the same way whichever oracle found them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/program.h"

namespace allocsim {

enum class Oracle : uint8_t { Equivalence, Symbolic, Placement };
const char* oracleName(Oracle o);

// The physical storage a finding is about, when it is about storage (an overlap): what `verify --svg` draws in
// red. SBUF: partitions x bytes within a partition; PSUM: banks (all partitions); DRAM: bytes; registers: lanes.
struct FindingRegion {
  enum class Kind : uint8_t { None, Sbuf, Psum, Dram, Registers } kind = Kind::None;
  uint64_t lo = 0, hi = 0;            // bytes / banks / lanes [lo, hi)
  uint64_t part_lo = 0, part_hi = 0;  // SBUF partitions [part_lo, part_hi)
  std::vector<uint32_t> items;        // the TensorIds (or RegIds) involved
  bool present() const { return kind != Kind::None; }
};

struct Finding {
  Oracle oracle = Oracle::Placement;
  std::string kind;            // a stable short class: "clobber", "overlap", "bounds", "output-mismatch", ...
  SourceLoc loc;               // where in the allocated program (instruction, or declaration for static findings)
  uint32_t inst_id = kNone;    // Instruction::id in the allocated program; kNone for declaration findings
  uint64_t step = 0;           // the dynamic step (ir/interp.h "Steps") at which it happened; 0 if static
  std::string message;         // one line
  std::vector<std::string> notes;  // details: expected / found, who last wrote the bytes, register values
  FindingRegion region;            // set by the placement oracle's overlap findings

  // "file:line:col: [oracle] message" followed by indented notes.
  std::string format(const std::string& file) const;
};

}  // namespace allocsim
