#include "sim/timing.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "ir/diag.h"
#include "ir/lexer.h"
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
    {"pe.clock-ghz", &TimingTable::pe_clock_ghz, 0.001, 100},
    {"act.clock-ghz", &TimingTable::act_clock_ghz, 0.001, 100},
    {"dve.clock-ghz", &TimingTable::dve_clock_ghz, 0.001, 100},
    {"pool.clock-ghz", &TimingTable::pool_clock_ghz, 0.001, 100},
    {"sp.clock-ghz", &TimingTable::sp_clock_ghz, 0.001, 100},
    {"pe.fixed", &TimingTable::pe_fixed, 0, 1e6},
    {"pe.per-column", &TimingTable::pe_per_column, 0, 1e6},
    {"pe.fp32-factor", &TimingTable::pe_fp32_factor, 0, 1e3},
    {"act.fixed", &TimingTable::act_fixed, 0, 1e6},
    {"act.per-element", &TimingTable::act_per_element, 0, 1e6},
    {"dve.fixed", &TimingTable::dve_fixed, 0, 1e6},
    {"dve.per-element", &TimingTable::dve_per_element, 0, 1e6},
    {"dve.tt-per-element", &TimingTable::dve_tt_per_element, 0, 1e6},
    {"dve.tt-fast-per-element", &TimingTable::dve_tt_fast_per_element, 0, 1e6},
    {"dve.reduce-per-element", &TimingTable::dve_reduce_per_element, 0, 1e6},
    {"dve.reduce-bf16-per-element", &TimingTable::dve_reduce_bf16_per_element, 0, 1e6},
    {"pool.fixed", &TimingTable::pool_fixed, 0, 1e6},
    {"pool.per-element", &TimingTable::pool_per_element, 0, 1e6},
    {"pool.select-fixed", &TimingTable::pool_select_fixed, 0, 1e6},
    {"pool.select-per-element", &TimingTable::pool_select_per_element, 0, 1e6},
    {"dve.scan-per-element", &TimingTable::dve_scan_per_element, 0, 1e6},
    {"dve.bn-stats-per-element", &TimingTable::dve_bn_stats_per_element, 0, 1e6},
    {"dve.bn-aggr-per-tuple", &TimingTable::dve_bn_aggr_per_tuple, 0, 1e6},
    {"sp.scalar", &TimingTable::sp_scalar, 0, 1e6},
    {"sp.memory", &TimingTable::sp_memory, 0, 1e6},
    {"sp.loop-iteration", &TimingTable::sp_loop_iteration, 0, 1e6},
    {"dma.fixed-ns", &TimingTable::dma_fixed_ns, 0, 1e7},
    {"dma.engines", &TimingTable::dma_engines, 1, 1024},
    {"dma.engine-bytes-per-ns", &TimingTable::dma_engine_bytes_per_ns, 0.001, 1e6},
    {"dma.descriptor-overhead-bytes", &TimingTable::dma_descriptor_overhead_bytes, 0, 1e9},
    {"dma.contiguous-efficiency", &TimingTable::dma_contiguous_efficiency, 0.001, 1},
    {"dma.contiguous-min-bytes", &TimingTable::dma_contiguous_min_bytes, 0, 1e9},
    {"dma.efficiency", &TimingTable::dma_efficiency, 0.001, 1},
    {"dma.partitions-per-engine", &TimingTable::dma_partitions_per_engine, 1, 1024},
    {"dma.convert-fixed", &TimingTable::dma_convert_fixed, 0, 1e6},
    {"dve.second-op-per-element", &TimingTable::dve_second_op_per_element, 0, 1e6},
    {"fused-reduce.fixed", &TimingTable::fused_reduce_fixed, 0, 1e6},
    {"dve.perf-ts-factor", &TimingTable::dve_perf_ts_factor, 0.001, 1},
    {"dve.perf-tt-factor", &TimingTable::dve_perf_tt_factor, 0.001, 1},
    {"pe.dependent-interval", &TimingTable::pe_dependent_interval, 0, 1e6},
    {"act.dependent-interval", &TimingTable::act_dependent_interval, 0, 1e6},
    {"dve.dependent-interval", &TimingTable::dve_dependent_interval, 0, 1e6},
    {"pool.dependent-interval", &TimingTable::pool_dependent_interval, 0, 1e6},
    {"access.stride-threshold-bytes", &TimingTable::access_stride_threshold_bytes, 0, 1e6},
    {"access.strided-factor", &TimingTable::access_strided_factor, 1, 1e3},
};

