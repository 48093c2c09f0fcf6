// A small, test-only estimate of a kernel's memory pressure, to hold the corpus kernels to their sizing
// claims: gen2 kernels fit the machine without spilling; tiny kernels overfill it with simultaneously live
// data while every tensor, and every instruction's operands, still fit (so allocation is possible, but only
// with spills).
//
// Liveness is by whole tensor over the program's preorder positions (loops flattened, as the allocation
// pipeline's linearize step does): a tensor lives from its first to its last mention, extended over a whole
// loop when it is live around the loop's back edge -- mentioned before the loop and inside it, or mentioned
// inside it first by something other than a write of the whole tensor. A matmul with start@first writes its
// whole PSUM tensor once per entry of its loop, not once per iteration of it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "ir/program.h"

namespace allocsim::pressure {

struct Pressure {
  uint64_t peak_sbuf_bytes = 0;        // per partition, summed over live SBUF tensors
  uint64_t peak_psum_banks = 0;        // summed over live PSUM tensors
  uint64_t max_inst_sbuf_bytes = 0;    // the most SBUF one instruction's operands need at once
  uint64_t max_inst_psum_banks = 0;
  uint64_t largest_sbuf_tensor = 0;    // bytes per partition
  uint64_t largest_psum_tensor = 0;    // banks
};

namespace detail {

struct Mention {
  TensorId tensor;
  bool kills;  // writes the whole tensor on every execution
  const Instruction* inst;
};

struct Flat {
  std::vector<std::vector<Mention>> at;  // by position
  struct Loop {
    uint32_t begin, end;                 // positions of the loop's first and last body instruction
  };
  std::vector<Loop> loops;
  std::vector<int32_t> innermost;  // by position: the index of the innermost enclosing loop, or -1
};

inline void flatten(const Program& p, const std::vector<Instruction>& body, Flat& f, int32_t loop) {
  for (const Instruction& i : body) {
    if (i.op == Op::Loop) {
      uint32_t idx = uint32_t(f.loops.size());
      f.loops.push_back({uint32_t(f.at.size()), 0});
      flatten(p, i.body, f, int32_t(idx));
      f.loops[idx].end = uint32_t(f.at.size()) - 1;
      continue;
    }
    if (i.op == Op::If) {  // its body as if it ran: whole-tensor liveness over the flattened program
      flatten(p, i.body, f, loop);
      continue;
    }
    std::vector<Mention> ms;
    auto read = [&](const AccessPattern& ap) {
      if (ap.tensor != kNone) ms.push_back({ap.tensor, false, &i});
    };
    bool has_dst = i.op != Op::Li && i.op != Op::Addi && i.op != Op::Add && i.op != Op::Mov && i.op != Op::RegLoad;
    if (i.op == Op::RegLoad) read(i.a);
    if (has_dst && i.dst.tensor != kNone) {
      bool whole = isFullAccess(p, i.dst) && i.op != Op::RegStore;
      bool kills = whole && (i.op != Op::Matmul || i.start == When::Always);
      ms.push_back({i.dst.tensor, kills, &i});
      if (i.op == Op::Matmul && i.start != When::Always) ms.push_back({i.dst.tensor, false, &i});
    }
    if (i.op != Op::RegLoad && i.op != Op::RegStore && has_dst) {
      read(i.a);
      read(i.b);
      if (i.op == Op::TS && i.scalar.kind == ScalarOperand::Kind::Tensor) read(i.scalar.ap);
    }
    f.at.push_back(ms);
    f.innermost.push_back(loop);
  }
}

}  // namespace detail

inline uint64_t psumBanks(const Program& p, const Tensor& t) {
  uint64_t bank = p.arch.psum_bank_bytes;
  return (t.bytesPerPartition() + bank - 1) / bank;
}

inline Pressure measure(const Program& p) {
  detail::Flat f;
  detail::flatten(p, p.body, f, -1);
  size_t n = f.at.size();
  const uint32_t kUnset = UINT32_MAX;
  std::vector<uint32_t> first(p.tensors.size(), kUnset), last(p.tensors.size(), 0);
  for (uint32_t pos = 0; pos < n; ++pos)
    for (const auto& m : f.at[pos]) {
      first[m.tensor] = std::min(first[m.tensor], pos);
      last[m.tensor] = std::max(last[m.tensor], pos);
    }
  // Back-edge liveness, outermost loops first; an extension can only grow an interval, so one pass per loop
  // in preorder suffices for the corpus's nests, and a second pass makes sure.
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t li = 0; li < f.loops.size(); ++li) {
      auto [b, e] = f.loops[li];
      if (e < b || e >= n) continue;  // an empty body
      std::set<TensorId> seen;
      for (uint32_t pos = b; pos <= e; ++pos)
        for (const auto& m : f.at[pos]) {
          if (!seen.insert(m.tensor).second) continue;
          // A start@first matmul kills for every loop enclosing its own loop, not for its own loop.
          bool kills = m.kills || (m.inst->op == Op::Matmul && m.inst->start == When::First &&
                                   isFullAccess(p, m.inst->dst) && f.innermost[pos] != int32_t(li));
          if (first[m.tensor] < b || !kills) {
            first[m.tensor] = std::min(first[m.tensor], b);
            last[m.tensor] = std::max(last[m.tensor], e);
          }
        }
    }
  Pressure r;
  for (uint32_t pos = 0; pos < n; ++pos) {
    uint64_t sbuf = 0, psum = 0;
    for (TensorId t = 0; t < p.tensors.size(); ++t) {
      if (first[t] == kUnset || pos < first[t] || pos > last[t]) continue;
      if (p.tensors[t].space == Space::Sbuf) sbuf += p.tensors[t].bytesPerPartition();
      if (p.tensors[t].space == Space::Psum) psum += psumBanks(p, p.tensors[t]);
    }
    r.peak_sbuf_bytes = std::max(r.peak_sbuf_bytes, sbuf);
    r.peak_psum_banks = std::max(r.peak_psum_banks, psum);
    std::set<TensorId> operands;
    for (const auto& m : f.at[pos]) operands.insert(m.tensor);
    uint64_t isbuf = 0, ipsum = 0;
    for (TensorId t : operands) {
      if (p.tensors[t].space == Space::Sbuf) isbuf += p.tensors[t].bytesPerPartition();
      if (p.tensors[t].space == Space::Psum) ipsum += psumBanks(p, p.tensors[t]);
    }
    r.max_inst_sbuf_bytes = std::max(r.max_inst_sbuf_bytes, isbuf);
    r.max_inst_psum_banks = std::max(r.max_inst_psum_banks, ipsum);
  }
  for (const Tensor& t : p.tensors) {
    if (t.space == Space::Sbuf) r.largest_sbuf_tensor = std::max(r.largest_sbuf_tensor, t.bytesPerPartition());
    if (t.space == Space::Psum) r.largest_psum_tensor = std::max(r.largest_psum_tensor, psumBanks(p, t));
  }
  return r;
}

}  // namespace allocsim::pressure
