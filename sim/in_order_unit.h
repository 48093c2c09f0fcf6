// What every unit that executes its FIFO in program order (Engine, DmaIssuer) does the same way: its thread's loop
// and the instruction the sequencer has it take at dispatch (Unit). The unit U supplies `step(slot)`, which takes the
// FIFO's head and advances `clock_`; this base holds the FIFO, the shared state and that clock.
#pragma once

#include "sim/quantum_keeper.h"
#include "sim/shared.h"

namespace allocsim::sim {

template <class U>
class InOrderUnit : public Unit {
 public:
  bool stepIfReady() override {
    if (in_.slots.empty()) return false;
    const uint32_t slot = in_.slots.front();
    if (s_.undecided(s_.record(slot).deps)) return false;
    static_cast<U*>(this)->step(slot);
    return true;
  }

 protected:
  InOrderUnit(Shared& s, Fifo& in) : s_(s), in_(in) {}
  ~InOrderUnit() = default;

  // The unit's thread: takes the FIFO's instructions until the job has none left, keeping the quantum on the unit's
  // clock. A failure ends the job (Shared::fail); an abort only ends the loop.
  void serveInOrder() {
    QuantumKeeper keeper(s_);
    try {
      for (;;) {
        const uint32_t slot = s_.nextSlot(in_, s_.dispatch_done);
        if (slot == Shared::kNoSlot) break;
        if (s_.no_value_waits) {
          // The sequencer has the units take their instructions as it dispatches them (Unit); one left here waits
          // for its producers' ends only.
          if (stepIfReady()) keeper.keep(clock_);
          else if (Record* producer = s_.undecided(s_.record(slot).deps))
            s_.waitEvent(producer->known_ev, producer->known_waiting);
          continue;
        }
        static_cast<U*>(this)->step(slot);
        keeper.keep(clock_);
      }
    } catch (const Aborted&) {
    } catch (...) {
      s_.fail(std::current_exception());
    }
  }

  Shared& s_;
  Fifo& in_;
  uint64_t clock_ = 0;  // the unit's own clock
};

}  // namespace allocsim::sim
