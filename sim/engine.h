// A compute engine (PE, ACT, DVE, POOL) or the SP scalar unit: a unit of the core model (sim/top.h). It executes
// its FIFO in program order on a clock of its own: an instruction starts at the latest of the engine's clock, its
// dispatch cycle and its producers' ends (RAW/WAR/WAW, the stall attributed to the binding pair), reads its
// operands and writes its results (the interpreter's code, InstructionStepper) once its producers have, and ends a
// latency later.
#pragma once

#include "sim/in_order_unit.h"

namespace allocsim::sim {

class Engine : public sc_core::sc_module, public InOrderUnit<Engine> {
 public:
  Engine(sc_core::sc_module_name name, Shared& shared, uint32_t engine, Fifo& in);
  sc_core::sc_event start;  // the top notifies it when a job begins
  void prepare();           // before a job starts: the engine's clock at the job's start

 private:
  friend class InOrderUnit<Engine>;
  void serve() { serveInOrder(); }
  // Takes the FIFO's head (in `slot`) and executes it: waits for its producers unless Shared::no_value_waits.
  void step(uint32_t slot);
  const uint32_t engine_;
  // clock_ (InOrderUnit): the end of its last instruction's cost
  // Its instructions' results are complete no earlier than this long after their start (sim/timing.h): what depends
  // on them waits for that.
  uint64_t dependent_interval_ = 0;
};

}  // namespace allocsim::sim
