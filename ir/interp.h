// The reference interpreter: executes a program, bit-exact (docs/format.md "Semantics", ir/values.h), on any
// Storage. It trusts nothing: every access pattern is evaluated and checked when it executes, operand shapes
// are checked, and a run longer than max_steps stops; all of these are InputErrors, never undefined behaviour.
//
// Decisions the format leaves open (kept here, in one place):
// - An operation computes in the class of its first source (copy/act/tt/ts/reduce; matmul: of the PSUM tensor);
//   see ir/values.h for the class rules of integer-only ALU ops and float-only activations.
// - All sources are read before the destination is written, so a destination may overlap a source.
// - reduce folds left from the first element (no identity element); an empty view reduces to 0.
// - A loop keeps its own counter: the register is set to lo, lo+step, ... at the start of each iteration and to
//   the first value >= hi when the loop ends; writes to it inside the body do not change the trip count.
//   start@first / stop@last outside any loop hold (a single execution is both first and last).
// - An `if` evaluates its condition (one step, reading its registers like address terms) and runs its body once
//   when it holds, in the enclosing loop's iteration (start@first / stop@last still name that loop).
// - Steps: one per executed non-loop instruction (an if included) and one per loop iteration.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ir/program.h"
#include "ir/progress.h"
#include "ir/storage.h"
#include "ir/view.h"

namespace allocsim {

// What one executed instruction touched, with its views resolved for this execution (register terms evaluated).
// The oracles of verify/ (symbolic value flow, dynamic liveness, last-writer diagnosis) walk a run through it.
struct ExecAccess {
  std::vector<ResolvedView> reads;   // in operand order; a matmul without start also reads its accumulator
  std::vector<ResolvedView> writes;
  std::vector<RegId> reg_reads;      // address terms, affine_select's offset c, and scalar sources
  std::vector<RegId> reg_writes;     // a loop writes its register at each iteration
  uint64_t operand_hash = 0;         // the instruction's OperandRead::hash (0 for a loop iteration)
};

class ExecObserver {
 public:
  virtual ~ExecObserver() = default;
  // Called after each executed instruction (and for a loop, at the start of each iteration, with the loop
  // instruction) with the step number that instruction took (1-based, see "Steps").
  virtual void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) = 0;
  // With InterpOptions::release_dead: tensor t is dead for the rest of the run (ir/release_schedule.h), so
  // bookkeeping about it may be dropped.
  virtual void onRelease(TensorId) {}
  // With release_dead: output t will not be written again (its last top-level statement has run).
  virtual void onOutputFinal(TensorId) {}
  // Input tensor t was just loaded into the storage: before the run, or with release_dead (for an input of its own
  // storage) just before the first top-level statement that names it.
  virtual void onInput(TensorId) {}
};

class OperandReadSink;
class OutputSink;

struct InterpOptions {
  uint64_t input_seed = 1;
  uint64_t max_steps = 50'000'000;
  // The sum of all tensors' sizes; a larger program is rejected before it runs (bounds the memory used).
  uint64_t max_storage_bytes = uint64_t(1) << 32;
  ExecObserver* observer = nullptr;  // not owned
  bool record_reads = true;          // fill InterpResult::reads
  // Receives every OperandRead as it is made (with or without record_reads): a caller that only compares the reads
  // with another run's need not hold them all (the equivalence oracle). Not owned.
  OperandReadSink* read_sink = nullptr;
  // Receives each output's bytes, one output at a time, instead of InterpResult::outputs (then left empty): a caller
  // that only compares them with another run's need not hold them all (the equivalence oracle). With release_dead an
  // output of its own storage (unplaced) is delivered and released as soon as it is final (after its last top-level
  // statement, ExecObserver::onOutputFinal), the others at the end of the run. Not owned.
  OutputSink* output_sink = nullptr;
  // Release each tensor (Storage::release, ExecObserver::onRelease) after the last top-level statement that names
  // it (ir/release_schedule.h), so memory follows the tensors in use rather than the program's length. Off by
  // default: a caller that inspects the storage after the run sees only the outputs once released.
  bool release_dead = false;
  // Run only the instructions an allocator did not insert (origin Source; an inserted loop is skipped whole), and
  // size the storage by the source tensors: the unallocated program an allocated one stands for, on a storage that
  // reads each inserted tensor and register as the one it holds (verify/reference_storage.h). The equivalence oracle's
  // reference run, without a second copy of the program's instructions.
  bool source_only = false;
  // false: an access-only run, for an observer that looks at which views and registers each step touches, not at
  // the values (the placement oracle's liveness walk, the symbolic oracle's). Views are resolved and checked and
  // registers computed as in a full run, and the observer sees the same ExecAccess records, but no element is read,
  // computed or written (no storage row is touched, no input loaded: onInput is still called) and operand_hash is
  // 0; reads are not recorded (record_reads, read_sink) and outputs not stored. A program with a reg_load is run
  // with values regardless: a register's value, maybe an index, then comes from a tensor's.
  bool values = true;
  const ProgressFn* progress = nullptr;  // called every kProgressSteps steps (not owned)
  const char* progress_phase = "interpreting";
};

