#include "tools/verify_report.h"

#include <cstdio>

#include "tools/finding_groups.h"

namespace allocsim::cli {

std::string jsonString(const std::string& s, bool named_escapes) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n':
      case '\t':
      case '\r':
        if (named_escapes) {
          out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
          break;
        }
        [[fallthrough]];
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string verifyReportText(const VerifyReport& r, const std::string& file, uint64_t input_seed, size_t max_groups) {
  std::string out;
  const std::vector<FindingGroup> groups = groupFindings(r.findings);
  size_t shown = 0, hidden_findings = 0;
  for (const FindingGroup& g : groups) {
    if (max_groups && shown == max_groups) {
      hidden_findings += g.count();
      continue;
    }
    ++shown;
    const Finding& f = r.findings[g.first];
    out += f.format(file);
    if (!g.rest.empty())
      out += "    and " + std::to_string(g.rest.size()) + " more [" + oracleName(f.oracle) + "] " + findingKindName(f.kind) +
             " finding" + (g.rest.size() == 1 ? "" : "s") +
             (f.region.present() ? " about the same tensors" : " at the same instruction") + "\n";
  }
  if (shown < groups.size())
    out += file + ": " + std::to_string(hidden_findings) + " more finding" + (hidden_findings == 1 ? "" : "s") +
           " in " + std::to_string(groups.size() - shown) + " more group" +
           (groups.size() - shown == 1 ? "" : "s") + " not shown (--all prints every group, --json every finding)\n";
  std::string seeds = "input seed " + std::to_string(input_seed) + ", poison seed " + std::to_string(r.poison_seed) +
                      (r.against_original ? "; reference: the original, matched instruction for instruction"
                                          : "; reference recovered from the allocated program");
  if (r.ok()) return out + file + ": ok: equivalence, symbolic and placement checks pass (" + seeds + ")\n";
  std::string counts;
  for (const OracleRun& o : r.oracles) {
    if (!counts.empty()) counts += ", ";
    counts += std::string(oracleName(o.oracle)) + " " + std::to_string(o.findings);
  }
  return out + file + ": FAILED: findings by oracle: " + counts + " (" + seeds + "; rerun with --poison-seed " +
         std::to_string(r.poison_seed) + " to reproduce)\n";
}

std::string verifyReportJson(const VerifyReport& r, const std::string& file, uint64_t input_seed) {
  std::string out = "{\"file\": " + jsonString(file) + ", \"ok\": " + (r.ok() ? "true" : "false") +
                    ", \"input_seed\": " + std::to_string(input_seed) +
                    ", \"poison_seed\": " + std::to_string(r.poison_seed) +
                    ", \"reference\": " + (r.against_original ? "\"original\"" : "\"recovered\"") + ",\n \"oracles\": [";
  for (size_t i = 0; i < r.oracles.size(); ++i) {
    const OracleRun& o = r.oracles[i];
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.6f", o.seconds);
    out += std::string(i ? ",\n  " : "\n  ") + "{\"oracle\": " + jsonString(oracleName(o.oracle)) +
           ", \"ran\": " + (o.ran ? "true" : "false") + ", \"seconds\": " + secs +
           ", \"findings\": " + std::to_string(o.findings) + "}";
  }
  out += "],\n \"findings\": [";
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    out += std::string(i ? ",\n  " : "\n  ") + "{\"oracle\": " + jsonString(oracleName(f.oracle)) +
           ", \"kind\": " + jsonString(findingKindName(f.kind)) + ", \"line\": " + std::to_string(f.loc.line) +
           ", \"col\": " + std::to_string(f.loc.col) + ", \"step\": " + std::to_string(f.step) +
           ", \"message\": " + jsonString(f.message) + ", \"location\": " +
           jsonString(formatDiagnostic(file, Diagnostic{f.loc, f.message})) + ", \"notes\": [";
    for (size_t n = 0; n < f.notes.size(); ++n) out += (n ? ", " : "") + jsonString(f.notes[n]);
    out += "]}";
  }
  out += "]}\n";
  return out;
}

}  // namespace allocsim::cli
