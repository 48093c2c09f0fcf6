// Progress of a long run, for a front end to show: the executors call it every kProgressSteps
// steps with what they are doing and how far they are. Nothing here prints; tools/progress_line.h does.
#pragma once

#include <cstdint>
#include <functional>

namespace allocsim {

// `phase`: what runs ("interpreting", "simulating", "equivalence oracle: allocated", "SBUF colorer, ...");
// `done`: how far it is, counted in `unit` ("steps", "spill rounds", "nodes", ...).
using ProgressFn = std::function<void(const char* phase, uint64_t done, const char* unit)>;

// Calls `f` when there is one.
inline void reportProgress(const ProgressFn* f, const char* phase, uint64_t done, const char* unit) {
  if (f) (*f)(phase, done, unit);
}

inline constexpr uint64_t kProgressSteps = uint64_t(1) << 16;

}  // namespace allocsim
