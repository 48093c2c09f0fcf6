#include "verify/equivalence.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "ir/interp.h"
#include "ir/physical_storage.h"
#include "ir/print.h"
#include "verify/element_text.h"
#include "verify/last_writer.h"
#include "verify/operands.h"
#include "verify/original_match.h"
#include "verify/reference.h"
#include "verify/reference_storage.h"
#include "verify/step_capture.h"

namespace allocsim {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// No placement, no register placement, instruction ids in preorder: the program as reference() would copy it.
bool isPlainProgram(const Program& p) {
  for (const Tensor& t : p.tensors)
    if (t.placement) return false;
  for (const Register& r : p.registers)
    if (r.phys) return false;
  uint32_t next = 0;
  bool numbered = true;
  forEachInstruction(p.body, [&](const Instruction& i) { numbered = numbered && i.id == next++; });
  return numbered;
}

// A read of the reference run as the equivalence oracle keeps it until the allocated run has made its own: an
// OperandRead without its padding (12 bytes, not 16: 40 MB less at 10 million steps).
#pragma pack(push, 4)
struct KeptRead {
  uint32_t inst_id;
  uint64_t hash;
};
#pragma pack(pop)
static_assert(sizeof(KeptRead) == 12);

// Where two runs' operand-hash sequences first part: the positions in the allocated and reference reads.
struct Divergence {
  uint64_t alloc_read = 0;  // index into the allocated run's reads (every executed non-loop instruction)
  uint64_t ref_read = 0;    // index into the reference run's reads
  bool trace = false;       // a different instruction (or one run ended): the hashes are not comparable
};

// (partition, element) of the idx-th element of a view, in view order.
struct ViewElement {
  uint32_t partition;
  uint64_t element;
};
ViewElement viewElement(const ResolvedView& v, uint64_t idx) {
  const uint64_t per = std::max<uint64_t>(1, v.perPartition());
  const uint64_t within = idx % per;
  const uint64_t count = std::max<uint32_t>(1, v.count);
  return {uint32_t(v.partition + idx / per), v.offset + (within / count) * v.step2 + within % count};
}

// Index of the first element whose bytes differ, and which of its bytes do.
struct ElementDiff {
  uint64_t index = 0;
  std::vector<uint32_t> bytes;
};
std::optional<ElementDiff> firstDifference(const uint8_t* found, const uint8_t* expected, uint64_t bytes,
                                           uint32_t elem_size) {
  // The bytes the loop below compares (whole elements), at once first: they are almost always equal, and a memcmp
  // per element was a sanitizer interceptor call per element (3.7 % of dma_opt_fuzz's CPU time).
  const uint64_t whole = elem_size == 0 ? 0 : (bytes + elem_size - 1) / elem_size * elem_size;
  if (whole == 0 || std::memcmp(found, expected, whole) == 0) return std::nullopt;
  for (uint64_t e = 0; e * elem_size < bytes; ++e) {
    if (std::memcmp(found + e * elem_size, expected + e * elem_size, elem_size) == 0) continue;
    ElementDiff d{e, {}};
    for (uint32_t b = 0; b < elem_size; ++b)
      if (found[e * elem_size + b] != expected[e * elem_size + b]) d.bytes.push_back(b);
    return d;
  }
  return std::nullopt;
}

// The reference: the program recovered from the allocated one, or — when the original is given and matches it
// (matchOriginal) — the original itself, so that the run compared against is the user's program, not a
// reconstruction. The two have the same declarations and instructions in the same order, so the recovered
// program's tensor and instruction maps hold for the original too. The recovered program's run is made on the
// allocated program's own original instructions when it can be (runsOnAllocatedInstructions): then it has its
// declarations and maps but no copy of the instructions.
// With the original, `recovered` is referenceProgram(allocated) already made for matchOriginal (its maps are the
// ones needed; its copy of the instructions is dropped).
ReferenceProgram reference(const Program& allocated, const Program* original, ReferenceProgram* recovered) {
  if (!original) {
    ReferenceProgram ref = referenceProgram(allocated, ReferenceBody::None);
    return runsOnAllocatedInstructions(allocated, ref) ? ref : referenceProgram(allocated);
  }
  ReferenceProgram ref = recovered ? std::move(*recovered) : referenceProgram(allocated, ReferenceBody::None);
  ref.program = Program{};
  if (isPlainProgram(*original)) return ref;  // the reference run reads the original itself (Checker::refProgram)
  ref.program = *original;
  for (Tensor& t : ref.program.tensors) t.placement.reset();
  for (Register& r : ref.program.registers) r.phys.reset();
  ref.program.renumber();
  return ref;
}

class Checker {
 public:
  Checker(const Program& allocated, const EquivalenceOptions& opts, ReferenceProgram* recovered = nullptr)
      : a_(allocated), opts_(opts), ref_(reference(allocated, opts.original, recovered)), layout_(allocated) {
    // A plain original (no placements, ids in preorder) is what its copy with placements dropped and renumbered
    // would be: the reference run reads it where it is instead of a copy of it.
    if (opts.original && isPlainProgram(*opts.original)) ref_program_ = opts.original;
    on_allocated_ = !opts.original && runsOnAllocatedInstructions(a_, ref_);
    io_.input_seed = opts.input_seed;
    io_.max_steps = opts.max_steps;
    io_.release_dead = true;  // memory for the tensors in use; the replays that explain a finding look only at those
    io_ref_ = io_;
    io_ref_.source_only = on_allocated_;
    phys_ = [this] { return std::make_unique<PhysicalStorage>(a_, opts_.poison_seed); };
    priv_ = [this]() -> std::unique_ptr<Storage> {
      if (on_allocated_) return std::make_unique<ReferenceStorage>(a_, ref_);
      return std::make_unique<PrivateStorage>(refProgram());
    };
  }

