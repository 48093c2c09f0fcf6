#include "tools/alloc_output.h"

#include "ir/print.h"
#include "tools/report_format.h"
#include "tools/verify_report.h"

namespace allocsim::cli {

static AllocReport livenessOf(const DriverResult& r) {
  return r.liveness ? formatLiveness(*r.liveness) : AllocReport{};
}

std::string driverReportText(const DriverResult& r) {
  std::string out = "optlevel " + std::to_string(r.selection.optlevel) + ": " + allocPathName(r.selection.path) +
                    " path\n";
  for (const StepStats& step : r.steps) {
    out += "[" + stepName(step) + "]\n";
    for (const std::string& line : formatStep(step).lines) out += "  " + line + "\n";
  }
  out += "[liveness]\n";
  for (const std::string& line : livenessOf(r).lines) out += "  " + line + "\n";
  return out;
}

// Every tensor and register with its placement, so a script can read where everything went without parsing the
// program text; inserted items name the value they hold ("copy_of").
static std::string placementsJson(const Program& p) {
  std::string out = "\"tensors\": [";
  for (size_t i = 0; i < p.tensors.size(); ++i) {
    const Tensor& t = p.tensors[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"name\": " + jsonString(t.name) +
           ", \"space\": " + jsonString(spaceName(t.space)) + ", \"partitions\": " + std::to_string(t.partitions) +
           ", \"elements\": " + std::to_string(t.elements) + ", \"dtype\": " + jsonString(dtypeName(t.dtype)) +
           ", \"bytes_per_partition\": " + std::to_string(t.bytesPerPartition()) +
           ", \"origin\": " + jsonString(originName(t.origin));
    if (t.copy_of != kNone) out += ", \"copy_of\": " + jsonString(p.tensors[t.copy_of].name);
    if (t.pinned) out += ", \"pinned\": true";
    if (t.placement) {
      const Placement& pl = *t.placement;
      switch (t.space) {
        case Space::Sbuf:
          out += ", \"partition\": " + std::to_string(pl.partition) + ", \"offset\": " + std::to_string(pl.offset);
          break;
        case Space::Psum: out += ", \"bank\": " + std::to_string(pl.bank); break;
        case Space::Dram: out += ", \"offset\": " + std::to_string(pl.offset); break;
      }
    }
    out += "}";
  }
  out += "],\n \"registers\": [";
  for (size_t i = 0; i < p.registers.size(); ++i) {
    const Register& reg = p.registers[i];
    out += std::string(i ? ", " : "") + "{\"name\": " + jsonString(reg.name) + ", \"width\": " +
           std::to_string(reg.width) + ", \"origin\": " + jsonString(originName(reg.origin));
    if (reg.phys) out += ", \"phys\": " + std::to_string(*reg.phys);
    out += "}";
  }
  out += "],\n \"inserted\": [";
  bool first = true;
  forEachInstruction(p.body, [&](const Instruction& inst) {
    if (inst.origin == Origin::Source) return;
    out += std::string(first ? "\n  " : ",\n  ") + "{\"index\": " + std::to_string(inst.id) +
           ", \"origin\": " + jsonString(originName(inst.origin)) + ", \"text\": " +
           jsonString(printInstruction(p, inst)) + "}";
    first = false;
  });
  return out + "]";
}

std::string driverReportJson(const DriverResult& r, const std::string& file, const std::string& verify_json) {
  std::string out = "{\"file\": " + jsonString(file) + ", \"optlevel\": " + std::to_string(r.selection.optlevel) +
                    ", \"path\": " + jsonString(allocPathName(r.selection.path)) + ",\n \"reports\": [";
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const AllocReport report = formatStep(r.steps[i]);
    std::string fields = reportToJson(report);  // "{...}"
    std::string lines = "\"lines\": [";
    for (size_t k = 0; k < report.lines.size(); ++k) lines += (k ? ", " : "") + jsonString(report.lines[k]);
    lines += "]";
    fields.pop_back();
    out += std::string(i ? ",\n  " : "\n  ") + fields + (fields.size() > 1 ? ", " : "") + lines + "}";
  }
  out += "],\n \"liveness\": " + reportToJson(livenessOf(r)) + ",\n " + placementsJson(r.program);
  if (!verify_json.empty()) {
    std::string v = verify_json;
    while (!v.empty() && v.back() == '\n') v.pop_back();
    out += ",\n \"verify\": " + v;
  }
  return out + "}\n";
}

}  // namespace allocsim::cli
