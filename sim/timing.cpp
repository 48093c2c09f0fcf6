#include "sim/timing.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "ir/diag.h"
#include "ir/plant.h"

namespace allocsim::sim {
namespace {

struct Key {
  const char* name;
  double TimingTable::*field;
  double min, max;
};

// Every key and its range; engine-queue-depth and stream.chunk-elements are integers kept apart.
const Key kKeys[] = {
    {"clock-ghz", &TimingTable::clock_ghz, 0.001, 100},
    {"pe.fixed", &TimingTable::pe_fixed, 0, 1e6},
    {"pe.per-column", &TimingTable::pe_per_column, 0, 1e6},
    {"act.fixed", &TimingTable::act_fixed, 0, 1e6},
    {"act.per-element", &TimingTable::act_per_element, 0, 1e6},
    {"dve.fixed", &TimingTable::dve_fixed, 0, 1e6},
    {"dve.per-element", &TimingTable::dve_per_element, 0, 1e6},
    {"pool.fixed", &TimingTable::pool_fixed, 0, 1e6},
    {"pool.per-element", &TimingTable::pool_per_element, 0, 1e6},
    {"pool.select-fixed", &TimingTable::pool_select_fixed, 0, 1e6},
    {"pool.select-per-element", &TimingTable::pool_select_per_element, 0, 1e6},
    {"sp.scalar", &TimingTable::sp_scalar, 0, 1e6},
    {"sp.memory", &TimingTable::sp_memory, 0, 1e6},
    {"sp.loop-iteration", &TimingTable::sp_loop_iteration, 0, 1e6},
    {"dma.fixed", &TimingTable::dma_fixed, 0, 1e7},
    {"dma.per-descriptor", &TimingTable::dma_per_descriptor, 0, 1e6},
    {"dma.bytes-per-cycle", &TimingTable::dma_bytes_per_cycle, 0.001, 1e6},
    {"dma.convert-fixed", &TimingTable::dma_convert_fixed, 0, 1e6},
    {"dve.second-op-per-element", &TimingTable::dve_second_op_per_element, 0, 1e6},
    {"fused-reduce.fixed", &TimingTable::fused_reduce_fixed, 0, 1e6},
};

uint64_t cycles(double c) { return std::max<uint64_t>(1, uint64_t(std::ceil(c))); }

}  // namespace

const TimingTable& TimingTable::defaults() {
  static const TimingTable table = [] {
    TimingTable t;
    t.apply(kDefaultTimingText);
    return t;
  }();
  return table;
}

void TimingTable::apply(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    std::string body = line.substr(0, line.find('#'));
    size_t k0 = body.find_first_not_of(" \t\r");
    if (k0 == std::string::npos) continue;
    size_t k1 = body.find_first_of(" \t\r", k0);
    std::string key = body.substr(k0, k1 == std::string::npos ? std::string::npos : k1 - k0);
    size_t v0 = k1 == std::string::npos ? std::string::npos : body.find_first_not_of(" \t\r", k1);
    SourceLoc key_loc{n, uint32_t(k0 + 1)};
    if (v0 == std::string::npos) throw InputError(key_loc, "timing key '" + key + "' has no value");
    size_t v1 = body.find_first_of(" \t\r", v0);
    std::string value = body.substr(v0, v1 == std::string::npos ? std::string::npos : v1 - v0);
    SourceLoc value_loc{n, uint32_t(v0 + 1)};
    if (v1 != std::string::npos && body.find_first_not_of(" \t\r", v1) != std::string::npos)
      throw InputError(SourceLoc{n, uint32_t(body.find_first_not_of(" \t\r", v1) + 1)},
                       "unexpected text after the value of '" + key + "'");
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || !std::isfinite(v))
      throw InputError(value_loc, "timing key '" + key + "' expects a number, got '" + value + "'");
    if (key == "engine-queue-depth") {
      if (v < 1 || v > 4096 || v != std::floor(v))
        throw InputError(value_loc, "engine-queue-depth must be an integer between 1 and 4096, got " + value);
      engine_queue_depth = uint32_t(v);
      continue;
    }
    if (key == "stream.chunk-elements") {
      if (v < 1 || v > 1048576 || v != std::floor(v))
        throw InputError(value_loc, "stream.chunk-elements must be an integer between 1 and 1048576, got " + value);
      stream_chunk_elements = uint32_t(v);
      continue;
    }
    const Key* found = nullptr;
    for (const Key& k : kKeys)
      if (key == k.name) found = &k;
    if (!found) throw InputError(key_loc, "unknown timing key '" + key + "'");
    if (v < found->min || v > found->max)
      throw InputError(value_loc, "timing key '" + key + "' must be between " + std::to_string(found->min) +
                                      " and " + std::to_string(found->max) + ", got " + value);
    this->*(found->field) = v;
  }
}

uint64_t computeCycles(const TimingTable& t, const Instruction& inst, const ResolvedView* dst, const ResolvedView* a,
                       const ResolvedView* b) {
  auto per = [](const ResolvedView* v) { return v ? double(v->perPartition()) : 0.0; };
  switch (inst.op) {
    case Op::Matmul: return cycles(t.pe_fixed + t.pe_per_column * per(b));
    case Op::Copy: return cycles(t.act_fixed + t.act_per_element * per(dst));
    case Op::Act:
      return cycles(t.act_fixed + t.act_per_element * per(dst) + (hasFusedReduce(inst) ? t.fused_reduce_fixed : 0));
    case Op::TS:
      return cycles(t.dve_fixed + (t.dve_per_element + (hasSecondOp(inst) ? t.dve_second_op_per_element : 0)) * per(a) +
                    (hasFusedReduce(inst) ? t.fused_reduce_fixed : 0));
    case Op::TT:
      if (ALLOCSIM_PLANT("sim_tt_costs_per_destination")) return cycles(t.dve_fixed + t.dve_per_element * per(dst) / 2);
      return cycles(t.dve_fixed + t.dve_per_element * per(a));
    case Op::Reduce: return cycles(t.dve_fixed + t.dve_per_element * per(a));
    case Op::Memset: return cycles(t.pool_fixed + t.pool_per_element * per(dst));
    case Op::Select: return cycles(t.pool_select_fixed + t.pool_select_per_element * per(dst));
    case Op::RegLoad:
    case Op::RegStore: return cycles(t.sp_memory);
    case Op::Loop: return cycles(t.sp_loop_iteration);
    case Op::Dma: return cycles(t.dma_fixed);
    default: return cycles(t.sp_scalar);
  }
}

uint64_t dmaDescriptors(const ResolvedView& dst, const ResolvedView& src, Space dst_space, Space src_space) {
  auto runs = [](const ResolvedView& v) -> uint64_t {
    bool contiguous = v.count2 <= 1 || v.step2 == v.count;
    return uint64_t(v.partitions) * (contiguous ? 1 : v.count2);
  };
  if (dst_space != Space::Dram) return std::max<uint64_t>(1, runs(dst));
  if (src_space != Space::Dram) return std::max<uint64_t>(1, runs(src));
  return std::max<uint64_t>(1, src.partitions);
}

uint64_t dmaTransferCycles(const TimingTable& t, uint64_t bytes, uint64_t descriptors) {
  return cycles(double(bytes) / t.dma_bytes_per_cycle + t.dma_per_descriptor * double(descriptors));
}

}  // namespace allocsim::sim
