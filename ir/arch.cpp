#include "ir/arch.h"

#include <cstdlib>
#include <limits>

namespace allocsim {
namespace {

// The preset table. Sources: the production allocator's PSUM bank model (2048-byte banks,
// 4 banks on gen1, 8 on gen2); the 32-partition start quantum is an assumption kept as data.
// The coalescing budget: the production allocator (tooLargeForCoalescing) names a per-partition byte cap that the
// per-arch model holds as a constructor immediate and marks its value INFERRED ("not a recoverable JSON value"). We
// take 2048 bytes per partition on gen1/gen2 (what one 512-wide fp32 row moves, a PSUM bank's width) and 256 on tiny
// (its PSUM bank), as data in this table, overridable with dma-coalesce-bytes=N.
// gen3 is NeuronCore-v3 (Trainium2), from its NKI architecture guide (aws-neuron/aws-neuron-sdk at commit fb4ce106,
// nki/guides/architecture/trainium2_arch.rst): "SBUF capacity is 28MiB (or, 128 partitions of 224KiB) ... PSUM capacity
// remains the same at 2MiB" (line 39: PSUM as on gen2, 8 banks of 2 KiB per partition), "each NeuronCore-v3 is
// typically paired with 16x DMA engines" (line 289). The guide gives nothing else that differs from gen2, whose figures
// it keeps.
const std::vector<Arch> kPresets = {
    // name   P    S/partition align quantum banks bank  regs queues slots coalesce dram limit
    {"gen2", 128, 196608, 4, 32, 8, 2048, 64, 16, 64, 2048, uint64_t(1) << 30},
    {"gen1", 64, 196608, 4, 32, 4, 2048, 64, 16, 64, 2048, uint64_t(1) << 30},
    {"gen3", 128, 229376, 4, 32, 8, 2048, 64, 16, 64, 2048, uint64_t(1) << 30},
    {"tiny", 8, 4096, 4, 4, 4, 256, 4, 2, 4, 256, uint64_t(1) << 24},
};

struct Field {
  const char* key;
  uint32_t Arch::*u32;
  uint64_t Arch::*u64;
  uint64_t max;
};

const Field kFields[] = {
    {"sbuf-partitions", &Arch::sbuf_partitions, nullptr, 1024},
    {"sbuf-bytes", &Arch::sbuf_bytes, nullptr, uint64_t(1) << 24},
    {"sbuf-align", &Arch::sbuf_align, nullptr, 4096},
    {"sbuf-partition-quantum", &Arch::sbuf_partition_quantum, nullptr, 1024},
    {"psum-banks", &Arch::psum_banks, nullptr, 64},
    {"psum-bank-bytes", &Arch::psum_bank_bytes, nullptr, uint64_t(1) << 16},
    {"sp-registers", &Arch::sp_registers, nullptr, 4096},
    {"dma-queues", &Arch::dma_queues, nullptr, 256},
    {"dma-ring-slots", &Arch::dma_ring_slots, nullptr, 65536},
    {"dma-coalesce-bytes", &Arch::dma_coalesce_bytes, nullptr, uint64_t(1) << 24},
    {"dram-limit", nullptr, &Arch::dram_limit, uint64_t(1) << 34},
};

}  // namespace

const std::vector<Arch>& archPresets() { return kPresets; }

std::optional<Arch> archPreset(const std::string& name) {
  for (const Arch& a : kPresets)
    if (a.name == name) return a;
  return std::nullopt;
}

std::vector<std::pair<std::string, uint64_t>> archOverridesFromPreset(const Arch& arch) {
  std::vector<std::pair<std::string, uint64_t>> out;
  std::optional<Arch> base = archPreset(arch.name);
  for (const Field& f : kFields) {
    uint64_t v = f.u32 ? arch.*(f.u32) : arch.*(f.u64);
    uint64_t b = !base ? 0 : f.u32 ? (*base).*(f.u32) : (*base).*(f.u64);
    if (!base || v != b) out.emplace_back(f.key, v);
  }
  return out;
}

std::vector<std::string> archOverrideKeys() {
  std::vector<std::string> keys;
  for (const Field& f : kFields) keys.push_back(f.key);
  return keys;
}

std::string applyArchOverride(Arch& arch, const std::string& rawKey, const std::string& value) {
  std::string key = rawKey;
  if (key.rfind("--", 0) == 0) key = key.substr(2);
  for (const Field& f : kFields) {
    if (key != f.key) continue;
    if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
      return "--" + key + " expects a positive integer, got '" + value + "'";
    errno = 0;
    unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
    if (errno != 0 || v == 0 || v > f.max)
      return "--" + key + " must be between 1 and " + std::to_string(f.max) + ", got " + value;
    if (f.u32) arch.*(f.u32) = uint32_t(v);
    else arch.*(f.u64) = v;
    return "";
  }
  return "unknown arch parameter '" + rawKey + "'";
}

std::string validateArch(const Arch& a) {
  for (const Field& f : kFields) {
    uint64_t v = f.u32 ? a.*(f.u32) : a.*(f.u64);
    if (v == 0 || v > f.max)
      return std::string("arch parameter ") + f.key + " out of range: " + std::to_string(v);
  }
  if (a.sbuf_bytes % a.sbuf_align != 0) return "sbuf-bytes must be a multiple of sbuf-align";
  if (a.psum_bank_bytes % 4 != 0) return "psum-bank-bytes must be a multiple of 4";
  return "";
}

}  // namespace allocsim
