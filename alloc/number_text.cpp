#include "alloc/number_text.h"

#include <cmath>
#include <cstdio>

namespace allocsim {

std::string formatReportNumber(double value, int decimals) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (decimals < 0) decimals = 0;
  if (decimals > 9) decimals = 9;
  char buf[64];
  // Values beyond 1e18 lose nothing a report needs by printing in exponent form.
  if (std::fabs(value) >= 1e18) std::snprintf(buf, sizeof buf, "%.6e", value);
  else std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s = buf;
  if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace allocsim
