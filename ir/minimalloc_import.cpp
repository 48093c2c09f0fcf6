#include "ir/minimalloc_import.h"

#include <algorithm>
#include <tuple>

namespace allocsim {
namespace {

const char kPrefix[] = "buf_";
constexpr uint32_t kTimeFill = 16;

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

Program importMinimalloc(const MinimallocProblem& mp, uint64_t capacity) {
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
  // (time, 0 = last use / 1 = definition, buffer): ends before starts at the same time.
  std::vector<std::tuple<int64_t, int, TensorId>> events;
  for (TensorId i = 0; i < mp.buffers.size(); ++i) {
    events.push_back({mp.buffers[i].lower, 1, i});
    events.push_back({mp.buffers[i].upper, 0, i});
  }
  std::sort(events.begin(), events.end());
  // Program order is the time axis every allocator measures lifetimes on: fillers (`li tick, 0`, a scalar op that
  // touches no tensor) keep the positions roughly proportional to the problem's times, kTimeFill per event in all.
  Register tick;
  tick.name = "tick";
  p.registers.push_back(tick);
  const double span = double(std::get<0>(events.back())) + 1;
  const double per_time = double(kTimeFill) * double(events.size()) / span;
  for (size_t k = 0; k < events.size(); ++k) {
    auto [time, kind, t] = events[k];
    const size_t target = k + size_t(double(time) * per_time);
    while (p.body.size() < target) {
      Instruction li;
      li.op = Op::Li;
      li.rd = 0;
      p.body.push_back(li);
    }
    p.body.push_back(onWholeTensor(kind == 1 ? Op::Memset : Op::TS, p, t));
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