struct OperandRead {
  uint32_t inst_id;  // Instruction::id
  uint64_t hash;     // ir/hash.h digest, in operand order, of every value read: index values, scalars, views
  bool operator==(const OperandRead&) const = default;
};

class OperandReadSink {
 public:
  virtual ~OperandReadSink() = default;
  virtual void onRead(const OperandRead& read) = 0;
};

class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Output t's row-major bytes (InterpResult::outputs[t] without an output sink), once per output; in TensorId order
  // at the end of the run, and before that (release_dead) each output of its own storage once it is final.
  virtual void onOutput(TensorId t, std::vector<uint8_t>&& bytes) = 0;
};

struct InterpResult {
  std::vector<std::vector<uint8_t>> outputs;  // by TensorId; row-major bytes for `output` tensors, empty otherwise
  std::vector<OperandRead> reads;            // one per executed non-loop instruction, in execution order
  uint64_t steps = 0;                        // executed instructions (see above)
};

// What an instruction's operand hash covers, in this order: the register values of its access patterns' address
// terms (dst first, then sources in operand order; partition before offset); affine_select's offset c (its value,
// when it has registers); the register sources of scalar instructions (rs, rt); a ts scalar (its register value,
// its converted immediate, or its view's bytes); the bytes of each source view; for a matmul without start, the
// accumulator's bytes last.
InterpResult interpret(const Program& p, const InterpOptions& opts = {});                 // PrivateStorage
InterpResult interpret(const Program& p, Storage& storage, const InterpOptions& opts);  // loads inputs first

// ---- One instruction in two halves, for the simulator (sim/) -----------------------------------------------
// The simulator reads an instruction's operands when it starts and writes its results when it ends, with other
// instructions running in between; it computes through the interpreter's own code so that both give the same
// bits. begin() resolves the views (reading address registers from the Storage), reads every operand, computes
// the result and returns the operand hash (as InterpResult::reads records it); the writes wait in PendingWrites
// until commit(). A loop instruction is not stepped (its sequencer sets the register). Throws InputError like
// interpret().
struct PendingWrites {
  struct View {
    ResolvedView view;
    std::vector<uint8_t> bytes;
  };
  std::vector<View> views;  // the first `used` are this instruction's (the rest keep their buffers for reuse)
  size_t used = 0;
  std::vector<std::pair<RegId, uint64_t>> regs;

  void clear() { used = 0, regs.clear(); }
  View& add() {
    if (used == views.size()) views.emplace_back();
    return views[used++];
  }
  void commit(Storage& s) const;  // in the order the interpreter would have written them
};

// Views a caller has already resolved for this execution of an instruction (the simulator's dispatch must, to
// find the footprints), keyed by the access pattern: the stepper takes them instead of resolving them again.
// A view given here must be what resolveView gives for that pattern on the same registers (its checks passed).
struct KnownViews {
  static constexpr uint32_t kMax = 8;
  const AccessPattern* ap[kMax] = {};
  ResolvedView view[kMax];
  uint32_t n = 0;
  void clear() { n = 0; }
  void add(const AccessPattern& a, const ResolvedView& v) {
    if (n < kMax) ap[n] = &a, view[n++] = v;
  }
  const ResolvedView* find(const AccessPattern& a) const {
    for (uint32_t i = 0; i < n; ++i)
      if (ap[i] == &a) return &view[i];
    return nullptr;
  }
};

class InstructionStepper {
 public:
  // max_view_bytes: largestTensorBytes(p) (the bound interpret() uses).
  InstructionStepper(const Program& p, Storage& s, uint64_t max_view_bytes);
  ~InstructionStepper();
  InstructionStepper(const InstructionStepper&) = delete;
  InstructionStepper& operator=(const InstructionStepper&) = delete;
  // first / last: the iteration of the innermost enclosing loop (both true outside loops), for start@first etc.
  // hash: compute the operand hash (false: the result is the empty digest, for a caller that does not read it).
  uint64_t begin(const Instruction& inst, bool first, bool last, PendingWrites& out, bool hash = true,
                 const KnownViews* known = nullptr);
  // The same with the writes applied at once, as interpret() does (reads all sources, then writes).
  uint64_t step(const Instruction& inst, bool first, bool last, bool hash = true, const KnownViews* known = nullptr);
  // After stepping an `if` (which only evaluates its condition): whether its body runs.
  bool conditionHeld() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The largest tensor's bytes; throws InputError when all tensors together exceed max_storage_bytes.
uint64_t largestTensorBytes(const Program& p, uint64_t max_storage_bytes = uint64_t(1) << 32);

}  // namespace allocsim
