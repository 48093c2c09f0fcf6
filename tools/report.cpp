#include "tools/report.h"

#include <cmath>
#include <cstdio>
#include <iterator>
#include <utility>

#include "tools/verify_report.h"

namespace allocsim {
namespace {

constexpr size_t kFieldsPerPass = 24;

void put(std::vector<ReportField>& fields, ReportField&& f) {
  for (ReportField& g : fields)
    if (g.key == f.key) {
      g = std::move(f);
      return;
    }
  // One allocation for a pass's figures (15-20 each) instead of a growth step every power of two.
  if (fields.empty()) fields.reserve(kFieldsPerPass);
  fields.push_back(std::move(f));
}

// Report fields escape every control character as \u00XX.
std::string jsonString(const std::string& s) { return cli::jsonString(s, false); }

}  // namespace

void AllocReport::set(std::string key, int64_t value) {
  put(fields, {ReportField::Kind::Integer, std::move(key), std::to_string(value)});
}
void AllocReport::set(std::string key, double value) {
  put(fields, {ReportField::Kind::Number, std::move(key), formatReportNumber(value, 6)});
}
void AllocReport::set(std::string key, std::string value) {
  put(fields, {ReportField::Kind::Text, std::move(key), std::move(value)});
}

const ReportField* AllocReport::find(const std::string& key) const {
  for (const ReportField& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

void AllocReport::append(const AllocReport& other) {
  lines.insert(lines.end(), other.lines.begin(), other.lines.end());
  for (const ReportField& f : other.fields) put(fields, ReportField(f));
}

void AllocReport::append(AllocReport&& other) {
  if (lines.empty()) lines = std::move(other.lines);
  else lines.insert(lines.end(), std::make_move_iterator(other.lines.begin()), std::make_move_iterator(other.lines.end()));
  for (ReportField& f : other.fields) put(fields, std::move(f));
  other.lines.clear();
  other.fields.clear();
}

std::string reportToJson(const AllocReport& r) {
  std::string out = "{";
  for (size_t i = 0; i < r.fields.size(); ++i) {
    const ReportField& f = r.fields[i];
    if (i) out += ", ";
    out += jsonString(f.key) + ": ";
    bool number = f.kind != ReportField::Kind::Text && f.value != "inf" && f.value != "-inf" && f.value != "nan";
    out += number ? f.value : jsonString(f.value);
  }
  return out + "}";
}

}  // namespace allocsim
