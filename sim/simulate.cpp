#include "sim/simulate.h"

#include <cstdlib>

#include "sim/core.h"

namespace allocsim::sim {

SimResult simulate(const Program& allocated, const SimOptions& opts) {
  // Elaborated once per process (a SystemC kernel cannot be restarted); every call is a job for the same model.
  static Core* core = [] {
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);  // keep the banner off our standard output
    Core* c = new Core("core");  // never destroyed: SystemC tears its objects down at exit
    // Elaborate and run the initialization phase now, so every thread already waits for its first job when the
    // first job's start is notified (a notification made before initialization would be lost).
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    return c;
  }();
  return core->run(allocated, opts);
}

}  // namespace allocsim::sim
