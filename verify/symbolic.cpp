#include "verify/symbolic.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include "ir/interp.h"
#include "ir/print.h"
#include "verify/physical_location.h"
#include "verify/reference.h"
#include "verify/symbol_map.h"

namespace allocsim {
namespace {

constexpr Symbol kInsertedBit = uint64_t(1) << 63;
// Logical and reference regions: a tensor's id, or this one for all registers, lane k of register r at unit
// laneUnit(r, k) (one region, not one per register: a page per register would make memory grow with the
// program's registers by a page each).
constexpr uint64_t kRegisterRegion = uint64_t(1) << 40;
constexpr uint64_t laneUnit(RegId r, uint32_t k) { return 2 * uint64_t(r) + k; }
constexpr uint64_t kNoStep = UINT64_MAX;

// Thrown by the observer to end the interpretation early (a finding, or the describing walk's last step).
struct StopWalk {};

// A tensor element or a register lane of the allocated program.
struct Place {
  bool is_register = false;
  uint32_t id = kNone;
  uint64_t partition = 0;
  uint64_t element = 0;  // the lane for a register
};

// Who created a symbol (or last wrote a location), found by the describing walk.
struct Event {
  bool known = false;
  const Instruction* inst = nullptr;  // nullptr: the input load before the run
  uint64_t step = 0;
  Place place;
};

struct Mismatch {
  bool reference = false;             // check 2 (L vs R) rather than check 1 (P vs L)
  const Instruction* inst = nullptr;  // nullptr: the end-of-run check of an output
  uint64_t step = 0;
  std::string operand;  // "source", "accumulator", ...; empty for a register
  Place place;
  Symbol expected = kNoSymbol;  // check 1: L; check 2: R
  Symbol found = kNoSymbol;     // check 1: P; check 2: L
  uint64_t region = 0, unit = 0;  // check 1: the unit that holds the wrong symbol
};

// The operand names of ExecAccess::reads, in the interpreter's order.
std::string readLabel(const Instruction& inst, size_t index, size_t count) {
  switch (inst.op) {
    case Op::Matmul: {
      static const char* with_acc[] = {"accumulator", "stationary", "moving"};
      static const char* without[] = {"stationary", "moving"};
      if (count == 3 && index < 3) return with_acc[index];
      if (count == 2 && index < 2) return without[index];
      return "operand";
    }
    case Op::TT: return index == 0 ? "first source" : "second source";
    case Op::TTScan: return index == 0 ? "first source" : index == 1 ? "second source" : "initial value";
    case Op::TS: {  // the source, then the scalar and the second op's scalar when they are views
      if (index == 0) return "source";
      size_t k = 0;
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor && ++k == index) return sc == &inst.scalar ? "scalar" : "second scalar";
      return "source";
    }
    case Op::Act: {  // its tensor reads: the source, then the scale and the bias when they are views
      if (index == 0) return "source";
      size_t k = 0;
      for (const ScalarOperand* sc : scalarOperands(inst))
        if (sc->kind == ScalarOperand::Kind::Tensor && ++k == index) return sc == &inst.rare->scale ? "scale" : "bias";
      return "source";
    }
    default: return "source";
  }
}

class Walk final : public ExecObserver {
 public:
  Walk(const Program& p, const ReferenceProgram& ref, const PhysicalLayout& layout)
      : p_(p), ref_(ref), layout_(layout), width_(ref.program.tensors.size(), 0), holders_(width_.size(), 0) {
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (ref.tensor[t] != kNone) {
        width_[ref.tensor[t]] = std::max<uint64_t>(width_[ref.tensor[t]], p.tensors[t].elements);
        ++holders_[ref.tensor[t]];
      }
  }