  std::vector<Finding> run() {
    io_.progress = opts_.progress;
    io_.progress_phase = "equivalence oracle: the reference";
    // The reference's reads are kept (in a deque: no doubling as they grow); the allocated run's are compared with
    // them as they come instead of being kept too.
    io_ref_.progress = io_.progress;
    io_ref_.progress_phase = io_.progress_phase;
    Keep keep(*this);
    InterpOptions ref_run = io_ref_;
    ref_run.record_reads = false;
    ref_run.read_sink = &keep;
    std::unique_ptr<Storage> ref_storage = priv_();
    expected_ = interpret(referenceRun(), *ref_storage, ref_run);  // an InputError here: the program cannot run at all
    ref_storage.reset();
    std::unique_ptr<Storage> storage = phys_();
    Compare compare(*this);
    CompareOutputs outputs(*this);
    io_.progress_phase = "equivalence oracle: the allocated program";
    InterpOptions alloc_run = io_;
    alloc_run.record_reads = false;
    alloc_run.read_sink = &compare;
    alloc_run.output_sink = &outputs;  // compared one at a time: the run's outputs are not held beside the reference's
    try {
      interpret(a_, *storage, alloc_run);
    } catch (const InputError& e) {
      return {runtimeFailure(e)};
    }
    storage.reset();
    if (std::optional<Divergence> d = compare.end()) return {divergence(*d, "")};
    if (outputs.first) return {outputMismatch(outputs.first->first, outputs.first->second)};
    return {};
  }

 private:
  uint32_t referenceId(uint32_t alloc_id) const {
    return alloc_id < ref_.instruction.size() ? ref_.instruction[alloc_id] : kNone;
  }

  // The program the reference run interprets: the allocated one (its original instructions only, on ReferenceStorage)
  // or the recovered or original program.
  const Program& referenceRun() const { return on_allocated_ ? a_ : refProgram(); }
  // The reference program's declarations and (unless the run is on a_'s instructions) instructions.
  const Program& refProgram() const { return ref_program_ ? *ref_program_ : ref_.program; }
  // The reference's id of an instruction the reference run executed.
  uint32_t referenceRunId(uint32_t id) const { return on_allocated_ ? referenceId(id) : id; }
  // The `ordinal`-th executed non-loop instruction of the reference run.
  std::optional<StepCapture> captureReference(uint64_t ordinal) const {
    return captureExecution(referenceRun(), priv_, io_ref_, ordinal, on_allocated_ ? &ref_.registers : nullptr);
  }
  std::string referenceText(const Instruction& inst) const {
    if (!on_allocated_) return instructionText(refProgram(), inst);
    return instructionText(refProgram(), referenceInstruction(a_, ref_, inst));
  }

  // Keeps the reference run's reads, by the reference's instruction ids.
  class Keep : public OperandReadSink {
   public:
    explicit Keep(Checker& c) : c_(c) {}
    void onRead(const OperandRead& read) override { c_.expected_reads_.push_back({c_.referenceRunId(read.inst_id), read.hash}); }

