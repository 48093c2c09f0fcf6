#include "verify/mutate.h"

#include <algorithm>
#include <array>
#include <vector>

#include "ir/print.h"

namespace allocsim {
namespace {

// Bounded tries: a program whose every candidate lands where it already is gives up instead of looping.
constexpr int kAttempts = 32;

uint64_t pick(const Below& below, uint64_t n) {
  if (n == 0) return 0;
  return below(n) % n;  // a misbehaving source still yields a valid index
}

uint64_t alignDown(uint64_t v, uint64_t a) { return a == 0 ? v : v - v % a; }
uint64_t alignUp(uint64_t v, uint64_t a) { return a == 0 ? v : alignDown(v + a - 1, a); }

bool intersects(uint64_t lo1, uint64_t n1, uint64_t lo2, uint64_t n2) { return lo1 < lo2 + n2 && lo2 < lo1 + n1; }

// True when tensor `t` (placed) shares a byte (SBUF, DRAM) or bank (PSUM) with another placed tensor.
bool tensorMeetsAnother(const Program& p, TensorId t) {
  const Tensor& a = p.tensors[t];
  for (TensorId u = 0; u < p.tensors.size(); ++u) {
    const Tensor& b = p.tensors[u];
    if (u == t || b.space != a.space || !b.placement || !a.placement) continue;
    const Placement &pa = *a.placement, &pb = *b.placement;
    bool meets = false;
    switch (a.space) {
      case Space::Sbuf:
        meets = intersects(pa.partition, a.partitions, pb.partition, b.partitions) &&
                intersects(pa.offset, a.bytesPerPartition(), pb.offset, b.bytesPerPartition());
        break;
      case Space::Psum: meets = intersects(pa.bank, psumBankCount(p.arch, a), pb.bank, psumBankCount(p.arch, b)); break;
      case Space::Dram: meets = intersects(pa.offset, a.totalBytes(), pb.offset, b.totalBytes()); break;
    }
    if (meets) return true;
  }
  return false;
}

bool registerMeetsAnother(const Program& p, RegId r) {
  const Register& a = p.registers[r];
  for (RegId s = 0; s < p.registers.size(); ++s) {
    const Register& b = p.registers[s];
    if (s != r && a.phys && b.phys && intersects(*a.phys, a.lanes(), *b.phys, b.lanes())) return true;
  }
  return false;
}

// The movable tensors of a space: placed and not pinned.
std::vector<TensorId> movable(const Program& p, Space space) {
  std::vector<TensorId> out;
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& x = p.tensors[t];
    if (x.space == space && x.placement && !x.pinned) out.push_back(t);
  }
  return out;
}

// A new start on one axis [0, max] in multiples of `quantum`: a small step, the start of another item, just
// past or just before another item (near misses), or anywhere. `others` are (start, length) of the other items.
uint64_t newStart(const Below& below, uint64_t cur, uint64_t len, uint64_t max, uint64_t quantum,
                  const std::vector<std::pair<uint64_t, uint64_t>>& others) {
  quantum = std::max<uint64_t>(quantum, 1);
  uint64_t v = cur;
  uint64_t strategy = others.empty() ? (pick(below, 2) == 0 ? 0 : 3) : pick(below, 4);
  if (strategy == 0) {
    uint64_t k = 1 + pick(below, 8);
    v = pick(below, 2) == 0 ? cur + k * quantum : (cur >= k * quantum ? cur - k * quantum : 0);
  } else if (strategy == 1 || strategy == 2) {
    const auto& [start, olen] = others[pick(below, others.size())];
    if (strategy == 1) v = start;
    else if (pick(below, 2) == 0) v = alignUp(start + olen, quantum);
    else v = start >= len ? alignDown(start - len, quantum) : 0;
  } else {
    v = pick(below, max / quantum + 1) * quantum;
  }
  return std::min(alignDown(v, quantum), alignDown(max, quantum));
}

std::optional<Mutation> shiftSbuf(Program& p, const Below& below) {
  std::vector<TensorId> ts = movable(p, Space::Sbuf);
  if (ts.empty()) return std::nullopt;
  const Arch& arch = p.arch;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    TensorId t = ts[pick(below, ts.size())];
    Tensor& x = p.tensors[t];
    if (x.partitions > arch.sbuf_partitions || x.bytesPerPartition() > arch.sbuf_bytes) continue;
    std::vector<std::pair<uint64_t, uint64_t>> bytes, parts;
    for (TensorId u : ts)
      if (u != t) {
        bytes.emplace_back(p.tensors[u].placement->offset, p.tensors[u].bytesPerPartition());
        parts.emplace_back(p.tensors[u].placement->partition, p.tensors[u].partitions);
      }
    Placement old = *x.placement, now = old;
    now.offset = newStart(below, old.offset, x.bytesPerPartition(), arch.sbuf_bytes - x.bytesPerPartition(),
                          arch.sbuf_align, bytes);
    if (pick(below, 4) == 0)
      now.partition = uint32_t(newStart(below, old.partition, x.partitions, arch.sbuf_partitions - x.partitions,
                                        arch.sbuf_partition_quantum, parts));
    if (now == old) continue;
    std::string from = placementText(x);
    x.placement = now;
    return Mutation{Mutation::ShiftSbuf, "ShiftSbuf: '" + x.name + "' " + from + " -> " + placementText(x),
                    !tensorMeetsAnother(p, t)};
  }
  return std::nullopt;
}