  // Turns this walk into the describing one: no checks; stops before `stop_step`; records the creation of
  // each target symbol and the last write of the unit (region, unit).
  void describe(uint64_t stop_step, std::vector<Symbol> targets, uint64_t region, uint64_t unit) {
    describing_ = true;
    stop_step_ = stop_step;
    targets_ = std::move(targets);
    created.assign(targets_.size(), Event{});
    watch_region_ = region;
    watch_unit_ = unit;
  }

  // The interpreter loaded input t (before the run, or — of its own storage — just before the statement that
  // first names it): every element gets a fresh original symbol, "the input load".
  void onInput(TensorId t) override {
    const Tensor& tensor = p_.tensors[t];
    current_ = nullptr;
    const bool original = tensor.origin == Origin::Source;
    for (uint64_t q = 0; q < tensor.partitions; ++q)
      forEachRun(t, q, 0, tensor.elements, [&](uint64_t e, uint64_t n, const RowLocation& row) {
        writeFreshRun(t, q, e, n, row, original);
      });
  }

  // Tensor t is dead (ir/release_schedule.h): its logical symbols, its storage of its own, and — once every
  // allocated tensor standing for it is dead — its reference tensor's symbols are dropped, so the maps hold the
  // tensors in use, not every tensor the run has seen.
  void onRelease(TensorId t) override {
    const Tensor& tensor = p_.tensors[t];
    const uint64_t elements = uint64_t(tensor.partitions) * tensor.elements;
    logical_.erase(t, elements);
    const RowLocation row = layout_.row(t, 0);
    if (row.region == regionId(RegionKind::PrivateTensor, t)) physical_.erase(row.region, elements * row.units);
    const TensorId r = ref_.tensor[t];
    if (r != kNone && --holders_[r] == 0) reference_.erase(r, uint64_t(ref_.program.tensors[r].partitions) * width_[r]);
  }

  void onExecute(const Instruction& inst, uint64_t step, const ExecAccess& access) override {
    if (describing_ && step >= stop_step_) throw StopWalk{};
    current_ = &inst;
    step_ = step;
    const bool original = inst.origin == Origin::Source;
    if (!describing_) {
      for (RegId r : access.reg_reads) checkRegister(r, original);
      for (size_t i = 0; i < access.reads.size() && !mismatch; ++i)
        checkView(access.reads[i], readLabel(inst, i, access.reads.size()), original);
      if (mismatch) throw StopWalk{};
    }
    if (!original && isMove(inst, access)) return move(inst, access);
    for (const ResolvedView& v : access.writes) writeView(v, original);
    for (RegId r : access.reg_writes) {
      const RowLocation lanes = layout_.lanes(r);
      for (uint32_t k = 0; k < p_.registers[r].lanes(); ++k) writeLane(r, k, lanes, fresh(original), original);
    }
  }

  // Output t is written no more (ir/release_schedule.h). When it has storage of its own (unplaced DRAM) nothing
  // else can change its bytes either: it is judged now, as the end of the run would judge it, and its symbols are
  // dropped. (A placed output is judged at the end: a later write to bytes it shares is a clobber.) The first
  // failing element is kept for checkOutputs, which reports the outputs in declaration order after every read has
  // been checked (the walk does not stop here).
  void onOutputFinal(TensorId t) override {
    if (layout_.row(t, 0).region != regionId(RegionKind::PrivateTensor, t)) return;
    if (!describing_ && !mismatch) {
      const Instruction* inst = current_;
      checkOutput(t);
      current_ = inst;
      if (mismatch) {
        if (!early_output_ || t < early_output_->place.id) early_output_ = mismatch;
        mismatch.reset();
      }
    }
    judged_.resize(p_.tensors.size(), false);
    judged_[t] = true;
    onRelease(t);
  }

  // The end of the run: the outputs must hold what the program means.
  void checkOutputs(uint64_t step) {
    step_ = step;
    for (TensorId t = 0; t < p_.tensors.size() && !mismatch; ++t) {
      if (!p_.tensors[t].output) continue;
      if (t >= judged_.size() || !judged_[t]) {
        checkOutput(t);
      } else if (early_output_ && early_output_->place.id == t) {
        mismatch = early_output_;
        mismatch->step = step;
      }
    }
  }

