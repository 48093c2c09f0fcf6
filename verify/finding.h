// What an oracle reports: the first bad instruction (or declaration) and why, in words a user can act on.
// Every oracle of verify/ returns its findings in this one shape, so `allocsim verify` prints and
// serialises them the same way whichever oracle found them.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "ir/diag.h"
#include "ir/program.h"

namespace allocsim {

enum class Oracle : uint8_t { Equivalence, Symbolic, Placement };
const char* oracleName(Oracle o);

// What a finding is about, by oracle (docs/verification.md defines each). Code tests the kind; the name is what
// reports, JSON and the harness print, and it never changes.
enum class FindingKind : uint8_t {
  // equivalence
  OperandMismatch,   // "operand-mismatch": an original instruction read other bits than the reference did
  OutputMismatch,    // "output-mismatch": a DRAM output differs at the end of the run
  TraceMismatch,     // "trace-mismatch": the runs executed different original instructions
  RuntimeError,      // "runtime-error": the allocated program failed on the physical storage
  OriginalMismatch,  // "original-mismatch": the recovered program is not the given original
  // symbolic
  Clobber,       // "clobber": the location holds another value, written over the expected one
  StaleRead,     // "stale-read": the location holds an older version of the expected value
  NeverWritten,  // "never-written": nothing wrote the location (it holds poison)
  WrongValue,    // "wrong-value": the reference program itself reads another value
  // placement (and symbolic's Unplaced)
  Unplaced,         // "unplaced": a tensor or register without a placement
  Bounds,           // "bounds": a placement outside its memory
  Alignment,        // "alignment": an SBUF byte offset not a multiple of sbuf-align
  PartitionStart,   // "partition-start": an SBUF base partition not a multiple of the quantum
  Bank,             // "bank": a PSUM tensor not starting at a bank or crossing its banks
  RegisterLanes,    // "register-lanes": a register's lanes outside the register file
  PinnedMoved,      // "pinned-moved": a pinned placement not kept
  Overlap,          // "overlap": two simultaneously live tensors share storage
  RegisterOverlap,  // "register-overlap": two simultaneously live registers share a lane
};
const char* findingKindName(FindingKind k);
std::ostream& operator<<(std::ostream& os, FindingKind k);  // the name

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
  FindingKind kind = FindingKind::Overlap;
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