// A number as a message shows it: a value strtod took whole is printable, but may be any length.
std::string shownNumber(const std::string& value) { return value.size() > 40 ? value.substr(0, 40) + "..." : value; }

// Capped just past kMaxSimCycles: a larger double does not convert to uint64_t.
uint64_t cycles(double c) {
  if (!(c < double(kMaxSimCycles))) return kMaxSimCycles + 1;
  return std::max<uint64_t>(1, uint64_t(std::ceil(c)));
}

}  // namespace

const TimingTable& TimingTable::defaults() {
  static const TimingTable table = [] {
    TimingTable t;
    t.apply(kDefaultTimingText);
    return t;
  }();
  return table;
}

const TimingTable& TimingTable::forPreset(const std::string& preset) {
  static const std::vector<std::pair<std::string, TimingTable>> tables = [] {
    std::vector<std::pair<std::string, TimingTable>> out;
    for (const PresetTimingText* t = kPresetTimingTexts; t->preset; ++t) {
      TimingTable table = defaults();
      table.apply(t->text);
      out.emplace_back(t->preset, table);
    }
    return out;
  }();
  for (const auto& [name, table] : tables)
    if (name == preset) return table;
  return defaults();
}

void TimingTable::apply(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  // A key given twice is a mistake in the file (an edited copy, a pasted line): neither value is taken silently.
  std::map<std::string, uint32_t> seen;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    std::string body = line.substr(0, line.find('#'));
    size_t k0 = body.find_first_not_of(" \t\r");
    if (k0 == std::string::npos) continue;
    size_t k1 = body.find_first_of(" \t\r", k0);
    std::string key = body.substr(k0, k1 == std::string::npos ? std::string::npos : k1 - k0);
    size_t v0 = k1 == std::string::npos ? std::string::npos : body.find_first_not_of(" \t\r", k1);
    SourceLoc key_loc{n, uint32_t(k0 + 1)};
    if (v0 == std::string::npos) throw InputError(key_loc, "timing key " + quoted(key) + " has no value");
    size_t v1 = body.find_first_of(" \t\r", v0);
    std::string value = body.substr(v0, v1 == std::string::npos ? std::string::npos : v1 - v0);
    SourceLoc value_loc{n, uint32_t(v0 + 1)};
    if (auto [first, fresh] = seen.emplace(key, n); !fresh)
      throw InputError(key_loc, "timing key " + quoted(key) + " is given twice (first on line " +
                                    std::to_string(first->second) + ")");
    if (v1 != std::string::npos && body.find_first_not_of(" \t\r", v1) != std::string::npos)
      throw InputError(SourceLoc{n, uint32_t(body.find_first_not_of(" \t\r", v1) + 1)},
                       "unexpected text after the value of " + quoted(key));
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() + value.size() || !std::isfinite(v))
      throw InputError(value_loc, "timing key " + quoted(key) + " expects a number, got " + quoted(value));
    if (key == "engine-queue-depth") {
      if (v < 1 || v > 4096 || v != std::floor(v))
        throw InputError(value_loc,
                         "engine-queue-depth must be an integer between 1 and 4096, got " + shownNumber(value));
      engine_queue_depth = uint32_t(v);
      continue;
    }
    if (key == "stream.chunk-elements") {
      if (v < 1 || v > 1048576 || v != std::floor(v))
        throw InputError(value_loc,
                         "stream.chunk-elements must be an integer between 1 and 1048576, got " + shownNumber(value));
      stream_chunk_elements = uint32_t(v);
      continue;
    }
    if (key == "port.dve-pool-sbuf" || key == "port.dve-act-psum") {
      if (v != 0 && v != 1) throw InputError(value_loc, key + " must be 0 or 1, got " + shownNumber(value));
      (key == "port.dve-pool-sbuf" ? port_dve_pool_sbuf : port_dve_act_psum) = v == 1;
      continue;
    }
    const Key* found = nullptr;
    for (const Key& k : kKeys)
      if (key == k.name) found = &k;
    if (!found) throw InputError(key_loc, "unknown timing key " + quoted(key));
    if (v < found->min || v > found->max)
      throw InputError(value_loc, "timing key " + quoted(key) + " must be between " + std::to_string(found->min) +
                                      " and " + std::to_string(found->max) + ", got " + shownNumber(value));
    this->*(found->field) = v;
  }
}