  std::optional<Mismatch> mismatch;
  std::vector<Event> created;  // describing: parallel to the targets
  Event last_write;            // describing: of the watched unit

 private:
  // A run of a row at a time (checkRun: one read of each map per run; a run with a mismatch is checked again element
  // by element, which names the first). Element by element, a hash lookup in each map per element, this was about a
  // third of the oracle's time on coloring_driver's fuzzed programs.
  void checkOutput(TensorId t) {
    static const std::string kOutput = "output";
    current_ = nullptr;
    const Tensor& tensor = p_.tensors[t];
    const bool original = tensor.origin == Origin::Source;
    for (uint64_t q = 0; q < tensor.partitions && !mismatch; ++q)
      forEachRun(t, q, 0, tensor.elements, [&](uint64_t e, uint64_t n, const RowLocation& row) {
        if (!mismatch) checkRun(t, q, e, n, row, kOutput, original);
      });
  }

  Symbol fresh(bool original) { return original ? ++original_count_ : kInsertedBit | ++inserted_count_; }

  // --- checks ---

  void checkView(const ResolvedView& v, const std::string& operand, bool original) {
    forEachRun(v, [&](uint64_t q, uint64_t e, uint64_t n, const RowLocation& row) {
      if (!mismatch) checkRun(v.tensor, q, e, n, row, operand, original);
    });
  }

  // Elements [e0, e0 + n) of partition q of t, a whole page of symbols at a time; a run with any mismatch is
  // checked again element by element (checkElement), which names the first.
  void checkRun(TensorId t, uint64_t q, uint64_t e0, uint64_t n, const RowLocation& row, const std::string& operand,
                bool original) {
    expected_.resize(n);
    logical_.read(t, q * p_.tensors[t].elements + e0, n, expected_.data());
    bool bad = false;
    const TensorId r = ref_.tensor[t];
    if (original && r != kNone) {
      other_.resize(n);
      reference_.read(r, q * width_[r] + e0, n, other_.data());
      bad = !std::equal(expected_.begin(), expected_.end(), other_.begin());
    }
    if (!bad) {
      other_.resize(n * row.units);
      physical_.read(row.region, row.unit(e0), n * row.units, other_.data());
      // Equal runs (nearly all of them) are decided by one memcmp; otherwise a unit that differs may still be
      // allowed (the logical element was never written), which the loop decides.
      const bool same = row.units == 1 && std::memcmp(expected_.data(), other_.data(), n * sizeof(Symbol)) == 0;
      for (uint64_t i = 0; !same && i < n && !bad; ++i)
        for (uint32_t u = 0; u < row.units; ++u)
          if (expected_[i] != kNoSymbol && other_[i * row.units + u] != expected_[i]) bad = true;
    }
    for (uint64_t i = 0; bad && i < n && !mismatch; ++i) checkElement(t, q, e0 + i, row, operand, original);
  }

  void checkElement(TensorId t, uint64_t q, uint64_t e, const RowLocation& row, const std::string& operand,
                    bool original) {
    const Symbol expected = logical_.get(t, q * p_.tensors[t].elements + e);
    const Place place{false, t, q, e};
    if (expected != kNoSymbol) {
      for (uint32_t u = 0; u < row.units; ++u) {
        const Symbol found = physical_.get(row.region, row.unit(e) + u);
        if (found != expected) return fail(false, operand, place, expected, found, row.region, row.unit(e) + u);
      }
    }
    const TensorId r = ref_.tensor[t];
    if (!original || r == kNone) return;
    const Symbol reference = reference_.get(r, q * width_[r] + e);
    if (reference != expected) fail(true, operand, place, reference, expected, 0, 0);
  }

