#include "ir/machine_layout.h"

#include <algorithm>
#include <stdexcept>

namespace allocsim {
namespace {

using Int = unsigned __int128;  // sums of 32- and 64-bit sizes cannot overflow it

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string shapeText(const Tensor& t) {
  return "[" + std::to_string(t.partitions) + ", " + std::to_string(t.elements) + "]";
}

uint64_t banksFor(const Arch& arch, const Tensor& t) {
  return std::max<uint64_t>(1, (t.bytesPerPartition() + arch.psum_bank_bytes - 1) / arch.psum_bank_bytes);
}

void requireOnChipPlacement(const Arch& arch, const Tensor& t) {
  const std::string space = spaceName(t.space);
  if (!t.placement)
    throw InputError(t.loc, space + " tensor " + quoted(t.name) +
                                " has no placement; physical execution needs every SBUF and PSUM tensor placed");
  const Placement& pl = *t.placement;
  const uint64_t bpp = t.bytesPerPartition();
  if (t.space == Space::Sbuf) {
    if (Int(pl.partition) + t.partitions > arch.sbuf_partitions || Int(pl.offset) + bpp > arch.sbuf_bytes)
      throw InputError(t.loc, "placement @p" + std::to_string(pl.partition) + "+" + std::to_string(pl.offset) +
                                  " of " + quoted(t.name) + " " + shapeText(t) + " (" + std::to_string(bpp) +
                                  " bytes per partition) exceeds SBUF (" + std::to_string(arch.sbuf_partitions) +
                                  " partitions, " + std::to_string(arch.sbuf_bytes) + " bytes)");
    return;
  }
  if (t.partitions > arch.psumPartitions())
    throw InputError(t.loc, "psum tensor " + quoted(t.name) + " has " + std::to_string(t.partitions) +
                                " partitions; the machine has " + std::to_string(arch.psumPartitions()));
  if (Int(pl.bank) + banksFor(arch, t) > arch.psum_banks)
    throw InputError(t.loc, "placement @bank" + std::to_string(pl.bank) + " of " + quoted(t.name) + " (" +
                                std::to_string(banksFor(arch, t)) + " banks) exceeds PSUM (" +
                                std::to_string(arch.psum_banks) + " banks)");
}

}  // namespace

MachineLayout::MachineLayout(const Program& p) : arch_(p.arch) {
  tensors_.reserve(p.tensors.size());  // sized once: every oracle run lays out the machine
  first_lane_.reserve(p.registers.size());
  lane_count_.reserve(p.registers.size());
  for (const Tensor& t : p.tensors) {
    Footprint f;
    f.space = t.space;
    f.partitions = t.partitions;
    f.row_bytes = t.bytesPerPartition();
    f.elem_size = dtypeSize(t.dtype);
    f.name = t.name;
    if (t.space == Space::Dram) {
      if (t.placement) {
        if (Int(t.placement->offset) + t.totalBytes() > arch_.dram_limit)
          throw InputError(t.loc, "placement @" + std::to_string(t.placement->offset) + " of " + quoted(t.name) +
                                      " (" + std::to_string(t.totalBytes()) + " bytes) exceeds dram-limit " +
                                      std::to_string(arch_.dram_limit));
        f.placed = true;
        f.start = t.placement->offset;
        shared_dram_bytes_ = std::max(shared_dram_bytes_, f.start + t.totalBytes());
      }
    } else {
      requireOnChipPlacement(arch_, t);
      f.placed = true;
      f.first_row = t.space == Space::Sbuf ? t.placement->partition : 0;
      f.start = t.space == Space::Sbuf ? t.placement->offset : uint64_t(t.placement->bank) * arch_.psum_bank_bytes;
    }
    tensors_.push_back(std::move(f));
  }
  for (const Register& r : p.registers) {
    if (!r.phys)
      throw InputError(r.loc, "register " + quoted(r.name) +
                                  " has no placement; physical execution needs every register placed");
    if (uint64_t(*r.phys) + r.lanes() > arch_.sp_registers)
      throw InputError(r.loc, "placement @r" + std::to_string(*r.phys) + " of register " + quoted(r.name) + " (" +
                                  std::to_string(r.lanes()) + (r.lanes() == 1 ? " lane" : " lanes") +
                                  ") exceeds the " + std::to_string(arch_.sp_registers) + " SP registers");
    first_lane_.push_back(*r.phys);
    lane_count_.push_back(r.lanes());
  }
}

PhysicalByte MachineLayout::locate(TensorId t, uint32_t partition, uint64_t byte_in_row) const {
  const Footprint& f = tensors_.at(t);
  switch (f.space) {
    case Space::Sbuf: return {PhysRegion::Sbuf, f.first_row + partition, f.start + byte_in_row, kNone};
    case Space::Psum: return {PhysRegion::Psum, partition, f.start + byte_in_row, kNone};
    case Space::Dram: break;
  }
  uint64_t address = f.start + partition * f.row_bytes + byte_in_row;
  return f.placed ? PhysicalByte{PhysRegion::Dram, 0, address, kNone} : PhysicalByte{PhysRegion::OwnDram, 0, address, t};
}

std::optional<MachineLayout::Element> MachineLayout::elementAt(TensorId t, const PhysicalByte& b) const {
  const Footprint& f = tensors_.at(t);
  if (f.row_bytes == 0) return std::nullopt;
  uint64_t partition = 0, in_row = 0;
  switch (f.space) {
    case Space::Sbuf:
    case Space::Psum: {
      if (b.region != (f.space == Space::Sbuf ? PhysRegion::Sbuf : PhysRegion::Psum)) return std::nullopt;
      if (b.row < f.first_row || b.byte < f.start) return std::nullopt;
      partition = b.row - f.first_row;
      in_row = b.byte - f.start;
      if (in_row >= f.row_bytes) return std::nullopt;
      break;
    }
    case Space::Dram: {
      bool mine = f.placed ? b.region == PhysRegion::Dram : (b.region == PhysRegion::OwnDram && b.own == t);
      if (!mine || b.byte < f.start) return std::nullopt;
      partition = (b.byte - f.start) / f.row_bytes;
      in_row = (b.byte - f.start) % f.row_bytes;
      break;
    }
  }
  if (partition >= f.partitions) return std::nullopt;
  return Element{uint32_t(partition), in_row / f.elem_size};
}

bool MachineLayout::covers(const ResolvedView& v, const PhysicalByte& b) const {
  std::optional<Element> e = elementAt(v.tensor, b);
  if (!e || e->partition < v.partition || e->partition - v.partition >= v.partitions) return false;
  if (e->element < v.offset || v.count == 0 || v.count2 == 0) return false;
  // element = offset + j * step2 + i for some j < count2, i < count.
  const uint64_t d = e->element - v.offset;
  if (v.step2 == 0) return d < v.count;
  uint64_t j_hi = std::min<uint64_t>(v.count2 - 1, d / v.step2);
  // The smallest j with d - j*step2 < count, i.e. j > (d - count) / step2.
  uint64_t j_lo = d < v.count ? 0 : (d - v.count) / v.step2 + 1;
  return j_lo <= j_hi;
}

std::string MachineLayout::describe(const PhysicalByte& b, uint64_t length) const {
  auto bytes = [&](uint64_t first) {
    return length <= 1 ? "byte " + std::to_string(first)
                       : "bytes " + std::to_string(first) + ".." + std::to_string(first + length - 1);
  };
  switch (b.region) {
    case PhysRegion::Sbuf: return "SBUF p" + std::to_string(b.row) + " " + bytes(b.byte);
    case PhysRegion::Psum:
      return "PSUM p" + std::to_string(b.row) + " bank " + std::to_string(b.byte / arch_.psum_bank_bytes) + " " +
             bytes(b.byte % arch_.psum_bank_bytes);
    case PhysRegion::Dram: return "DRAM " + bytes(b.byte);
    case PhysRegion::OwnDram:
      return "DRAM " + quoted(b.own < tensors_.size() ? tensors_[b.own].name : "?") + " (own buffer) " + bytes(b.byte);
  }
  return "?";
}

std::string MachineLayout::describe(TensorId t, uint32_t partition, uint64_t byte_in_row) const {
  return describe(locate(t, partition, byte_in_row));
}

}  // namespace allocsim
