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
  std::vector<int64_t> times;
  times.reserve(2 * mp.buffers.size());
  for (const MinimallocBuffer& b : mp.buffers) {
    times.push_back(b.lower);
    times.push_back(b.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const std::vector<uint64_t> units = times.empty() ? std::vector<uint64_t>{} : timeUnits(times, mp.buffers.size());
  // The buffers by rank of their start and of their end (a counting sort: two flat arrays, not a vector per time).
  auto rank = [&](int64_t t) { return size_t(std::lower_bound(times.begin(), times.end(), t) - times.begin()); };
  std::vector<uint32_t> start_at(times.size() + 1, 0), end_at(times.size() + 1, 0);
  for (const MinimallocBuffer& b : mp.buffers) {
    ++start_at[rank(b.lower) + 1];
    ++end_at[rank(b.upper) + 1];
  }
  for (size_t k = 0; k < times.size(); ++k) start_at[k + 1] += start_at[k], end_at[k + 1] += end_at[k];
  std::vector<TensorId> starts(mp.buffers.size()), ends(mp.buffers.size());
  {
    std::vector<uint32_t> s_fill(start_at.begin(), start_at.end() - 1), e_fill(end_at.begin(), end_at.end() - 1);
    for (TensorId i = 0; i < mp.buffers.size(); ++i) {
      starts[s_fill[rank(mp.buffers[i].lower)]++] = i;
      ends[e_fill[rank(mp.buffers[i].upper)]++] = i;
    }
  }
  auto filler = [&] {
    if (fillers) emit(Slot::Filler, TensorId(0));
  };
  for (uint64_t u = 0, k = 0; k < times.size(); ++u) {
    if (units[k] != u) {  // a unit with no event: two empty slots
      filler();
      filler();
      continue;
    }
    if (end_at[k] == end_at[k + 1]) filler();
    for (uint32_t x = end_at[k]; x < end_at[k + 1]; ++x) emit(Slot::End, ends[x]);
    if (start_at[k] == start_at[k + 1]) filler();
    for (uint32_t x = start_at[k]; x < start_at[k + 1]; ++x) emit(Slot::Start, starts[x]);
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