void checkSimCycles(const Instruction& inst, uint64_t cycle) {
  if (cycle > kMaxSimCycles)
    throw InputError(inst.loc, "the simulated time passes " + std::to_string(kMaxSimCycles) +
                                   " cycles at this instruction, more than the simulator counts (are the timing "
                                   "table's costs or the loop trip counts far larger than meant?)");
}

uint64_t TimingTable::toReport(double c, double ghz) const {
  // A small tolerance: 512 cycles at 2.8 GHz are exactly 256 at 1.4 GHz, whatever the doubles' last bits say.
  return cycles(c * clock_ghz / ghz - 1e-9);
}

uint64_t TimingTable::dmaFixedCycles() const { return uint64_t(std::ceil(dma_fixed_ns * clock_ghz - 1e-9)); }

uint64_t TimingTable::dependentInterval(Engine e) const {
  double c = 0, ghz = 1;
  switch (e) {
    case Engine::PE: c = pe_dependent_interval, ghz = pe_clock_ghz; break;
    case Engine::ACT: c = act_dependent_interval, ghz = act_clock_ghz; break;
    case Engine::DVE: c = dve_dependent_interval, ghz = dve_clock_ghz; break;
    case Engine::POOL: c = pool_dependent_interval, ghz = pool_clock_ghz; break;
    default: return 0;
  }
  return c > 0 ? uint64_t(std::ceil(c * clock_ghz / ghz - 1e-9)) : 0;
}

namespace {

bool contiguous(const ResolvedView& v) { return v.count2 <= 1 || v.step2 == v.count; }

// tt runs at one element a cycle when one input is in PSUM and the other in SBUF, or when both are in SBUF, every
// type is bf16, the operator is add, sub or mul and both inputs have unit stride (NKI tensor_tensor's cost table).
bool fastTensorTensor(const Instruction& inst, const ResolvedView& d, const ResolvedView& a, const ResolvedView& b,
                      const Program* p) {
  auto space = [&](const ResolvedView& v) { return p ? p->tensors[v.tensor].space : Space::Sbuf; };
  const Space sa = space(a), sb = space(b);
  if ((sa == Space::Psum) != (sb == Space::Psum)) return true;
  if (sa != Space::Sbuf || sb != Space::Sbuf) return false;
  const bool bf16 = d.dtype == DType::BF16 && a.dtype == DType::BF16 && b.dtype == DType::BF16;
  const bool op = inst.alu == AluOp::Add || inst.alu == AluOp::Sub || inst.alu == AluOp::Mul;
  return bf16 && op && contiguous(a) && contiguous(b);
}

bool float16(const ResolvedView& v) { return v.dtype == DType::BF16 || v.dtype == DType::F16; }

// The Vector engine's performance-mode factors (both 16-bit float tensors are in SBUF: PSUM holds 32-bit types).
// A ts without a fused reduction whose source and destination are 16-bit floats:
double tsPerfFactor(const TimingTable& t, const Instruction& inst, const ResolvedView& d, const ResolvedView& a) {
  return !hasFusedReduce(inst) && float16(d) && float16(a) ? t.dve_perf_ts_factor : 1;
}
// A tt whose inputs and destination are 16-bit floats:
double ttPerfFactor(const TimingTable& t, const ResolvedView& d, const ResolvedView& a, const ResolvedView& b) {
  return float16(d) && float16(a) && float16(b) ? t.dve_perf_tt_factor : 1;
}

}  // namespace

