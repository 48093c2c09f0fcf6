// Runs the allocsim binary as a user would (from the source directory), for the CLI tests.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace allocsim {

struct CliRun {
  int exit_code = -1;
  std::string out;
};

// `streams` is appended to the command line: "2>&1" (default: stdout and stderr), "2>/dev/null", ...
inline CliRun allocsim(const std::string& args, const std::string& streams = "2>&1") {
  std::string cmd = std::string("cd ") + ALLOCSIM_SOURCE_DIR + " && " + ALLOCSIM_BINARY + " " + args + " " + streams;
  CliRun r;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  int status = pclose(f);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Whether `s` (a run's output) contains `part`.
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace allocsim
