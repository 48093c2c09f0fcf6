// A double as reports and messages print it: fixed, at most `decimals` decimals, trailing zeros dropped ("37.5",
// "100", "inf"). Deterministic: no locale, no shortest-representation search.
#pragma once

#include <string>

namespace allocsim {

std::string formatReportNumber(double value, int decimals = 2);

}  // namespace allocsim
