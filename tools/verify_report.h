// How `allocsim verify` shows a VerifyReport: a readable text report (each finding as
// "file:line:col: [oracle] message" with its notes, grouped, then one summary line) or the same as JSON (every
// finding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "verify/verify.h"

namespace allocsim::cli {

// Findings are grouped (tools/finding_groups.h): each group's first in full, then how many more; after
// `max_groups` groups (0 = no limit) only a count of what is left.
std::string verifyReportText(const VerifyReport& r, const std::string& file, uint64_t input_seed,
                             size_t max_groups = 20);
std::string verifyReportJson(const VerifyReport& r, const std::string& file, uint64_t input_seed);
// `s` as a JSON string literal, quotes included. Control characters are escaped as \u00XX, except newline, tab and
// carriage return, which are \n, \t and \r unless `named_escapes` is false.
std::string jsonString(const std::string& s, bool named_escapes = true);

}  // namespace allocsim::cli
