// How `allocsim verify` shows a VerifyReport: a readable text report (each finding as
// "file:line:col: [oracle] message" with its notes, then one summary line) or the same as JSON.
#pragma once

#include <cstdint>
#include <string>

#include "verify/verify.h"

namespace allocsim::cli {

std::string verifyReportText(const VerifyReport& r, const std::string& file, uint64_t input_seed);
std::string verifyReportJson(const VerifyReport& r, const std::string& file, uint64_t input_seed);
// `s` as a JSON string literal, quotes included.
std::string jsonString(const std::string& s);

}  // namespace allocsim::cli
