#include "tools/sim_report.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "ir/print.h"
#include "tools/python_kernel.h"
#include "tools/verify_report.h"

namespace allocsim::cli {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; }

// "line N `text`", and " (FILE:LINE)" when the program was traced from an NKI kernel: the kernel's line.
std::string describe(const Program& p, const Instruction& i) {
  std::string kernel = tracedKernelLine(i.loc.line);
  return instructionById(p, i.id) + (kernel.empty() ? "" : " (" + kernel + ")");
}

std::string pairText(const Program& p, const sim::StallPair& s) {
  // An instruction in a loop may wait for its own execution in an earlier iteration (a loop-carried dependence,
  // or the engine's queue full of its earlier iterations): say so instead of naming it twice.
  std::string producer = !s.producer                 ? "(none)"
                         : s.producer == s.consumer ? "itself in an earlier loop iteration"
                                                    : describe(p, *s.producer);
  return std::string(sim::stallCauseName(s.cause)) + ": " + describe(p, *s.consumer) + " waited for " + producer;
}

// `, "consumer_kernel_line": "FILE:LINE"` for a program traced from an NKI kernel; nothing otherwise.
std::string kernelLineJson(const char* role, const Instruction* i) {
  std::string kernel = i ? tracedKernelLine(i->loc.line) : "";
  return kernel.empty() ? "" : std::string(", \"") + role + "_kernel_line\": " + jsonString(kernel);
}

}  // namespace


std::string simStatsText(const Program& p, const sim::SimStats& s, double clock_ghz, size_t top_pairs) {
  std::string out = fmt("cycles: %" PRIu64 " (%.2f us at %.2f GHz), %" PRIu64 " instructions, %" PRIu64
                        " loop iterations\n",
                        s.cycles, double(s.cycles) / (clock_ghz * 1000.0), clock_ghz, s.instructions,
                        s.loop_iterations);
  out += "engine  instructions  busy-cycles  busy%\n";
  for (size_t e = 0; e < sim::kEngines; ++e) {
    if (Engine(e) == Engine::DMA) {
      out += fmt("%-6s  %12" PRIu64 "  %11s  %5s   (issues onto the queues below)\n", engineName(Engine(e)),
                 s.engines[e].instructions, "-", "-");
      continue;
    }
    out += fmt("%-6s  %12" PRIu64 "  %11" PRIu64 "  %5.1f\n", engineName(Engine(e)), s.engines[e].instructions,
               s.engines[e].busy_cycles, percent(s.engines[e].busy_cycles, s.cycles));
  }
  out += fmt("%-6s  %12" PRIu64 "  %11" PRIu64 "  %5.1f   (SP sequencer: loop iterations)\n", "SEQ",
             s.loop_iterations, s.sequencer_busy_cycles, percent(s.sequencer_busy_cycles, s.cycles));
  out += "dma queue  transfers  descriptors        bytes  busy%  peak ring\n";
  for (size_t q = 0; q < s.queues.size(); ++q) {
    const sim::QueueStats& qs = s.queues[q];
    out += fmt("q%-8zu  %9" PRIu64 "  %11" PRIu64 "  %11" PRIu64 "  %5.1f  %9u\n", q, qs.transfers, qs.descriptors,
               qs.bytes, percent(qs.busy_cycles, s.cycles), qs.peak_occupancy);
  }
  out += "stall cycles:";
  for (size_t c = 0; c < sim::kStallCauses; ++c)
    out += fmt(" %s %" PRIu64 "%s", sim::stallCauseName(sim::StallCause(c)), s.stall_cycles[c],
               c + 1 < sim::kStallCauses ? "," : "\n");
  std::vector<sim::StallPair> top = s.topPairs(top_pairs);
  if (!top.empty()) out += "top stalls:\n";
  for (const sim::StallPair& sp : top) out += fmt("  %10" PRIu64 " cycles  ", sp.cycles) + pairText(p, sp) + "\n";
  // sim/stream.h: the interpreter cannot see these, so a disagreement that follows is explained here.
  for (const sim::SimStats::SelfOverlap& so : s.self_overlaps)
    out += "streamed over its own source: " + instructionById(p, so.inst->id) +
           fmt(" writes where it still reads (destination over a source at an offset); chunk by chunk, the result "
               "differed from applying it at once in %" PRIu64 " of %" PRIu64 " executions\n",
               so.differing, so.executions);
  return out;
}

std::string simStatsJson(const Program& p, const sim::SimStats& s, size_t top_pairs) {
  std::string out = fmt("{\"cycles\": %" PRIu64 ", \"instructions\": %" PRIu64 ", \"loop_iterations\": %" PRIu64
                        ", \"engines\": {",
                        s.cycles, s.instructions, s.loop_iterations);
  for (size_t e = 0; e < sim::kEngines; ++e)
    out += fmt("%s\"%s\": {\"instructions\": %" PRIu64 ", \"busy_cycles\": %" PRIu64 "}", e ? ", " : "",
               engineName(Engine(e)), s.engines[e].instructions, s.engines[e].busy_cycles);
  out += fmt("}, \"sequencer_busy_cycles\": %" PRIu64 ", \"queues\": [", s.sequencer_busy_cycles);
  for (size_t q = 0; q < s.queues.size(); ++q) {
    const sim::QueueStats& qs = s.queues[q];
    out += fmt("%s{\"transfers\": %" PRIu64 ", \"descriptors\": %" PRIu64 ", \"bytes\": %" PRIu64
               ", \"busy_cycles\": %" PRIu64 ", \"peak_ring_occupancy\": %u}",
               q ? ", " : "", qs.transfers, qs.descriptors, qs.bytes, qs.busy_cycles, qs.peak_occupancy);
  }
  out += "], \"stall_cycles\": {";
  for (size_t c = 0; c < sim::kStallCauses; ++c)
    out += fmt("%s\"%s\": %" PRIu64, c ? ", " : "", sim::stallCauseName(sim::StallCause(c)), s.stall_cycles[c]);
  out += "}, \"top_stalls\": [";
  std::vector<sim::StallPair> top = s.topPairs(top_pairs);
  for (size_t i = 0; i < top.size(); ++i) {
    const sim::StallPair& sp = top[i];
    out += fmt("%s{\"cause\": \"%s\", \"cycles\": %" PRIu64 ", \"consumer\": ", i ? ", " : "",
               sim::stallCauseName(sp.cause), sp.cycles) +
           jsonString(instructionById(p, sp.consumer->id)) +
           ", \"producer\": " + (sp.producer ? jsonString(instructionById(p, sp.producer->id)) : "null") +
           kernelLineJson("consumer", sp.consumer) + kernelLineJson("producer", sp.producer) +
           ", \"earlier_iteration\": " + (sp.producer && sp.producer == sp.consumer ? "true" : "false") + "}";
  }
  return out + "]}";
}


}  // namespace allocsim::cli
