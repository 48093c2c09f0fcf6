#include "tools/progress_line.h"

#include <unistd.h>

namespace allocsim::cli {
namespace {

constexpr double kFirstAfterSeconds = 1.0;
constexpr double kEverySeconds = 0.2;

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// 1234567 -> "1,234,567"
std::string grouped(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

}  // namespace

ProgressLine::ProgressLine(std::string verb, bool enabled, std::FILE* out, Clock clock)
    : verb_(std::move(verb)), enabled_(enabled), out_(out), clock_(clock ? std::move(clock) : Clock(steadySeconds)) {
  start_ = clock_();
  fn_ = [this](const char* phase, uint64_t done, const char* unit) { report(phase, done, unit); };
}

ProgressLine::~ProgressLine() { erase(); }

void ProgressLine::report(const char* phase, uint64_t done, const char* unit) {
  if (!enabled_) return;
  const double now = clock_();
  if (now - start_ < kFirstAfterSeconds || (last_ >= 0 && now - last_ < kEverySeconds)) return;
  last_ = now;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", now - start_);
  // "\r\033[K": back to the line's start and clear it (a terminal is the only place this is written).
  std::fprintf(out_, "\r\033[Kallocsim %s: %s: %s %s (%s s)", verb_.c_str(), phase, grouped(done).c_str(), unit, secs);
  std::fflush(out_);
  shown_ = true;
}

void ProgressLine::erase() {
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
}

bool ProgressLine::wanted(bool quiet) { return !quiet && isatty(2); }

}  // namespace allocsim::cli