  void checkRegister(RegId r, bool original) {
    const RowLocation lanes = layout_.lanes(r);
    for (uint32_t k = 0; k < p_.registers[r].lanes() && !mismatch; ++k) {
      const Place place{true, r, 0, k};
      const Symbol expected = logical_.get(kRegisterRegion, laneUnit(r, k));
      const Symbol found = physical_.get(lanes.region, lanes.unit(k));
      if (expected != kNoSymbol && found != expected)
        return fail(false, "", place, expected, found, lanes.region, lanes.unit(k));
      // The reference map is keyed by the reference register: a spill stand-in is read as the register it copies.
      const RegId ref = ref_.registers[r];
      if (!original || ref == kNone) continue;
      const Symbol reference = reference_.get(kRegisterRegion, laneUnit(ref, k));
      if (reference != expected) return fail(true, "", place, reference, expected, 0, 0);
    }
  }

  void fail(bool reference, const std::string& operand, const Place& place, Symbol expected, Symbol found,
            uint64_t region, uint64_t unit) {
    mismatch = Mismatch{reference, current_, step_, operand, place, expected, found, region, unit};
  }

  // --- transfer functions ---

  static bool isMove(const Instruction& inst, const ExecAccess& a) {
    switch (inst.op) {
      // A converting DMA (f32 <-> bf16) writes new values, like a converting copy.
      case Op::Dma:
        return a.reads.size() == 1 && a.writes.size() == 1 && a.reads[0].dtype == a.writes[0].dtype;
      case Op::Copy:
        return a.reads.size() == 1 && a.writes.size() == 1 && a.reads[0].dtype == a.writes[0].dtype;
      case Op::RegLoad: return a.reads.size() == 1 && a.reg_writes.size() == 1;
      case Op::RegStore: return a.writes.size() == 1;
      case Op::Mov: return a.reg_writes.size() == 1;
      default: return false;
    }
  }

  void move(const Instruction& inst, const ExecAccess& a) {
    moved_.clear();
    switch (inst.op) {
      case Op::RegStore:
      case Op::Mov:
        for (uint32_t k = 0; k < p_.registers[inst.rs].lanes(); ++k)
          moved_.push_back(logical_.get(kRegisterRegion, laneUnit(inst.rs, k)));
        break;
      default: {
        const TensorId t = a.reads[0].tensor;
        forEachRun(a.reads[0], [&](uint64_t q, uint64_t e, uint64_t n, const RowLocation&) {
          moved_.resize(moved_.size() + n);
          logical_.read(t, q * p_.tensors[t].elements + e, n, moved_.data() + moved_.size() - n);
        });
      }
    }
    size_t next = 0;
    if (!a.writes.empty()) {
      const ResolvedView& v = a.writes[0];
      // The interpreter checked that the shapes agree; a shorter source would get new values.
      while (moved_.size() < v.elements()) moved_.push_back(fresh(false));
      forEachRun(v, [&](uint64_t q, uint64_t e, uint64_t n, const RowLocation& row) {
        writeRun(v.tensor, q, e, n, row, moved_.data() + next, false);
        next += n;
      });
    } else {
      // A symbol for every lane; one the source cannot fill (a widening mov) is a new value.
      auto take = [&] { return next < moved_.size() ? moved_[next++] : fresh(false); };
      const RegId r = a.reg_writes[0];
      const RowLocation lanes = layout_.lanes(r);
      for (uint32_t k = 0; k < p_.registers[r].lanes(); ++k) writeLane(r, k, lanes, take(), false);
    }
  }

