#include "ir/minimalloc_import.h"

#include <algorithm>
#include <numeric>

#include "ir/print.h"

namespace allocsim {
namespace {

const char kPrefix[] = "buf_";
// The program's size budget in time units: at least this many, and this many per buffer (see timeUnits).
constexpr uint64_t kMinTimeUnits = 1024;
constexpr uint64_t kTimeUnitsPerBuffer = 32;

// The unit of each distinct time (ascending, non-empty): (t - first) / gcd of the differences when that fits in the
// budget, so the units are the times exactly, up to scale; else its rank plus its share of the budget, which keeps
// the order and roughly the spacing. Strictly increasing either way.
std::vector<uint64_t> timeUnits(const std::vector<int64_t>& times, size_t buffers) {
  const uint64_t budget = std::max<uint64_t>(kMinTimeUnits, kTimeUnitsPerBuffer * buffers);
  uint64_t g = 0;
  for (int64_t t : times) g = std::gcd(g, uint64_t(t - times.front()));
  const uint64_t span = uint64_t(times.back() - times.front());
  const bool exact = g == 0 || span / g <= budget;
  std::vector<uint64_t> units;
  for (size_t k = 0; k < times.size(); ++k) {
    const uint64_t d = uint64_t(times[k] - times.front());
    units.push_back(exact ? (g ? d / g : 0) : k + uint64_t(double(d) / double(span) * double(budget)));
  }
  return units;
}

Instruction onWholeTensor(Op op, const Program& p, TensorId t) {
  Instruction i;
  i.op = op;
  i.dst = wholeTensor(p, t);
  if (op == Op::TS) {
    i.a = i.dst;
    i.scalar.kind = ScalarOperand::Kind::Imm;
    i.scalar.imm.i = 1;
    i.alu = AluOp::Add;
  }
  return i;
}

}  // namespace

std::string minimallocTensorName(const std::string& id) { return kPrefix + id; }

std::string minimallocBufferId(const std::string& tensor_name) {
  const size_t n = sizeof(kPrefix) - 1;
  if (tensor_name.size() <= n || tensor_name.compare(0, n, kPrefix) != 0) return "";
  return tensor_name.substr(n);
}

// 2 when some size is odd (see the header), else 1.
uint64_t minimallocScale(const MinimallocProblem& mp) {
  for (const MinimallocBuffer& b : mp.buffers)
    if (b.size % 2 != 0) return 2;
  return 1;
}

namespace {

// The program's declarations (arch, one tensor per buffer, the filler register) and no body.
Program importedDeclarations(const MinimallocProblem& mp, uint64_t capacity, bool fillers) {
  Program p;
  p.arch = *archPreset("gen2");
  const uint64_t scale = minimallocScale(mp);
  // The one-partition machine of the problem (see the header). validateArch bounds the capacity.
  std::string err;
  for (auto [key, value] : {std::pair<const char*, uint64_t>{"sbuf-partitions", 1},
                            {"sbuf-align", scale},
                            {"sbuf-partition-quantum", 1},
                            {"sbuf-bytes", capacity * scale}})
    if (err.empty()) err = applyArchOverride(p.arch, key, std::to_string(value));
  if (err.empty()) err = validateArch(p.arch);
  if (!err.empty()) throw InputError({}, "capacity " + std::to_string(capacity) + ": " + err);
  p.tensors.reserve(mp.buffers.size());
  for (const MinimallocBuffer& b : mp.buffers) {
    Tensor t;
    t.name = minimallocTensorName(b.id);
    t.space = Space::Sbuf;
    t.partitions = 1;
    // A buffer larger than the memory has no place: the program would break the SBUF size rule, so the row says so.
    if (uint64_t(b.size) > capacity)
      throw InputError(b.loc, "buffer '" + b.id + "' has size " + std::to_string(b.size) + ", more than the capacity " +
                                  std::to_string(capacity) + ": no placement exists");
    const uint64_t bytes = uint64_t(b.size) * scale;
    t.dtype = bytes % 4 == 0 ? DType::U32 : DType::U16;
    const uint64_t elements = bytes / dtypeSize(t.dtype);
    if (elements > UINT32_MAX)
      throw InputError(b.loc, "buffer '" + b.id + "' has size " + std::to_string(b.size) + ", more elements than 2^32");
    t.elements = uint32_t(elements);
    p.tensors.push_back(t);
  }
  if (fillers) {
    Register tick;
    tick.name = "tick";
    p.registers.push_back(tick);
  }
  return p;
}

// The body in program order, as events: emit(Slot::Filler, 0), emit(Slot::End, buffer) (its last use) and
// emit(Slot::Start, buffer) (its definition). Program order is the time axis every allocator measures
// lifetimes on. Each time unit is two slots: the last uses of the buffers that end there, then the definitions of
// those that start there; an empty slot holds one filler (`li tick, 0`, a scalar op that touches no tensor), so the
// slots keep the times' spacing (see the header).
enum class Slot : uint8_t { Filler, End, Start };

template <typename Emit>
void emitBody(const MinimallocProblem& mp, bool fillers, Emit&& emit) {
  // Every end and start as (time, key), sorted once: at each time the ends, then the starts, each in the CSV's
  // order (key: 1 for a start, 0 for an end, in bit 32; the buffer below it). One sort of flat pairs: looking each
  // buffer's times up among the distinct times instead cost a binary search with a cache miss per step.
  struct Event {
    int64_t time;
    uint64_t key;
    bool operator<(const Event& o) const { return time != o.time ? time < o.time : key < o.key; }
  };
  constexpr uint64_t kStart = uint64_t(1) << 32;
  std::vector<Event> events;
  events.reserve(2 * mp.buffers.size());
  for (TensorId i = 0; i < mp.buffers.size(); ++i) {
    events.push_back({mp.buffers[i].lower, kStart | i});
    events.push_back({mp.buffers[i].upper, i});
  }
  std::sort(events.begin(), events.end());
  std::vector<int64_t> times;
  for (const Event& e : events)
    if (times.empty() || times.back() != e.time) times.push_back(e.time);
  const std::vector<uint64_t> units = times.empty() ? std::vector<uint64_t>{} : timeUnits(times, mp.buffers.size());
  auto filler = [&] {
    if (fillers) emit(Slot::Filler, TensorId(0));
  };
  // Emits the run of events at `time` of one kind (kStart or 0) from events[e] on, or a filler when there is none.
  size_t e = 0;
  auto run = [&](int64_t time, uint64_t kind, Slot slot) {
    const size_t first = e;
    for (; e < events.size() && events[e].time == time && (events[e].key & kStart) == kind; ++e)
      emit(slot, TensorId(events[e].key));
    if (e == first) filler();
  };
  for (uint64_t u = 0, k = 0; k < times.size(); ++u) {
    if (units[k] != u) {  // a unit with no event: two empty slots
      filler();
      filler();
      continue;
    }
    run(times[k], 0, Slot::End);
    run(times[k], kStart, Slot::Start);
    ++k;
  }
}

}  // namespace

Program importMinimalloc(const MinimallocProblem& mp, uint64_t capacity, bool fillers) {
  Program p = importedDeclarations(mp, capacity, fillers);
  Instruction li;
  li.op = Op::Li;
  li.rd = 0;
  emitBody(mp, fillers, [&p, &li](Slot slot, TensorId t) {
    p.body.push_back(slot == Slot::Filler ? li : onWholeTensor(slot == Slot::End ? Op::TS : Op::Memset, p, t));
  });
  p.renumber();
  return p;
}

std::string importMinimallocText(const MinimallocProblem& mp, uint64_t capacity, const ProgressFn* progress) {
  // The declarations as printProgram prints them; the body's three instruction forms written directly (the
  // tests compare this with printProgram(importMinimalloc(...))).
  std::string out = printProgram(importedDeclarations(mp, capacity, true)) + "\n";
  uint64_t written = 0;
  emitBody(mp, true, [&](Slot slot, TensorId t) {
    if (++written % kProgressSteps == 0) reportProgress(progress, "writing the program", written, "instructions");
    if (slot == Slot::Filler) {
      out += "li tick, 0\n";
      return;
    }
    const std::string& id = mp.buffers[t].id;
    if (slot == Slot::End) out.append("ts ").append(kPrefix).append(id).append(", ").append(kPrefix).append(id).append(", 1, add\n");
    else out.append("memset ").append(kPrefix).append(id).append(", 0\n");
  });
  return out;
}

MinimallocProblem exportMinimalloc(const Program& allocated, const MinimallocProblem& original) {
  MinimallocProblem out = original;
  const uint64_t scale = minimallocScale(original);
  for (MinimallocBuffer& b : out.buffers) {
    const std::string name = minimallocTensorName(b.id);
    TensorId id = allocated.findTensor(name);
    if (id == kNone) throw InputError(b.loc, "the allocated program has no tensor '" + name + "'");
    const Tensor& t = allocated.tensors[id];
    if (t.space != Space::Sbuf || t.partitions != 1 || t.bytesPerPartition() != uint64_t(b.size) * scale)
      throw InputError(t.loc, "tensor '" + name + "' is not buffer '" + b.id + "' (one SBUF partition of " +
                                  std::to_string(uint64_t(b.size) * scale) + " bytes)");
    if (!t.placement) throw InputError(t.loc, "tensor '" + name + "' has no placement");
    if (t.placement->partition != 0)
      throw InputError(t.loc, "tensor '" + name + "' is placed in partition " +
                                  std::to_string(t.placement->partition) + "; a minimalloc solution has one");
    if (t.placement->offset % scale != 0)
      throw InputError(t.loc, "tensor '" + name + "' is placed at byte " + std::to_string(t.placement->offset) +
                                  ", not a multiple of " + std::to_string(scale) +
                                  " (the problem's sizes are doubled in the program: some are odd)");
    b.offset = int64_t(t.placement->offset / scale);
  }
  return out;
}

}  // namespace allocsim
