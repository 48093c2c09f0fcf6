// Running a command with a time limit (POSIX): its standard input given, its standard output and error captured.
// The command runs in its own process group, so a timeout kills whatever it started too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allocsim {

struct ProcessResult {
  bool started = false;   // false: fork or exec failed (error says why; exec failure shows as exit code 127)
  bool timed_out = false;
  int exit_code = 0;      // when it exited
  int signal = 0;         // when a signal killed it (not counting our own kill on timeout)
  bool output_limit = false;  // its standard output passed `max_output` bytes: it was killed there
  std::string out, err;   // captured, each cut at `max_output` bytes
  double seconds = 0;
  std::string error;
};

struct ProcessOptions {
  double timeout_seconds = 10;
  size_t max_output = size_t(64) << 20;  // standard output beyond this kills the command (standard error is cut)
};

ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& input, const ProcessOptions& opts);

}  // namespace allocsim
