#include "ir/minimalloc_import.h"

#include <algorithm>
#include <numeric>

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

Program importMinimalloc(const MinimallocProblem& mp, uint64_t capacity, bool fillers) {
  Program p;
  p.arch = *archPreset("gen2");
  // The one-partition machine of the problem (see the header). validateArch bounds the capacity.
  std::string err;
  for (auto [key, value] : {std::pair<const char*, uint64_t>{"sbuf-partitions", 1},
                            {"sbuf-align", 1},
                            {"sbuf-partition-quantum", 1},
                            {"sbuf-bytes", capacity}})
    if (err.empty()) err = applyArchOverride(p.arch, key, std::to_string(value));
  if (err.empty()) err = validateArch(p.arch);
  if (!err.empty()) throw InputError({}, "capacity " + std::to_string(capacity) + ": " + err);
  for (const MinimallocBuffer& b : mp.buffers) {
    Tensor t;
    t.name = minimallocTensorName(b.id);
    t.space = Space::Sbuf;
    t.partitions = 1;
    if (b.size % 4 == 0) t.dtype = DType::U32;
    else if (b.size % 2 == 0) t.dtype = DType::U16;
    else
      throw InputError(b.loc, "buffer '" + b.id + "' has size " + std::to_string(b.size) +
                                  ", which is odd; allocsim's smallest element is 2 bytes");
    const uint64_t elements = uint64_t(b.size) / dtypeSize(t.dtype);
    if (elements > UINT32_MAX)
      throw InputError(b.loc, "buffer '" + b.id + "' has size " + std::to_string(b.size) + ", more elements than 2^32");
    t.elements = uint32_t(elements);
    p.tensors.push_back(t);
  }
  // Program order is the time axis every allocator measures lifetimes on. Each time unit is two slots: the last
  // uses of the buffers that end there, then the definitions of those that start there; an empty slot holds one
  // filler (`li tick, 0`, a scalar op that touches no tensor), so the slots keep the times' spacing (see the header).
  if (fillers) {
    Register tick;
    tick.name = "tick";
    p.registers.push_back(tick);
  }
  std::vector<int64_t> times;
  for (const MinimallocBuffer& b : mp.buffers) {
    times.push_back(b.lower);
    times.push_back(b.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const std::vector<uint64_t> units = times.empty() ? std::vector<uint64_t>{} : timeUnits(times, mp.buffers.size());
  std::vector<std::vector<TensorId>> ends(times.size()), starts(times.size());
  auto rank = [&](int64_t t) { return size_t(std::lower_bound(times.begin(), times.end(), t) - times.begin()); };
  for (TensorId i = 0; i < mp.buffers.size(); ++i) {
    starts[rank(mp.buffers[i].lower)].push_back(i);
    ends[rank(mp.buffers[i].upper)].push_back(i);
  }
  auto filler = [&p, fillers] {
    if (!fillers) return;
    Instruction li;
    li.op = Op::Li;
    li.rd = 0;
    p.body.push_back(li);
  };
  for (uint64_t u = 0, k = 0; k < times.size(); ++u) {
    if (units[k] != u) {  // a unit with no event: two empty slots
      filler();
      filler();
      continue;
    }
    for (const auto& [slot, op] : {std::pair{&ends[k], Op::TS}, std::pair{&starts[k], Op::Memset}}) {
      if (slot->empty()) filler();
      for (TensorId t : *slot) p.body.push_back(onWholeTensor(op, p, t));
    }
    ++k;
  }
  p.renumber();
  return p;
}

MinimallocProblem exportMinimalloc(const Program& allocated, const MinimallocProblem& original) {
  MinimallocProblem out = original;
  for (MinimallocBuffer& b : out.buffers) {
    const std::string name = minimallocTensorName(b.id);
    TensorId id = allocated.findTensor(name);
    if (id == kNone) throw InputError(b.loc, "the allocated program has no tensor '" + name + "'");
    const Tensor& t = allocated.tensors[id];
    if (t.space != Space::Sbuf || t.partitions != 1 || int64_t(t.bytesPerPartition()) != b.size)
      throw InputError(t.loc, "tensor '" + name + "' is not buffer '" + b.id + "' (one SBUF partition of " +
                                  std::to_string(b.size) + " bytes)");
    if (!t.placement) throw InputError(t.loc, "tensor '" + name + "' has no placement");
    if (t.placement->partition != 0)
      throw InputError(t.loc, "tensor '" + name + "' is placed in partition " +
                                  std::to_string(t.placement->partition) + "; a minimalloc solution has one");
    b.offset = int64_t(t.placement->offset);
  }
  return out;
}

}  // namespace allocsim