  // Calls f(e, n, row) for the elements [e0, e0 + count) of partition q of t, in runs of at most kRun (which
  // bounds the scratch buffers).
  template <typename F>
  void forEachRun(TensorId t, uint64_t q, uint64_t e0, uint64_t count, F&& f) {
    const RowLocation row = layout_.row(t, q);
    for (uint64_t k = 0; k < count; k += kRun) f(e0 + k, std::min(kRun, count - k), row);
  }
  // Calls f(q, e, n, row) for the runs of consecutive elements of v, in view order.
  template <typename F>
  void forEachRun(const ResolvedView& v, F&& f) {
    for (uint64_t q = v.partition; q < uint64_t(v.partition) + v.partitions; ++q)
      for (uint64_t j = 0; j < v.count2; ++j)
        forEachRun(v.tensor, q, v.offset + j * v.step2, v.count,
                   [&](uint64_t e, uint64_t n, const RowLocation& row) { f(q, e, n, row); });
  }

  void writeView(const ResolvedView& v, bool original) {
    forEachRun(v, [&](uint64_t q, uint64_t e, uint64_t n, const RowLocation& row) {
      writeFreshRun(v.tensor, q, e, n, row, original);
    });
  }

  void writeFreshRun(TensorId t, uint64_t q, uint64_t e0, uint64_t n, const RowLocation& row, bool original) {
    fresh_.resize(n);
    for (Symbol& s : fresh_) s = fresh(original);
    writeRun(t, q, e0, n, row, fresh_.data(), original);
  }

  // writeElement for elements [e0, e0 + n) of partition q of t, a page at a time.
  void writeRun(TensorId t, uint64_t q, uint64_t e0, uint64_t n, const RowLocation& row, const Symbol* symbols,
                bool original) {
    if (describing_) {
      for (uint64_t i = 0; i < n; ++i) writeElement(t, q, e0 + i, row, symbols[i], original);
      return;
    }
    logical_.write(t, q * p_.tensors[t].elements + e0, n, symbols);
    const TensorId r = ref_.tensor[t];
    if (original && r != kNone) reference_.write(r, q * width_[r] + e0, n, symbols);
    if (row.units == 1) return physical_.write(row.region, row.unit(e0), n, symbols);
    units_.resize(n * row.units);
    for (uint64_t i = 0; i < n; ++i) std::fill_n(units_.begin() + i * row.units, row.units, symbols[i]);
    physical_.write(row.region, row.unit(e0), n * row.units, units_.data());
  }

  // L and P (and R for an original write) of element e of partition q of t := s.
  void writeElement(TensorId t, uint64_t q, uint64_t e, const RowLocation& row, Symbol s, bool original) {
    logical_.set(t, q * p_.tensors[t].elements + e, s);
    const TensorId r = ref_.tensor[t];
    if (original && r != kNone) reference_.set(r, q * width_[r] + e, s);
    writePhysical(row, e, s);
    if (describing_) noteCreated(s, Place{false, t, q, e});
  }

  void writeLane(RegId r, uint32_t k, const RowLocation& lanes, Symbol s, bool original) {
    logical_.set(kRegisterRegion, laneUnit(r, k), s);
    const RegId ref = ref_.registers[r];
    if (original && ref != kNone) reference_.set(kRegisterRegion, laneUnit(ref, k), s);
    writePhysical(lanes, k, s);
    if (describing_) noteCreated(s, Place{true, r, 0, k});
  }

  void writePhysical(const RowLocation& row, uint64_t e, Symbol s) {
    for (uint32_t u = 0; u < row.units; ++u) {
      const uint64_t unit = row.unit(e) + u;
      physical_.set(row.region, unit, s);
      if (describing_ && row.region == watch_region_ && unit == watch_unit_) last_write = Event{true, current_, step_, {}};
    }
  }

  void noteCreated(Symbol s, const Place& place) {
    for (size_t i = 0; i < targets_.size(); ++i)
      if (targets_[i] == s && !created[i].known) created[i] = Event{true, current_, step_, place};
  }

