// An allocator's report: the text lines the production allocator prints ("PSUM score = ...", "% SB demand
// before allocation", ...) in the order they were produced, plus the same figures as (key, value) fields that the
// CLI prints as JSON with --json. Shared by every allocator (PSUM, SBUF, REG, LSA): it knows no allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace allocsim {

// Whether reports are built (yes unless a ReportsOff is alive on this thread). A caller that reads no report turns
// them off for a scope: AllocReport::line / set / append then keep nothing, and the passes skip what they compute
// only for their report (its lines, figures, and the input's liveness report of the driver). The allocations are
// the same either way: no pass reads a report. The fuzz targets build the reports on one input in
// kFuzzLimits.reports_every only (fuzz/fuzz_program.h): a report costs a heap allocation per line and figure.
bool reportsOn();
class ReportsOff {
 public:
  explicit ReportsOff(bool off = true);
  ~ReportsOff();
  ReportsOff(const ReportsOff&) = delete;
  ReportsOff& operator=(const ReportsOff&) = delete;

 private:
  bool saved_;
};

struct ReportField {
  enum class Kind : uint8_t { Integer, Number, Text } kind = Kind::Text;
  std::string key;
  std::string value;  // already formatted; Integer and Number values are valid JSON numbers (or "inf")
  bool operator==(const ReportField&) const = default;
};

struct AllocReport {
  std::vector<std::string> lines;
  std::vector<ReportField> fields;

  void line(std::string text) {
    if (reportsOn()) lines.push_back(std::move(text));
  }
  // Setting a key that exists replaces its value in place, so a figure updated per round keeps its position.
  // Key and value are taken by value and moved in: every allocation builds a report, and a copy of each key
  // (most are longer than a short string's inline room) would be a heap allocation per figure.
  void set(std::string key, int64_t value);
  void set(std::string key, double value);
  void set(std::string key, std::string value);
  // A literal key: nothing is built (not even the key) while reports are off.
  template <size_t N, typename V>
  void set(const char (&key)[N], V&& value) {
    if (reportsOn()) set(std::string(key, N - 1), std::forward<V>(value));
  }
  const ReportField* find(const std::string& key) const;
  // Appends another report's lines and fields (a pipeline of allocators builds one report); the rvalue form
  // moves them instead of copying.
  void append(const AllocReport& other);
  void append(AllocReport&& other);
  bool operator==(const AllocReport&) const = default;
};

// A double as the reports print it: fixed, at most `decimals` decimals, trailing zeros dropped ("37.5", "100",
// "inf"). Deterministic: no locale, no shortest-representation search.
std::string formatReportNumber(double value, int decimals = 2);

// {"key": value, ...} in field order; Text values quoted and escaped; a non-finite Number prints as a string.
std::string reportToJson(const AllocReport& r);

}  // namespace allocsim
