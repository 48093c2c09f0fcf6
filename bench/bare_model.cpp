#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "bench/bare_model.h"

#include <systemc>

#include <exception>
#include <stdexcept>

#include "sim/kernel_thread.h"

namespace allocsim::bench {

std::vector<std::vector<uint64_t>> bareTracks(const sim::Trace& t) {
  std::vector<std::vector<uint64_t>> tracks;
  for (const sim::TraceSlice& s : t.slices) {
    if (s.track >= tracks.size()) tracks.resize(s.track + 1);
    tracks[s.track].push_back(s.end - s.start);
  }
  return tracks;
}

uint64_t simulateBare(const std::vector<std::vector<uint64_t>>& tracks) {
  constexpr uint64_t kPsPerCycle = 1000;  // the full model's time unit (one cycle = 1 ns)
  std::exception_ptr error;
  sim::onKernelThread([&] {
    try {
      if (sc_core::sc_get_status() != sc_core::SC_PAUSED)
        throw std::logic_error("simulateBare: no elaborated model (simulate a program first)");
      for (const std::vector<uint64_t>& track : tracks) {
        if (track.empty()) continue;
        sc_core::sc_spawn([&track] {
          for (uint64_t latency : track) sc_core::wait(sc_core::sc_time::from_value(latency * kPsPerCycle));
        });
      }
      sc_core::sc_start();
    } catch (...) {
      error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
  uint64_t n = 0;
  for (const auto& t : tracks) n += t.size();
  return n;
}

}  // namespace allocsim::bench
