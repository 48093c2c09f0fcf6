// An allocator's report as the CLI prints it: the text lines the production allocator prints ("PSUM score = ...",
// "% SB demand before allocation", ...) in the order they were produced, plus the same figures as (key, value)
// fields that the CLI prints as JSON with --json. Built from the allocators' counters by tools/report_format.h; it
// knows no allocator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "alloc/number_text.h"

namespace allocsim {

struct ReportField {
  enum class Kind : uint8_t { Integer, Number, Text } kind = Kind::Text;
  std::string key;
  std::string value;  // already formatted; Integer and Number values are valid JSON numbers (or "inf")
  bool operator==(const ReportField&) const = default;
};

struct AllocReport {
  std::vector<std::string> lines;
  std::vector<ReportField> fields;

  void line(std::string text) { lines.push_back(std::move(text)); }
  // Setting a key that exists replaces its value in place.
  void set(std::string key, int64_t value);
  void set(std::string key, double value);
  void set(std::string key, std::string value);
  const ReportField* find(const std::string& key) const;
  // Appends another report's lines and fields (a pipeline of allocators builds one report); the rvalue form
  // moves them instead of copying.
  void append(const AllocReport& other);
  void append(AllocReport&& other);
  bool operator==(const AllocReport&) const = default;
};

// {"key": value, ...} in field order; Text values quoted and escaped; a non-finite Number prints as a string.
std::string reportToJson(const AllocReport& r);

}  // namespace allocsim