   private:
    Checker& c_;
  };

  // Where the allocated run's reads (every executed non-loop instruction, inserted ones included) first part from
  // the reference's, compared as they come; the first difference is kept and the run goes on, so that a later
  // failure of the physical run is still reported as one (runtimeFailure).
  class Compare : public OperandReadSink {
   public:
    explicit Compare(const Checker& c) : c_(c) {}
    void onRead(const OperandRead& read) override {
      const uint64_t index = reads_++;
      if (divergence_) return;
      const uint32_t id = c_.referenceId(read.inst_id);
      if (id == kNone) return;  // an inserted instruction: nothing to compare it with
      const std::deque<KeptRead>& want = c_.expected_reads_;
      if (originals_ >= want.size() || want[originals_].inst_id != id)
        divergence_ = Divergence{index, originals_, true};
      else if (want[originals_].hash != read.hash)
        divergence_ = Divergence{index, originals_, false};
      else
        ++originals_;
    }
    // After the run: the first difference, or the reference's reads the run did not reach.
    std::optional<Divergence> end() const {
      if (divergence_) return divergence_;
      if (originals_ < c_.expected_reads_.size()) return Divergence{reads_, originals_, true};
      return std::nullopt;
    }

   private:
    const Checker& c_;
    uint64_t reads_ = 0, originals_ = 0;
    std::optional<Divergence> divergence_;
  };

  // ---- naming things ----

  std::string instructionText(const Program& p, const Instruction& inst) const {
    return "line " + std::to_string(inst.loc.line) + " `" + printInstruction(p, inst) + "`";
  }
  std::string tensorText(TensorId t) const {
    const Tensor& tensor = a_.tensors.at(t);
    std::string s = quoted(tensor.name);
    if (tensor.origin != Origin::Source) {
      TensorId src = ref_.tensor.at(t);
      s += std::string(" (inserted by ") + originName(tensor.origin);
      if (src != kNone) s += ", holds " + quoted(refProgram().tensors.at(src).name);
      s += ")";
    }
    return s;
  }
  std::string registerPlacement(RegId r) const {
    std::string s = "@r" + std::to_string(layout_.firstLane(r));
    if (layout_.lanes(r) == 2) s += " (lanes r" + std::to_string(layout_.firstLane(r)) + ", r" +
                                    std::to_string(layout_.firstLane(r) + 1) + ")";
    return s;
  }
  std::string writerText(const LastWrite& w) const {
    if (!w.inst)
      return "nothing in the physical run before this step: the bytes hold their initial contents (poison, or "
             "input data)";
    std::string s = instructionText(a_, *w.inst) + " at step " + std::to_string(w.step);
    if (w.inst->origin != Origin::Source) s += std::string(" (inserted ") + originName(w.inst->origin) + ")";
    if (w.tensor != kNone) s += ", writing tensor " + tensorText(w.tensor);
    if (w.reg != kNone) s += ", writing register " + quoted(a_.registers.at(w.reg).name) + " " + registerPlacement(w.reg);
    return s;
  }
  std::string seedsNote() const {
    return "poison seed " + std::to_string(opts_.poison_seed) + ", input seed " + std::to_string(opts_.input_seed) +
           " (the same seeds reproduce this run)";
  }
  Finding finding(FindingKind kind, const Instruction* inst, uint64_t step) const {
    Finding f;
    f.oracle = Oracle::Equivalence;
    f.kind = kind;
    if (inst) {
      f.loc = inst->loc;
      f.inst_id = inst->id;
    }
    f.step = step;
    return f;
  }

  // ---- operand mismatch ----

  Finding divergence(const Divergence& d, const std::string& later) const {
    std::optional<StepCapture> got = captureExecution(a_, phys_, io_, d.alloc_read, &ref_.registers);
    std::optional<StepCapture> want = captureReference(d.ref_read);
    Finding f = d.trace || !got || !want ? traceMismatch(got, want) : operandMismatch(*got, *want);
    if (!later.empty()) f.notes.push_back(later);
    f.notes.push_back(seedsNote());
    return f;
  }

  Finding traceMismatch(const std::optional<StepCapture>& got, const std::optional<StepCapture>& want) const {
    Finding f = finding(FindingKind::TraceMismatch, got ? got->inst : nullptr, got ? got->step : 0);
    std::string theirs = want ? referenceText(*want->inst) : "nothing (it has ended)";
    f.message = got ? "the physical run executes " + instructionText(a_, *got->inst) + " where the reference executes " + theirs
                    : "the physical run ends where the reference executes " + theirs;
    return f;
  }

