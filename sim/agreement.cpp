#include "sim/agreement.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "ir/print.h"

namespace allocsim::sim {
namespace {

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

}  // namespace

std::string instructionById(const Program& p, uint32_t id) {
  std::string out;
  forEachInstruction(p.body, [&](const Instruction& i) {
    if (i.id == id && out.empty()) {
      std::string text = printInstruction(p, i);
      if (hasBody(i.op)) text = text.substr(0, text.find('{')) + "{...}";
      while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
      out = "line " + std::to_string(i.loc.line) + " `" + text + "`";
    }
  });
  return out;
}

std::optional<std::string> simulatorDisagreement(const Program& p, const InterpResult& sim, const InterpResult& ref) {
  const size_t n = std::min(sim.reads.size(), ref.reads.size());
  for (size_t i = 0; i < n; ++i) {
    const std::string at = "executed instruction " + std::to_string(i);
    if (sim.reads[i].inst_id != ref.reads[i].inst_id)
      return at + " differs: the simulator ran " + instructionById(p, sim.reads[i].inst_id) + ", the interpreter " +
             instructionById(p, ref.reads[i].inst_id);
    if (sim.reads[i].hash != ref.reads[i].hash)
      return at + ", " + instructionById(p, sim.reads[i].inst_id) +
             ", read other operand values in the simulator (hash " + hex(sim.reads[i].hash) +
             ") than in the interpreter (" + hex(ref.reads[i].hash) + ")";
  }
  if (sim.reads.size() != ref.reads.size() || sim.steps != ref.steps)
    return "the simulator executed " + std::to_string(sim.steps) + " steps, the interpreter " +
           std::to_string(ref.steps);
  for (TensorId t = 0; t < p.tensors.size() && t < sim.outputs.size() && t < ref.outputs.size(); ++t)
    if (sim.outputs[t] != ref.outputs[t])
      return "output '" + p.tensors[t].name + "' differs between the simulator and the interpreter";
  return std::nullopt;
}

}  // namespace allocsim::sim
