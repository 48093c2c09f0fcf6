#include "sim/top.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "ir/inputs.h"

namespace allocsim::sim {

namespace {
const char* const kEngineNames[kEngines] = {"PE", "ACT", "DVE", "POOL", "SP", "DMA"};
}  // namespace

Top::Top(sc_core::sc_module_name name, const std::string& vcd_path, uint32_t queues)
    : sc_module(name), vcd_path_(vcd_path) {
  if (!vcd_path.empty()) {
    sc_core::sc_trace_file* vcd = sc_core::sc_create_vcd_trace_file((vcd_path + ".partial").c_str());  // + ".vcd"
    vcd->set_time_unit(1, sc_core::SC_NS);  // one cycle
    for (uint32_t e = 0; e < kEngines; ++e)
      sc_core::sc_trace(vcd, shared_.busy[e], std::string(kEngineNames[e]) + (e == kEngines - 1 ? "_issue" : "_busy"));
    sc_core::sc_trace(vcd, shared_.busy[kEngines], "SEQ_loop");
    for (uint32_t q = 0; q < queues && q < 256; ++q)
      sc_core::sc_trace(vcd, shared_.ring_used[q], "q" + std::to_string(q) + "_ring_slots");
    shared_.vcd = vcd;
  }
  for (Fifo& f : engine_fifo_) shared_.fifos.push_back(&f);
  sequencer_ = std::make_unique<Sequencer>("sequencer", shared_, engine_fifo_, [this](uint32_t n) { ensureQueues(n); });
  for (uint32_t e = 0; e + 1 < kEngines; ++e)
    engines_[e] = std::make_unique<Engine>(kEngineNames[e], shared_, e, engine_fifo_[e]);
  issuer_ = std::make_unique<DmaIssuer>(kEngineNames[kEngines - 1], shared_, engine_fifo_[kEngines - 1], rings_);
  for (auto& e : engines_) shared_.units.push_back(e.get());
  shared_.units.push_back(issuer_.get());
}

void Top::closeVcd() {
  if (!shared_.vcd) return;
  sc_core::sc_close_vcd_trace_file(shared_.vcd);
  shared_.vcd = nullptr;
  // The same run must give the same bytes: replace the wall-clock date SystemC writes.
  const std::string partial = vcd_path_ + ".partial.vcd";
  std::ifstream in(partial, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  std::string text = ss.str();
  const size_t date = text.find("$date");
  const size_t end = date == std::string::npos ? date : text.find("$end", date);
  if (end != std::string::npos) text.replace(date, end - date, "$date\n     (not recorded: allocsim traces are reproducible)\n");
  std::ofstream(vcd_path_, std::ios::binary) << text;
  std::remove(partial.c_str());
}

void Top::ensureQueues(uint32_t n) {
  while (queues_.size() < n) {
    const uint32_t q = uint32_t(queues_.size());
    rings_.emplace_back();
    shared_.fifos.push_back(&rings_.back());
    queues_.push_back(std::make_unique<DmaQueue>("queue" + std::to_string(q), shared_, q, rings_.back()));
  }
}

void Top::startJob() {
  // Delta notifications trigger in the order they were made, and a triggered thread runs in trigger order.
  sequencer_->start.notify(sc_core::SC_ZERO_TIME);
  for (auto& e : engines_) e->start.notify(sc_core::SC_ZERO_TIME);
  issuer_->start.notify(sc_core::SC_ZERO_TIME);
  for (auto& q : queues_) q->start.notify(sc_core::SC_ZERO_TIME);
}

// The ring changes in time order, a slot freed in a cycle before one taken in it (as the issuer counts them), with
// the occupancy after each change.
void Top::traceRingOccupancy() {
  auto& changes = shared_.ring_changes;
  std::sort(changes.begin(), changes.end(), [](const Shared::RingChange& a, const Shared::RingChange& b) {
    if (a.cycle != b.cycle) return a.cycle < b.cycle;
    if (a.delta != b.delta) return a.delta < b.delta;
    return a.queue < b.queue;
  });
  std::vector<uint32_t> used(shared_.p->arch.dma_queues, 0);
  for (const Shared::RingChange& c : changes) {
    used[c.queue] = uint32_t(int64_t(used[c.queue]) + c.delta);
    shared_.o->trace->ring_occupancy.push_back({c.queue, c.cycle, used[c.queue]});
  }
  changes.clear();
}

SimResult Top::run(const Program& p, const SimOptions& opts) {
  if (std::string err = validateArch(p.arch); !err.empty()) throw InputError(SourceLoc{}, err);
  Shared& s = shared_;
  s.p = &p;
  s.o = &opts;
  s.timing = &opts.timingFor(p);
  s.layout.emplace(p);
  s.max_view_bytes = largestTensorBytes(p, opts.max_storage_bytes);
  s.phys = std::make_unique<PhysicalStorage>(p, opts.poison_seed, opts.max_storage_bytes);
  s.snap = std::make_unique<SnapshotStorage>(*s.phys);
  s.stepper = std::make_unique<InstructionStepper>(p, *s.snap, s.max_view_bytes);
  s.board.reset(opts.drop);
  s.board.setWritten(writtenResources(p, *s.layout));
  uint32_t psum_shift = 0;  // a PSUM footprint is whole banks: one bucket per bank (the largest power of two in one)
  while ((uint64_t(2) << psum_shift) <= p.arch.psum_bank_bytes) ++psum_shift;
  const uint32_t sbuf_shift = sbufBucketShift(p);
  s.board.setBucketShifts(sbuf_shift, psum_shift, sbufBucketOrigin(p, *s.layout, sbuf_shift));
  uint32_t late_results = 0;  // engines whose results may complete after their cost (sim/timing.h)
  for (uint32_t e = 0; e < uint32_t(::allocsim::Engine::DMA); ++e)
    if (s.timing->dependentInterval(::allocsim::Engine(e)) > 0) late_results |= 1u << e;
  s.board.setOwnEngineReads(late_results);
  s.fabric.clear();
  sequencer_->reset();
  s.result = SimResult{};
  s.result.stats.queues.resize(p.arch.dma_queues);
  s.last_cycle = 0;
  s.dispatch_done = s.dma_issue_done = s.abort = false;
  s.error = nullptr;
  s.quantum = s.vcd || opts.drop != DropDependency::None ? 0 : opts.quantum;
  s.skip_data = opts.timing_only;
  s.data_slice = s.skip_data ? regLoadSlice(p, *s.layout) : RegLoadSlice{};
  s.no_value_waits = s.skip_data && s.data_slice.computed.empty() && s.quantum != 0;
  s.resetRecords();
  for (Fifo& f : engine_fifo_) f.slots.clear(), f.held.clear();
  for (Fifo& f : rings_) f.slots.clear();
  s.ring_changes.clear();
  std::fill(std::begin(s.busy), std::end(s.busy), false);
  std::fill(std::begin(s.ring_used), std::end(s.ring_used), 0u);

  // Inputs, as the interpreter loads them (when the data path is skipped, only those the slice can read).
  std::vector<std::vector<uint8_t>> inputs;
  if (!s.skip_data) {
    inputs = makeInputs(p, opts.input_seed);
  } else if (!s.data_slice.inputs.empty()) {
    inputs.resize(p.tensors.size());
    for (TensorId t = 0; t < p.tensors.size(); ++t)
      if (s.data_slice.inputs[t]) inputs[t] = inputBytes(p.tensors[t], opts.input_seed);
  }
  for (TensorId t = 0; t < inputs.size(); ++t) {
    if (inputs[t].empty()) continue;
    const uint64_t bpp = p.tensors[t].bytesPerPartition();
    for (uint32_t q = 0; q < p.tensors[t].partitions; ++q)
      std::copy_n(inputs[t].data() + q * bpp, bpp, s.phys->row(t, q));
  }

  const size_t first_slice = opts.trace ? opts.trace->slices.size() : 0;
  s.base_ps = sc_core::sc_time_stamp().value();
  for (auto& e : engines_) e->prepare();
  issuer_->prepare();
  startJob();
  sc_core::sc_start();
  const bool idle = s.releaseAll();
  if (!s.error && (!s.dispatch_done || !s.dma_issue_done || !idle))
    s.error = std::make_exception_ptr(std::logic_error("simulator: the model stopped with instructions in flight"));
  // A failed job may leave time bookings and records behind; the next job starts from a clean state anyway.
  std::exception_ptr error = s.error;
  s.stepper.reset();
  s.snap.reset();
  if (error) {
    s.phys.reset();
    std::rethrow_exception(error);
  }

  s.result.exec.outputs.resize(p.tensors.size());
  for (TensorId t = 0; t < p.tensors.size(); ++t) {
    const Tensor& tensor = p.tensors[t];
    if (!tensor.output || opts.timing_only) continue;
    const uint64_t bpp = tensor.bytesPerPartition();
    std::vector<uint8_t>& out = s.result.exec.outputs[t];
    out.resize(tensor.partitions * bpp);
    for (uint32_t q = 0; q < tensor.partitions; ++q) std::copy_n(s.phys->row(t, q), bpp, out.data() + q * bpp);
  }
  s.phys.reset();
  s.result.stats.cycles = s.last_cycle;
  if (opts.trace) {
    // Units run ahead of each other by different amounts (SimOptions::quantum): slices are put in time order, so
    // that a trace does not depend on the order the host ran them in. Each track's own slices keep their order.
    std::stable_sort(opts.trace->slices.begin() + ptrdiff_t(first_slice), opts.trace->slices.end(),
                     [](const TraceSlice& a, const TraceSlice& b) {
                       return a.start != b.start ? a.start < b.start : a.track < b.track;
                     });
    traceRingOccupancy();
  }
  return std::move(s.result);
}

}  // namespace allocsim::sim