  // What differs in one operand: a one-line message and the notes that explain it.
  struct Explanation {
    std::string message;
    std::vector<std::string> notes;
  };

  Finding operandMismatch(const StepCapture& got, const StepCapture& want) const {
    const Instruction& inst = *got.inst;
    Finding f = finding(FindingKind::OperandMismatch, &inst, got.step);
    f.notes.push_back("instruction: " + instructionText(a_, inst) + " (id " + std::to_string(inst.id) + ", step " +
                      std::to_string(got.step) + "); reference step " + std::to_string(want.step));
    std::optional<Explanation> why = operandDifference(got, want);
    if (!why) why = Explanation{"`" + printInstruction(a_, inst) + "` hashes its operands differently from the reference", {}};
    f.message = why->message;
    f.notes.insert(f.notes.end(), why->notes.begin(), why->notes.end());
    return f;
  }

  std::optional<Explanation> operandDifference(const StepCapture& got, const StepCapture& want) const {
    const Instruction& inst = *got.inst;
    // Registers first: a wrong address register also makes every view it addresses differ.
    std::vector<RegisterOperand> regs = registerOperands(a_, inst, &ref_.registers);
    for (size_t k = 0; k < regs.size() && k < got.registers.size() && k < want.registers.size(); ++k)
      if (got.registers[k] != want.registers[k])
        return registerMismatch(inst, regs[k], got.registers[k], want.registers[k], got.step);
    std::vector<std::string> names = readOperandNames(a_, inst, got.access.reads.size());
    for (size_t k = 0; k < got.access.reads.size() && k < want.access.reads.size(); ++k) {
      const ResolvedView& v = got.access.reads[k];
      uint64_t n = std::min(got.views[k].size(), want.views[k].size());
      std::optional<ElementDiff> diff = firstDifference(got.views[k].data(), want.views[k].data(), n, v.elem_size);
      if (diff) return viewMismatch(inst, names[k], v, got.views[k].data(), want.views[k].data(), *diff, got.step);
    }
    return std::nullopt;
  }

  Explanation registerMismatch(const Instruction& inst, const RegisterOperand& op, uint64_t found, uint64_t expected,
                               uint64_t step) const {
    const Register& reg = a_.registers.at(op.reg);
    Explanation x;
    x.message = "`" + printInstruction(a_, inst) + "` reads register " + quoted(reg.name) + " (" + op.role +
                ") = " + registerText(found, reg.width) + "; the reference reads " + registerText(expected, reg.width);
    // The lane that differs (the high one of a 64-bit register when only that half is wrong).
    uint32_t lane = layout_.firstLane(op.reg);
    if (layout_.lanes(op.reg) == 2 && uint32_t(found) == uint32_t(expected)) ++lane;
    x.notes.push_back("register " + quoted(reg.name) + " " + registerPlacement(op.reg) + "; lane r" +
                      std::to_string(lane) + " differs");
    LastWrites w = findLastWrites(a_, layout_, phys_, io_, WriteTargets{{}, {lane}}, step);
    x.notes.push_back("lane r" + std::to_string(lane) + " last written by: " + writerText(w.latest()));
    return x;
  }

  Explanation viewMismatch(const Instruction& inst, const std::string& operand, const ResolvedView& v,
                           const uint8_t* found, const uint8_t* expected, const ElementDiff& diff,
                           uint64_t step) const {
    ViewElement e = viewElement(v, diff.index);
    const uint8_t* fb = found + diff.index * v.elem_size;
    const uint8_t* eb = expected + diff.index * v.elem_size;
    const std::string where = "[" + std::to_string(e.partition) + ", " + std::to_string(e.element) + "]";
    Explanation x;
    x.message = "`" + printInstruction(a_, inst) + "` reads " + operand + " element " + where + " = " +
                elementText(v.dtype, fb) + "; the reference reads " + elementText(v.dtype, eb);
    x.notes = explainBytes(v.tensor, e.partition, e.element, v.elem_size, diff, step);
    return x;
  }

