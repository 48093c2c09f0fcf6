// The progress line of a long run: one line on standard error, rewritten in place, shown only
// when standard error is a terminal and the verb was not given --quiet, only once the run has taken a second,
// at most five times a second, and erased at the end, so that what stays on standard error is the real messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

#include "ir/progress.h"

namespace allocsim::cli {

class ProgressLine {
 public:
  using Clock = std::function<double()>;  // seconds since some fixed point
  // verb: "verify", ... (the line starts "allocsim verify: "); enabled: show anything at all (see wanted()).
  ProgressLine(std::string verb, bool enabled, std::FILE* out = stderr, Clock clock = {});
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // What the executors call (ir/progress.h), or null when disabled.
  const ProgressFn* fn() const { return enabled_ ? &fn_ : nullptr; }
  void report(const char* phase, uint64_t done, const char* unit);
  void erase();  // removes the line, if one is shown (the destructor does it too)

  // Whether a verb shows progress: standard error is a terminal and --quiet was not given.
  static bool wanted(bool quiet);

 private:
  std::string verb_;
  bool enabled_;
  std::FILE* out_;
  Clock clock_;
  double start_, last_ = -1;
  bool shown_ = false;
  ProgressFn fn_;
};

}  // namespace allocsim::cli
