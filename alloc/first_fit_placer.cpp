#include "alloc/first_fit_placer.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/first_fit.h"
#include "alloc/psum/psum_bank_model.h"

namespace allocsim {

std::string describeTensor(const Program& p, TensorId t) {
  const Tensor& x = p.tensors[t];
  return std::string(spaceName(x.space)) + " tensor '" + x.name + "' [" + std::to_string(x.partitions) + ", " +
         std::to_string(x.elements) + "] " + dtypeName(x.dtype);
}

std::string describeRegister(const Program& p, RegId r) {
  const Register& x = p.registers[r];
  return "register '" + x.name + "' (" + std::to_string(x.width) + "-bit, " + std::to_string(x.lanes()) +
         (x.lanes() == 1 ? " lane)" : " lanes)");
}

namespace {

template <typename KeyFn>
std::vector<uint32_t> orderBy(size_t n, const KeyFn& key) {
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::vector<uint64_t> keys(n);
  for (uint32_t i = 0; i < n; ++i) keys[i] = key(i);
  // Ties by index: stable_sort's order (order starts as 0, 1, ...) without its buffer.
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return keys[a] != keys[b] ? keys[a] < keys[b] : a < b; });
  return order;
}

bool keepsPlacement(const Tensor& t) { return t.pinned && t.placement.has_value(); }

void placeTensors(Program& out, const FirstFitPolicy& policy) {
  const Arch& arch = out.arch;
  std::vector<TensorId> placed;  // SBUF and PSUM tensors with a placement, in placement order
  for (TensorId t = 0; t < out.tensors.size(); ++t)
    if (out.tensors[t].space != Space::Dram && keepsPlacement(out.tensors[t])) placed.push_back(t);
  for (TensorId t : orderBy(out.tensors.size(), policy.tensor_key)) {
    Tensor& x = out.tensors[t];
    if (x.space == Space::Dram || keepsPlacement(x)) continue;
    std::vector<TensorId> obstacles;
    for (TensorId u : placed)
      if (out.tensors[u].space == x.space && policy.tensors_conflict(t, u)) obstacles.push_back(u);
    if (x.space == Space::Sbuf) {
      std::vector<SbufRect> taken;
      for (TensorId u : obstacles) taken.push_back(sbufRect(out.tensors[u], *out.tensors[u].placement));
      std::optional<Placement> at = firstFitSbuf(arch, x.partitions, x.bytesPerPartition(), taken);
      if (!at)
        throw AllocError(x.loc, describeTensor(out, t) + " does not fit in SBUF" + policy.tensor_shortage(t));
      x.placement = *at;
    } else {
      requirePsumFits(arch, x);
      uint64_t banks = psumBanksOf(arch, x);
      std::vector<Span> taken;
      for (TensorId u : obstacles)
        taken.push_back({out.tensors[u].placement->bank, psumBanksOf(arch, out.tensors[u])});
      std::optional<uint64_t> bank = firstFitSpan(arch.psum_banks, banks, taken);
      if (!bank)
        throw AllocError(x.loc, describeTensor(out, t) + " (" + std::to_string(banks) +
                                    (banks == 1 ? " bank)" : " banks)") + " does not fit in PSUM" +
                                    policy.tensor_shortage(t));
      Placement pl;
      pl.bank = uint32_t(*bank);
      x.placement = pl;
    }
    placed.push_back(t);
  }
}

void placeRegisters(Program& out, const FirstFitPolicy& policy) {
  std::vector<RegId> placed;
  for (RegId r : orderBy(out.registers.size(), policy.register_key)) {
    Register& x = out.registers[r];
    std::vector<Span> taken;
    for (RegId u : placed)
      if (policy.registers_conflict(r, u)) taken.push_back({*out.registers[u].phys, out.registers[u].lanes()});
    std::optional<uint64_t> lane = firstFitSpan(out.arch.sp_registers, x.lanes(), taken);
    if (!lane)
      throw AllocError(x.loc, describeRegister(out, r) + " does not fit in the SP registers" +
                                  policy.register_shortage(r));
    x.phys = uint32_t(*lane);
    placed.push_back(r);
  }
}

}  // namespace

Program placeFirstFit(const Program& p, const FirstFitPolicy& policy) {
  Program out = p;
  placeTensors(out, policy);
  placeRegisters(out, policy);
  return out;
}

}  // namespace allocsim