std::optional<Mutation> shiftPsumBank(Program& p, const Below& below) {
  std::vector<TensorId> ts = movable(p, Space::Psum);
  for (int attempt = 0; attempt < kAttempts && !ts.empty(); ++attempt) {
    TensorId t = ts[pick(below, ts.size())];
    Tensor& x = p.tensors[t];
    uint64_t banks = psumBankCount(p.arch, x);
    if (banks >= p.arch.psum_banks) continue;  // one position only
    uint64_t positions = p.arch.psum_banks - banks + 1;
    uint32_t bank = uint32_t(pick(below, positions - 1));
    if (bank >= x.placement->bank) ++bank;  // any position but the current one
    std::string from = placementText(x);
    x.placement->bank = bank;
    return Mutation{Mutation::ShiftPsumBank, "ShiftPsumBank: '" + x.name + "' " + from + " -> " + placementText(x),
                    !tensorMeetsAnother(p, t)};
  }
  return std::nullopt;
}

std::optional<Mutation> shiftDram(Program& p, const Below& below) {
  std::vector<TensorId> ts = movable(p, Space::Dram);
  if (ts.empty()) return std::nullopt;
  uint64_t limit = p.arch.dram_limit;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    TensorId t = ts[pick(below, ts.size())];
    Tensor& x = p.tensors[t];
    if (x.totalBytes() > limit) continue;
    std::vector<std::pair<uint64_t, uint64_t>> others;
    uint64_t end = 0;  // "anywhere" stays near the slots, where the collisions are
    for (TensorId u : ts) {
      const Tensor& y = p.tensors[u];
      end = std::max(end, y.placement->offset + y.totalBytes());
      if (u != t) others.emplace_back(y.placement->offset, y.totalBytes());
    }
    uint64_t max = std::min(limit - x.totalBytes(), 2 * end);
    uint64_t old = x.placement->offset;
    uint64_t now = newStart(below, old, x.totalBytes(), max, dtypeSize(x.dtype), others);
    if (now == old) continue;
    std::string from = placementText(x);
    x.placement->offset = now;
    return Mutation{Mutation::ShiftDram, "ShiftDram: '" + x.name + "' " + from + " -> " + placementText(x),
                    !tensorMeetsAnother(p, t)};
  }
  return std::nullopt;
}

std::vector<RegId> placedRegisters(const Program& p) {
  std::vector<RegId> out;
  for (RegId r = 0; r < p.registers.size(); ++r)
    if (p.registers[r].phys && *p.registers[r].phys + p.registers[r].lanes() <= p.arch.sp_registers)
      out.push_back(r);
  return out;
}

std::optional<Mutation> moveRegister(Program& p, const Below& below) {
  std::vector<RegId> rs = placedRegisters(p);
  for (int attempt = 0; attempt < kAttempts && !rs.empty(); ++attempt) {
    Register& r = p.registers[rs[pick(below, rs.size())]];
    if (r.lanes() >= p.arch.sp_registers) continue;
    uint32_t positions = p.arch.sp_registers - r.lanes() + 1;
    uint32_t old = *r.phys, now;
    if (rs.size() > 1 && pick(below, 2) == 0) {  // onto another register's first lane
      now = std::min(*p.registers[rs[pick(below, rs.size())]].phys, positions - 1);
    } else {
      now = uint32_t(pick(below, positions - 1));
      if (now >= old) ++now;
    }
    if (now == old) continue;
    r.phys = now;
    RegId id = RegId(&r - p.registers.data());
    return Mutation{Mutation::MoveRegister,
                    "MoveRegister: '" + r.name + "' @r" + std::to_string(old) + " -> @r" + std::to_string(now),
                    !registerMeetsAnother(p, id)};
  }
  return std::nullopt;
}