  const Program& p_;
  const ReferenceProgram& ref_;
  const PhysicalLayout& layout_;
  std::vector<uint64_t> width_;  // by reference tensor: the row width of its R region
  std::vector<uint32_t> holders_;  // by reference tensor: allocated tensors standing for it not yet released
  std::vector<bool> judged_;              // by tensor: an output checked when it became final
  std::optional<Mismatch> early_output_;  // the first such output (lowest id) with a failing element
  SymbolMap logical_, physical_, reference_;
  Symbol original_count_ = 0, inserted_count_ = 0;
  const Instruction* current_ = nullptr;
  uint64_t step_ = 0;
  static constexpr uint64_t kRun = 4096;
  std::vector<Symbol> moved_, fresh_, units_, expected_, other_;  // scratch

  bool describing_ = false;
  uint64_t stop_step_ = kNoStep;
  std::vector<Symbol> targets_;
  uint64_t watch_region_ = 0, watch_unit_ = 0;
};

// Runs a walk over the allocated program; returns the number of steps when it ran to the end.
std::optional<uint64_t> run(const Program& p, Walk& walk, const SymbolicOptions& opts) {
  InterpOptions io;
  io.max_steps = opts.max_steps;
  io.observer = &walk;
  io.record_reads = false;
  io.release_dead = true;
  io.values = false;  // the walk follows symbols through the views each step touches, not the values
  io.progress = opts.progress;
  io.progress_phase = "symbolic oracle";
  try {
    return interpret(p, io).steps;
  } catch (const StopWalk&) {
    return std::nullopt;
  }
}

// --- the report ---

class Reporter {
 public:
  Reporter(const Program& p, const ReferenceProgram& ref, const PhysicalLayout& layout)
      : p_(p), ref_(ref), layout_(layout) {}

  Finding finding(const Mismatch& m, const Event& expected, const Event& found, const Event& last_write) const {
    Finding f;
    f.oracle = Oracle::Symbolic;
    f.kind = kind(m, expected, found);
    if (m.inst) {
      f.loc = m.inst->loc;
      f.inst_id = m.inst->id;
      f.step = m.step;
    } else {
      f.loc = p_.tensors[m.place.id].loc;
      f.step = m.step;
    }
    const std::string who = m.inst ? "`" + printInstruction(p_, *m.inst) + "` reads " + m.operand +
                                         (m.operand.empty() ? "" : " ")
                                   : "at the end of the run, output ";
    const std::string what = place(m.place);
    if (f.kind == FindingKind::Clobber)
      f.message = who + what + ", which " + holder(found.place) + " overwrote (clobber)";
    else if (f.kind == FindingKind::StaleRead)
      f.message = who + what + " and finds an out-of-date value of it (stale read)";
    else if (f.kind == FindingKind::NeverWritten && !m.reference)
      f.message = who + what + " from a location no instruction wrote (it holds poison)";
    else if (f.kind == FindingKind::NeverWritten)
      f.message = who + what + ", which no instruction wrote; the reference program reads a value there";
    else
      f.message = who + what + ", which holds " + valueOf(found) + ", not the value the reference program reads";
    f.notes.push_back("expected: " + symbol(m.expected, expected, m.reference ? "reference" : "logical"));
    f.notes.push_back("found: " + symbol(m.found, found, m.reference ? "logical" : "physical"));
    if (!m.reference) {
      std::string loc = "location: " + layout_.describe(m.region, m.unit, 1);
      if (last_write.known) loc += ", last written by " + event(last_write);
      else loc += ", never written";
      f.notes.push_back(loc);
    }
    return f;
  }

 private:
  FindingKind kind(const Mismatch& m, const Event& expected, const Event& found) const {
    if (m.found == kNoSymbol) return FindingKind::NeverWritten;
    if (expected.known && found.known && sameValue(expected.place, found.place)) return FindingKind::StaleRead;
    return m.reference ? FindingKind::WrongValue : FindingKind::Clobber;
  }

