// The machine: one record of sizes per preset.
// Every size the rest of the code needs comes from an Arch value; nothing else hard-codes one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace allocsim {

struct Arch {
  std::string name;  // the preset this arch started from; overrides do not rename it
  // SBUF: partitions x bytes per partition; a tensor is a (partition range x byte range) rectangle.
  uint32_t sbuf_partitions = 0;
  uint32_t sbuf_bytes = 0;            // bytes per partition
  uint32_t sbuf_align = 0;            // byte alignment of a tensor's byte offset
  uint32_t sbuf_partition_quantum = 0;  // a tensor may start at any multiple of this partition
  // PSUM: banks x bank bytes per partition; a bank spans all partitions.
  uint32_t psum_banks = 0;
  uint32_t psum_bank_bytes = 0;
  // SP register file: 32-bit physical registers; a 64-bit value takes two.
  uint32_t sp_registers = 0;
  // DMA: queues, each a ring of descriptor slots.
  uint32_t dma_queues = 0;
  uint32_t dma_ring_slots = 0;
  // The per-partition byte budget of one coalesced DMA (the production allocator, tooLargeForCoalescing: a byte cap
  // read from the per-arch model; its numeric value is INFERRED, see ir/arch.cpp).
  uint32_t dma_coalesce_bytes = 0;
  // DRAM is unbounded on the machine, but a simulator must bound what it allocates:
  // programs whose DRAM tensors (inputs, outputs, spill slots) exceed this are rejected.
  uint64_t dram_limit = 0;

  uint32_t psumPartitions() const { return sbuf_partitions; }
  uint64_t psumBytes() const { return uint64_t(psum_banks) * psum_bank_bytes; }
  // Program::operator== (the round trip of docs/format.md) compares the arch too.
  bool operator==(const Arch&) const = default;
};

// The preset table (gen2, gen1, gen3, tiny). Returns nullopt for an unknown name.
std::optional<Arch> archPreset(const std::string& name);
const std::vector<Arch>& archPresets();

// Applies a command-line override such as "sbuf-bytes=4096" (also accepted: "--sbuf-bytes", value
// given separately by the caller). Returns an error message, or "" on success.
std::string applyArchOverride(Arch& arch, const std::string& key, const std::string& value);
// The fields in which `arch` differs from its preset `arch.name`, as (key, value) pairs; the text
// format prints them after the preset name ("arch tiny psum-banks=2").
std::vector<std::pair<std::string, uint64_t>> archOverridesFromPreset(const Arch& arch);
// The override keys, for --help texts.
std::vector<std::string> archOverrideKeys();
// Checks that every field is in a sane range (non-zero, bounded); returns an error message or "".
std::string validateArch(const Arch& arch);

}  // namespace allocsim