std::optional<Mutation> swapRegisters(Program& p, const Below& below) {
  std::vector<RegId> rs = placedRegisters(p);
  for (int attempt = 0; attempt < kAttempts && rs.size() >= 2; ++attempt) {
    RegId a = rs[pick(below, rs.size())], b = rs[pick(below, rs.size())];
    Register &ra = p.registers[a], &rb = p.registers[b];
    if (a == b || *ra.phys == *rb.phys) continue;
    if (*rb.phys + ra.lanes() > p.arch.sp_registers || *ra.phys + rb.lanes() > p.arch.sp_registers) continue;
    std::swap(ra.phys, rb.phys);
    return Mutation{Mutation::SwapRegisters,
                    "SwapRegisters: '" + ra.name + "' -> @r" + std::to_string(*ra.phys) + ", '" + rb.name +
                        "' -> @r" + std::to_string(*rb.phys),
                    !registerMeetsAnother(p, a) && !registerMeetsAnother(p, b)};
  }
  return std::nullopt;
}

void collectInserted(std::vector<Instruction>& body, std::vector<std::pair<std::vector<Instruction>*, size_t>>& out) {
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i].origin != Origin::Source) out.emplace_back(&body, i);
    else if (hasBody(body[i].op)) collectInserted(body[i].body, out);
  }
}

std::optional<Mutation> dropInserted(Program& p, const Below& below) {
  std::vector<std::pair<std::vector<Instruction>*, size_t>> sites;
  collectInserted(p.body, sites);
  if (sites.empty()) return std::nullopt;
  auto [body, index] = sites[pick(below, sites.size())];
  const Instruction& inst = (*body)[index];
  std::string what = "DropInserted: '" + printInstruction(p, inst) + "'";
  if (inst.loc.known()) what += " (line " + std::to_string(inst.loc.line) + ")";
  body->erase(body->begin() + std::ptrdiff_t(index));
  p.renumber();
  return Mutation{Mutation::DropInserted, what, false};
}

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Below seededBelow(uint64_t seed) {
  return [state = seed](uint64_t n) mutable { return n == 0 ? 0 : splitmix64(state) % n; };
}

}  // namespace

const char* mutationKindName(Mutation::Kind k) {
  switch (k) {
    case Mutation::ShiftSbuf: return "ShiftSbuf";
    case Mutation::ShiftPsumBank: return "ShiftPsumBank";
    case Mutation::SwapRegisters: return "SwapRegisters";
    case Mutation::MoveRegister: return "MoveRegister";
    case Mutation::DropInserted: return "DropInserted";
    case Mutation::ShiftDram: return "ShiftDram";
  }
  return "?";
}

std::optional<Mutation> mutate(Program& allocated, Mutation::Kind kind, const Below& below) {
  switch (kind) {
    case Mutation::ShiftSbuf: return shiftSbuf(allocated, below);
    case Mutation::ShiftPsumBank: return shiftPsumBank(allocated, below);
    case Mutation::SwapRegisters: return swapRegisters(allocated, below);
    case Mutation::MoveRegister: return moveRegister(allocated, below);
    case Mutation::DropInserted: return dropInserted(allocated, below);
    case Mutation::ShiftDram: return shiftDram(allocated, below);
  }
  return std::nullopt;
}

std::optional<Mutation> mutate(Program& allocated, const Below& below) {
  std::array<Mutation::Kind, kMutationKinds> kinds = {Mutation::ShiftSbuf,    Mutation::ShiftPsumBank,
                                                      Mutation::SwapRegisters, Mutation::MoveRegister,
                                                      Mutation::DropInserted,  Mutation::ShiftDram};
  for (size_t i = kinds.size(); i > 1; --i) std::swap(kinds[i - 1], kinds[pick(below, i)]);  // Fisher-Yates
  for (Mutation::Kind k : kinds)
    if (auto m = mutate(allocated, k, below)) return m;
  return std::nullopt;
}

std::optional<Mutation> mutate(Program& allocated, uint64_t seed) { return mutate(allocated, seededBelow(seed)); }

std::optional<Mutation> mutate(Program& allocated, Mutation::Kind kind, uint64_t seed) {
  return mutate(allocated, kind, seededBelow(seed));
}

}  // namespace allocsim