  // Names the tensor element, its physical bytes, and who last wrote the differing ones before `step`.
  std::vector<std::string> explainBytes(TensorId t, uint32_t partition, uint64_t element, uint32_t elem_size,
                                        const ElementDiff& diff, uint64_t step) const {
    PhysicalByte first = layout_.locate(t, partition, element * elem_size);
    std::vector<std::string> notes;
    notes.push_back("tensor " + tensorText(t) + " element [" + std::to_string(partition) + ", " +
                      std::to_string(element) + "] lives at " + layout_.describe(first, elem_size) +
                      (diff.bytes.size() < elem_size ? "; differing byte(s) " + byteList(first, diff.bytes) : ""));
    WriteTargets targets;
    for (uint32_t b : diff.bytes) targets.bytes.push_back(layout_.locate(t, partition, element * elem_size + b));
    LastWrites w = findLastWrites(a_, layout_, phys_, io_, targets, step);
    notes.push_back("those bytes were last written by: " + writerText(w.latest()));
    return notes;
  }
  std::string byteList(const PhysicalByte& first, const std::vector<uint32_t>& bytes) const {
    std::string s;
    for (uint32_t b : bytes) s += (s.empty() ? "" : ", ") + std::to_string(first.byte + b);
    return s;
  }

  // ---- outputs ----

  // The reference's output that the allocated program's output t is compared with; null when t is none to compare.
  const std::vector<uint8_t>* expectedOutput(TensorId t) const {
    const Tensor& tensor = a_.tensors.at(t);
    TensorId rt = ref_.tensor.at(t);
    if (!tensor.output || tensor.origin != Origin::Source || rt == kNone) return nullptr;
    return &expected_.outputs.at(on_allocated_ ? t : rt);  // by the run's TensorId
  }
  std::vector<uint8_t>* expectedOutput(TensorId t) {
    return const_cast<std::vector<uint8_t>*>(std::as_const(*this).expectedOutput(t));
  }
  std::optional<ElementDiff> outputDifference(TensorId t, const std::vector<uint8_t>& got) const {
    const std::vector<uint8_t>* want = expectedOutput(t);
    if (!want) return std::nullopt;
    return firstDifference(got.data(), want->data(), std::min(got.size(), want->size()), dtypeSize(a_.tensors[t].dtype));
  }

  // Compares the allocated run's outputs with the reference's as they come (an output of its own storage as soon as
  // it is final, InterpOptions::output_sink) and keeps the first in TensorId order that differs, with its bytes; the
  // others are dropped, and so is the reference's output each one equals.
  class CompareOutputs : public OutputSink {
   public:
    explicit CompareOutputs(Checker& c) : c_(c) {}
    void onOutput(TensorId t, std::vector<uint8_t>&& bytes) override {
      if (!c_.outputDifference(t, bytes)) {
        if (std::vector<uint8_t>* want = c_.expectedOutput(t)) std::vector<uint8_t>().swap(*want);
      } else if (!first || t < first->first) {
        first.emplace(t, std::move(bytes));
      }
    }
    std::optional<std::pair<TensorId, std::vector<uint8_t>>> first;

   private:
    Checker& c_;
  };

  // The finding for output t, whose bytes `got` differ from the reference's.
  Finding outputMismatch(TensorId t, const std::vector<uint8_t>& got) const {
    const Tensor& tensor = a_.tensors[t];
    const std::vector<uint8_t>& want = *expectedOutput(t);
    const uint32_t size = dtypeSize(tensor.dtype);
    const ElementDiff diff = *outputDifference(t, got);
    const uint32_t partition = uint32_t(diff.index / tensor.elements);
    const uint64_t element = diff.index % tensor.elements;
    WriteTargets targets;
    for (uint32_t b : diff.bytes) targets.bytes.push_back(layout_.locate(t, partition, element * size + b));
    LastWrite last = findLastWrites(a_, layout_, phys_, io_, targets, UINT64_MAX).latest();
    Finding f = finding(FindingKind::OutputMismatch, last.inst, last.step);
    if (!last.inst) f.loc = tensor.loc;
    f.message = "output " + quoted(tensor.name) + " element [" + std::to_string(partition) + ", " +
                std::to_string(element) + "] = " + elementText(tensor.dtype, got.data() + diff.index * size) +
                "; the reference computes " + elementText(tensor.dtype, want.data() + diff.index * size);
    f.notes.push_back("it lives at " + layout_.describe(layout_.locate(t, partition, element * size), size));
    f.notes.push_back("those bytes were last written by: " + writerText(last));
    f.notes.push_back(seedsNote());
    return f;
  }

  // ---- a physical run that fails ----