bool stridedAccess(const ResolvedView& v, double threshold_bytes) {
  return v.count == 1 && v.count2 > 1 && double(v.step2) * v.elem_size > threshold_bytes;
}

uint64_t computeCycles(const TimingTable& t, const Instruction& inst, const ResolvedView* dst, const ResolvedView* a,
                       const ResolvedView* b, const Program* p) {
  // Each view's elements per partition, and for a view whose most-minor stride exceeds the threshold, as many
  // again times the strided-access factor (the interfaces deliver its elements at a fraction of their peak).
  auto strided = [&](const ResolvedView* v) {
    return v && stridedAccess(*v, t.access_stride_threshold_bytes);
  };
  const double sf = strided(dst) || strided(a) || strided(b) ? t.access_strided_factor : 1;
  auto per = [&](const ResolvedView* v) { return v ? sf * double(v->perPartition()) : 0.0; };
  const double fused = hasFusedReduce(inst) ? t.fused_reduce_fixed : 0;
  switch (inst.op) {
    case Op::Matmul: {
      // max(min(64, N_stationary), N_moving), the stationary's free size being a's elements per partition.
      const bool fp32 = (a && a->dtype == DType::F32) || (b && b->dtype == DType::F32);
      const double c = std::max(std::min(t.pe_fixed, per(a)), t.pe_per_column * per(b));
      return t.toReport(c * (fp32 ? t.pe_fp32_factor : 1), t.pe_clock_ghz);
    }
    case Op::Copy: return t.toReport(std::max(t.act_fixed, t.act_per_element * per(dst)), t.act_clock_ghz);
    case Op::Act: return t.toReport(std::max(t.act_fixed, t.act_per_element * per(dst)) + fused, t.act_clock_ghz);
    case Op::TS: {
      double rate = t.dve_per_element + (hasSecondOp(inst) ? t.dve_second_op_per_element : 0);
      if (dst && a) rate *= tsPerfFactor(t, inst, *dst, *a);
      return t.toReport(std::max(t.dve_fixed, rate * per(a)) + fused, t.dve_clock_ghz);
    }
    case Op::TT: {
      const bool fast = dst && a && b && fastTensorTensor(inst, *dst, *a, *b, p);
      const double rate = (fast ? t.dve_tt_fast_per_element : t.dve_tt_per_element) *
                          (dst && a && b ? ttPerfFactor(t, *dst, *a, *b) : 1);
      const double elements = ALLOCSIM_PLANT("sim_tt_costs_per_destination") ? per(dst) / 2 : per(a);
      return t.toReport(std::max(t.dve_fixed, rate * elements), t.dve_clock_ghz);
    }
    case Op::Reduce: {
      const bool half = dst && a && dst->dtype == DType::BF16 && a->dtype == DType::BF16 &&
                        (inst.alu == AluOp::Add || inst.alu == AluOp::Max);
      const double rate = half ? t.dve_reduce_bf16_per_element : t.dve_reduce_per_element;
      return t.toReport(std::max(t.dve_fixed, rate * per(a)), t.dve_clock_ghz);
    }
    case Op::Memset: return t.toReport(t.pool_fixed + t.pool_per_element * per(dst), t.pool_clock_ghz);
    case Op::Select: return t.toReport(t.pool_select_fixed + t.pool_select_per_element * per(dst), t.pool_clock_ghz);
    case Op::Iota: return t.toReport(t.pool_fixed + t.pool_per_element * per(dst), t.pool_clock_ghz);
    // nc_transpose on the PE: max(P, min(pe.fixed, F)) for a source [P, F].
    case Op::Transpose:
      return t.toReport(std::max(a ? double(a->partitions) : 0.0, std::min(t.pe_fixed, per(a))), t.pe_clock_ghz);
    case Op::Broadcast: {  // a matmul of ones [1, M] (stationary) with the source row [1, N] (moving)
      const bool fp32 = a && a->dtype == DType::F32;
      const double c = std::max(std::min(t.pe_fixed, dst ? double(dst->partitions) : 0.0), t.pe_per_column * per(a));
      return t.toReport(c * (fp32 ? t.pe_fp32_factor : 1), t.pe_clock_ghz);
    }
    case Op::TTScan: return t.toReport(std::max(t.dve_fixed, t.dve_scan_per_element * per(a)), t.dve_clock_ghz);
    case Op::BnStats: return t.toReport(std::max(t.dve_fixed, t.dve_bn_stats_per_element * per(a)), t.dve_clock_ghz);
    case Op::BnAggr: return t.toReport(std::max(t.dve_fixed, t.dve_bn_aggr_per_tuple * (per(a) / 3)), t.dve_clock_ghz);
    case Op::RegLoad:
    case Op::RegStore: return t.toReport(t.sp_memory, t.sp_clock_ghz);
    case Op::Loop: return t.toReport(t.sp_loop_iteration, t.sp_clock_ghz);
    case Op::Dma: return std::max<uint64_t>(1, t.dmaFixedCycles());
    default: return t.toReport(t.sp_scalar, t.sp_clock_ghz);
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

uint64_t dmaPartitions(const ResolvedView& dst, const ResolvedView& src, Space dst_space) {
  return std::max<uint64_t>(1, dst_space != Space::Dram ? dst.partitions : src.partitions);
}

bool dmaDramContiguous(const Program& p, const ResolvedView& dst, const ResolvedView& src) {
  auto whole = [&](const ResolvedView& v) {
    const bool runs = v.count2 <= 1 || v.step2 == v.count;  // one run per partition
    return runs && (v.partitions <= 1 || v.perPartition() == p.tensors[v.tensor].elements);
  };
  const bool d = p.tensors[dst.tensor].space == Space::Dram, s = p.tensors[src.tensor].space == Space::Dram;
  return (d || s) && (!d || whole(dst)) && (!s || whole(src));
}

DmaCost dmaTransferCycles(const TimingTable& t, uint64_t bytes, uint64_t descriptors, uint64_t partitions,
                          bool contiguous) {
  const double engines =
      std::min(t.dma_engines, std::ceil(double(std::max<uint64_t>(1, partitions)) / t.dma_partitions_per_engine));
  // A contiguous transfer's descriptors each cost at least dma.contiguous-min-bytes: they are equally long (a
  // view's runs are), so it moves the larger of its bytes and descriptors x the minimum.
  const double moved =
      contiguous ? std::max(double(bytes), t.dma_contiguous_min_bytes * double(descriptors)) : double(bytes);
  const double engine_bytes = moved + t.dma_descriptor_overhead_bytes * double(descriptors);
  const double rate = t.dma_engine_bytes_per_ns * (contiguous ? t.dma_contiguous_efficiency : t.dma_efficiency);
  const double span_ns = engine_bytes / (engines * rate);
  const double fabric_ns = engine_bytes / (t.dma_engines * rate);
  return {cycles(span_ns * t.clock_ghz - 1e-9), cycles(fabric_ns * t.clock_ghz - 1e-9)};
}

}  // namespace allocsim::sim