  // Two places hold versions of one value when they are the same lane of registers standing for the same
  // reference register, or elements at the same position of tensors standing for the same reference tensor.
  bool sameValue(const Place& a, const Place& b) const {
    if (a.is_register != b.is_register || a.partition != b.partition || a.element != b.element) return false;
    if (a.is_register) return a.id == b.id || (ref_.registers[a.id] != kNone && ref_.registers[a.id] == ref_.registers[b.id]);
    return ref_.tensor[a.id] != kNone && ref_.tensor[a.id] == ref_.tensor[b.id];
  }

  std::string place(const Place& pl) const {
    if (pl.is_register) {
      const Register& r = p_.registers[pl.id];
      return "register '" + r.name + "'" + (r.lanes() > 1 ? " lane " + std::to_string(pl.element) : "");
    }
    return "'" + p_.tensors[pl.id].name + "' element [" + std::to_string(pl.partition) + ", " +
           std::to_string(pl.element) + "]";
  }
  std::string holder(const Place& pl) const {
    return pl.is_register ? "register '" + p_.registers[pl.id].name + "'" : "'" + p_.tensors[pl.id].name + "'";
  }
  std::string valueOf(const Event& e) const { return e.known ? "a value of " + holder(e.place) : "an unknown value"; }

  static std::string where(const SourceLoc& loc) {
    return loc.known() ? " (" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ")" : "";
  }
  std::string event(const Event& e) const {
    if (!e.inst) return "the input load before the run";
    return std::string(e.inst->origin == Origin::Source ? "" : "the inserted ") + "`" +
           printInstruction(p_, *e.inst) + "`" + where(e.inst->loc) + " at step " + std::to_string(e.step);
  }
  std::string symbol(Symbol s, const Event& e, const char* map) const {
    if (s == kNoSymbol)
      return std::string(map) == "physical" ? "poison (no instruction wrote this location)" : "nothing (never written)";
    if (!e.known) return "symbol " + std::to_string(s);
    if (!e.inst) return "the input value of " + place(e.place);
    return "the value " + event(e) + " wrote to " + place(e.place);
  }

  const Program& p_;
  const ReferenceProgram& ref_;
  const PhysicalLayout& layout_;
};

void reportUnplaced(const Program& p, std::vector<Finding>& out) {
  for (const Tensor& t : p.tensors) {
    if (t.space == Space::Dram || t.placement) continue;
    out.push_back(Finding{Oracle::Symbolic, FindingKind::Unplaced, t.loc, kNone, 0,
                          std::string(spaceName(t.space)) + " tensor '" + t.name +
                              "' has no placement; it is checked as if it had storage of its own",
                          {}, {}});
  }
  for (const Register& r : p.registers) {
    if (r.phys) continue;
    out.push_back(Finding{Oracle::Symbolic, FindingKind::Unplaced, r.loc, kNone, 0,
                          "register '" + r.name + "' has no placement; it is checked as if it had storage of its own",
                          {}, {}});
  }
}

}  // namespace

std::vector<Finding> checkSymbolic(const Program& allocated, const SymbolicOptions& opts) {
  const ReferenceProgram ref = referenceProgram(allocated, ReferenceBody::None);  // the maps and declarations only
  const PhysicalLayout layout(allocated);
  std::vector<Finding> findings;
  reportUnplaced(allocated, findings);

  Walk walk(allocated, ref, layout);
  if (std::optional<uint64_t> steps = run(allocated, walk, opts)) walk.checkOutputs(*steps);
  if (!walk.mismatch) return findings;

  // Walk again up to the failing step to name who created the two symbols and last wrote the location.
  const Mismatch& m = *walk.mismatch;
  Walk describing(allocated, ref, layout);
  describing.describe(m.inst ? m.step : kNoStep, {m.expected, m.found}, m.reference ? 0 : m.region, m.unit);
  run(allocated, describing, opts);
  findings.push_back(Reporter(allocated, ref, layout).finding(m, describing.created[0], describing.created[1],
                                                               describing.last_write));
  return findings;
}

}  // namespace allocsim