  // Replays the failing run comparing operand hashes as it goes, so that a difference before the failure (the
  // clobber that caused it) is reported rather than the failure.
  class Progress : public ExecObserver {
   public:
    explicit Progress(const Checker& c) : c_(c) {}
    void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) override {
      last_step = step;
      if (inst.op == Op::Loop) return;
      const uint64_t index = reads++;
      uint32_t id = c_.referenceId(inst.id);
      if (id == kNone) return;
      const std::deque<KeptRead>& want = c_.expected_reads_;
      if (originals >= want.size() || want[originals].inst_id != id || want[originals].hash != access.operand_hash) {
        divergence = Divergence{index, originals, originals >= want.size() || want[originals].inst_id != id};
        throw Stop{};
      }
      ++originals;
    }
    struct Stop {};
    uint64_t last_step = 0, reads = 0, originals = 0;
    std::optional<Divergence> divergence;

   private:
    const Checker& c_;
  };

  Finding runtimeFailure(const InputError& e) const {
    const Diagnostic& diag = e.diagnostics().front();
    Progress progress(*this);
    replayObserved<Progress::Stop>(a_, phys_, io_, progress);
    const std::string failure = "the physical run later fails at line " + std::to_string(diag.loc.line) + ": " +
                                diag.message;
    if (progress.divergence) return divergence(*progress.divergence, failure);

    const uint64_t step = progress.last_step + 1;
    const Instruction* inst = instructionAtLine(diag.loc.line);
    Finding f = finding(FindingKind::RuntimeError, inst, step);
    f.loc = diag.loc;
    f.message = "the physical run fails where the reference does not: " + diag.message;
    if (inst) {
      f.notes.push_back("instruction: " + instructionText(a_, *inst) + " (id " + std::to_string(inst->id) +
                        ", step " + std::to_string(step) + ")");
      explainFailingRegisters(f, *inst, step, progress.originals);
    }
    f.notes.push_back(seedsNote());
    return f;
  }

  // The failing instruction's registers against the reference's: a clobbered address register explains an
  // out-of-range access.
  void explainFailingRegisters(Finding& f, const Instruction& inst, uint64_t step, uint64_t ordinal) const {
    if (referenceId(inst.id) == kNone) return;
    std::optional<StepCapture> want = captureReference(ordinal);
    if (!want || referenceRunId(want->inst->id) != referenceId(inst.id)) return;
    std::unique_ptr<Storage> before = stateBefore(a_, phys_, io_, step);
    std::vector<RegisterOperand> regs = registerOperands(a_, inst, &ref_.registers);
    for (size_t k = 0; k < regs.size() && k < want->registers.size(); ++k) {
      uint64_t got = before->readReg(regs[k].reg);
      if (got == want->registers[k]) continue;
      Explanation x = registerMismatch(inst, regs[k], got, want->registers[k], step);
      f.notes.push_back("cause: " + x.message);
      f.notes.insert(f.notes.end(), x.notes.begin(), x.notes.end());
      return;
    }
  }

  const Instruction* instructionAtLine(uint32_t line) const {
    const Instruction* found = nullptr;
    forEachInstruction(a_.body, [&](const Instruction& i) {
      if (!found && line != 0 && i.loc.line == line) found = &i;
    });
    return found;
  }

  const Program& a_;
  EquivalenceOptions opts_;
  ReferenceProgram ref_;
  const Program* ref_program_ = nullptr;  // the original itself, when it is plain; else ref_.program
  bool on_allocated_ = false;  // the reference runs on a_'s original instructions (ReferenceStorage), not on a copy
  MachineLayout layout_;
  InterpOptions io_;
  InterpOptions io_ref_;  // io_ for the reference run
  StorageFactory phys_, priv_;
  InterpResult expected_;                  // the reference run's outputs (its reads are in expected_reads_)
  std::deque<KeptRead> expected_reads_;  // one per executed non-loop instruction of the reference run
};

}  // namespace

std::vector<Finding> checkEquivalence(const Program& allocated, const EquivalenceOptions& opts) {
  if (opts.original) {
    // Declarations and maps only: matchOriginal reads the recovered instructions off the allocated program.
    ReferenceProgram recovered = referenceProgram(allocated, ReferenceBody::None);
    std::vector<Finding> differ = matchOriginal(allocated, recovered, *opts.original);
    if (!differ.empty()) return differ;  // the runs could not be paired instruction by instruction
    return Checker(allocated, opts, &recovered).run();  // its maps, made once
  }
  return Checker(allocated, opts).run();
}

}  // namespace allocsim
