#include "sim/trace_json.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "ir/print.h"

namespace allocsim::sim {
namespace {

std::string jsonText(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += char(c);
  }
  return out + "\"";
}

std::string micros(uint64_t cycles, double clock_ghz) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6f", double(cycles) / (clock_ghz * 1000.0));
  return buf;
}

std::string instructionText(const Program& p, const Instruction& i) {
  std::string text = printInstruction(p, i);
  if (hasBody(i.op)) text = text.substr(0, text.find('{')) + "{...}";
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  return text;
}

}  // namespace

std::string trackName(uint32_t track) {
  static const char* const kNames[] = {"PE", "ACT", "DVE", "POOL", "SP", "DMA issue", "SP sequencer (loops)"};
  if (track < 7) return kNames[track];
  return "DMA queue " + std::to_string(track - 7);
}

void writeTraceEventJson(std::ostream& out, const Program& p, const Trace& t, uint32_t queues, double clock_ghz) {
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  out << "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"allocsim core (" +
             p.arch.name + ")\"}}";
  for (uint32_t track = 0; track < 7 + queues; ++track) {
    out << ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(track) +
               ", \"args\": {\"name\": " + jsonText(trackName(track)) + "}}";
    out << ",\n{\"name\": \"thread_sort_index\", \"ph\": \"M\", \"pid\": 1, \"tid\": " + std::to_string(track) +
               ", \"args\": {\"sort_index\": " + std::to_string(track) + "}}";
  }
  for (const TraceSlice& s : t.slices) {
    out << ",\n{\"name\": " + jsonText(opName(s.inst->op)) + ", \"cat\": " + jsonText(trackName(s.track)) +
               ", \"ph\": \"X\", \"pid\": 1, \"tid\": " + std::to_string(s.track) + ", \"ts\": " +
               micros(s.start, clock_ghz) + ", \"dur\": " + micros(s.end - s.start, clock_ghz) +
               ", \"args\": {\"line\": " + std::to_string(s.inst->loc.line) + ", \"instruction\": " +
               jsonText(instructionText(p, *s.inst)) + ", \"start_cycle\": " + std::to_string(s.start) +
               ", \"end_cycle\": " + std::to_string(s.end) + "}}";
  }
  for (const TraceCounter& c : t.ring_occupancy)
    out << ",\n{\"name\": \"ring q" + std::to_string(c.queue) + " slots in use\", \"ph\": \"C\", \"pid\": 1, \"tid\": " +
               std::to_string(7 + c.queue) + ", \"ts\": " + micros(c.cycle, clock_ghz) +
               ", \"args\": {\"slots\": " + std::to_string(c.value) + "}}";
  out << "\n]}\n";
}

std::string traceEventJson(const Program& p, const Trace& t, uint32_t queues, double clock_ghz) {
  std::ostringstream out;
  writeTraceEventJson(out, p, t, queues, clock_ghz);
  return std::move(out).str();
}

}  // namespace allocsim::sim
