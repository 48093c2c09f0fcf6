#include "verify/physical_location.h"

#include <numeric>

namespace allocsim {

PhysicalLayout::PhysicalLayout(const Program& p) : p_(p) {
  uint64_t sbuf = 0, psum = 0, dram = 0;  // gcd accumulators; gcd(0, x) = x
  for (const Tensor& t : p.tensors) {
    if (!t.placement) continue;
    uint64_t size = dtypeSize(t.dtype);
    switch (t.space) {
      case Space::Sbuf: sbuf = std::gcd(std::gcd(sbuf, t.placement->offset), size); break;
      case Space::Psum:
        psum = std::gcd(std::gcd(psum, uint64_t(t.placement->bank) * p.arch.psum_bank_bytes), size);
        break;
      case Space::Dram: dram = std::gcd(std::gcd(dram, t.placement->offset), size); break;
    }
  }
  sbuf_unit_ = uint32_t(sbuf ? sbuf : 4);
  psum_unit_ = uint32_t(psum ? psum : 4);
  dram_unit_ = uint32_t(dram ? dram : 4);
}

bool PhysicalLayout::tensorPlaced(TensorId t) const {
  return p_.tensors[t].space == Space::Dram || p_.tensors[t].placement.has_value();
}

bool PhysicalLayout::registerPlaced(RegId r) const { return p_.registers[r].phys.has_value(); }

RowLocation PhysicalLayout::row(TensorId t, uint64_t partition) const {
  const Tensor& tensor = p_.tensors[t];
  const uint64_t size = dtypeSize(tensor.dtype);
  if (!tensor.placement) {
    return {regionId(RegionKind::PrivateTensor, t), partition * tensor.elements, 1};
  }
  const Placement& at = *tensor.placement;
  switch (tensor.space) {
    case Space::Sbuf:
      return {regionId(RegionKind::Sbuf, at.partition + partition), at.offset / sbuf_unit_,
              uint32_t(size / sbuf_unit_)};
    case Space::Psum:
      return {regionId(RegionKind::Psum, partition), uint64_t(at.bank) * p_.arch.psum_bank_bytes / psum_unit_,
              uint32_t(size / psum_unit_)};
    case Space::Dram:
      return {regionId(RegionKind::Dram, 0), (at.offset + partition * tensor.elements * size) / dram_unit_,
              uint32_t(size / dram_unit_)};
  }
  return {};
}

RowLocation PhysicalLayout::lanes(RegId r) const {
  const Register& reg = p_.registers[r];
  if (!reg.phys) return {regionId(RegionKind::PrivateRegister, r), 0, 1};
  return {regionId(RegionKind::Registers, 0), *reg.phys, 1};
}

uint32_t PhysicalLayout::unitBytes(RegionKind k) const {
  switch (k) {
    case RegionKind::Sbuf: return sbuf_unit_;
    case RegionKind::Psum: return psum_unit_;
    case RegionKind::Dram: return dram_unit_;
    default: return 1;
  }
}

std::string PhysicalLayout::describe(uint64_t region, uint64_t unit, uint32_t units) const {
  const auto kind = RegionKind(region >> 56);
  const uint64_t index = region & ((uint64_t(1) << 56) - 1);
  const uint64_t g = unitBytes(kind);
  const uint64_t first = unit * g, last = (unit + units) * g - 1;
  const std::string bytes = first == last ? "byte " + std::to_string(first)
                                          : "bytes " + std::to_string(first) + ".." + std::to_string(last);
  switch (kind) {
    case RegionKind::Sbuf: return "SBUF partition " + std::to_string(index) + ", " + bytes;
    case RegionKind::Psum: {
      const uint64_t bank_bytes = p_.arch.psum_bank_bytes ? p_.arch.psum_bank_bytes : 1;
      return "PSUM partition " + std::to_string(index) + ", bank " + std::to_string(unit * g / bank_bytes) +
             ", " + bytes;
    }
    case RegionKind::Dram: return "DRAM " + bytes;
    case RegionKind::PrivateTensor:
      return "the private storage of '" + p_.tensors[index].name + "', element " + std::to_string(unit);
    case RegionKind::Registers:
      return units == 1 ? "register lane @r" + std::to_string(unit)
                        : "register lanes @r" + std::to_string(unit) + "..@r" + std::to_string(unit + units - 1);
    case RegionKind::PrivateRegister: return "the private storage of register '" + p_.registers[index].name + "'";
  }
  return "?";
}

}  // namespace allocsim
