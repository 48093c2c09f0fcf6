#include "tools/alloc_output.h"

#include "tools/verify_report.h"

namespace allocsim::cli {

static std::string stepName(const AllocReport& r) {
  const ReportField* f = r.find("allocator");
  return f ? f->value : "?";
}

std::string driverReportText(const DriverResult& r) {
  std::string out = "optlevel " + std::to_string(r.selection.optlevel) + ": " + allocPathName(r.selection.path) +
                    " path\n";
  for (const AllocReport& rep : r.reports) {
    out += "[" + stepName(rep) + "]\n";
    for (const std::string& line : rep.lines) out += "  " + line + "\n";
  }
  return out;
}

std::string driverReportJson(const DriverResult& r, const std::string& file, const std::string& verify_json) {
  std::string out = "{\"file\": " + jsonString(file) + ", \"optlevel\": " + std::to_string(r.selection.optlevel) +
                    ", \"path\": " + jsonString(allocPathName(r.selection.path)) + ",\n \"reports\": [";
  for (size_t i = 0; i < r.reports.size(); ++i) {
    std::string fields = reportToJson(r.reports[i]);  // "{...}"
    std::string lines = "\"lines\": [";
    for (size_t k = 0; k < r.reports[i].lines.size(); ++k) lines += (k ? ", " : "") + jsonString(r.reports[i].lines[k]);
    lines += "]";
    fields.pop_back();
    out += std::string(i ? ",\n  " : "\n  ") + fields + (fields.size() > 1 ? ", " : "") + lines + "}";
  }
  out += "]";
  if (!verify_json.empty()) {
    std::string v = verify_json;
    while (!v.empty() && v.back() == '\n') v.pop_back();
    out += ",\n \"verify\": " + v;
  }
  return out + "}\n";
}

}  // namespace allocsim::cli
