// Replays of a deterministic run, for diagnosis after a cheap first run found that something differs: stop just
// before a given step and look at the storage as that step will see it, or find the n-th executed instruction
// and what it read. Each replay starts from fresh storage made by a factory (same poison seed, same inputs),
// so it retraces the first run exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ir/interp.h"
#include "ir/storage.h"

namespace allocsim {

using StorageFactory = std::function<std::unique_ptr<Storage>()>;

// The storage as it is just before step `step` (1-based) runs: after inputs are loaded and steps 1..step-1 ran.
std::unique_ptr<Storage> stateBefore(const Program& p, const StorageFactory& make, InterpOptions opts, uint64_t step);

// A replay that `observer` watches (reads not recorded) and ends early by throwing a `Stop`; a run that fails ends
// it too. What the observer saw is the result.
template <class Stop>
void replayObserved(const Program& p, const StorageFactory& make, InterpOptions opts, ExecObserver& observer) {
  opts.observer = &observer;
  opts.record_reads = false;
  try {
    std::unique_ptr<Storage> s = make();
    interpret(p, *s, opts);
  } catch (const Stop&) {
  } catch (const InputError&) {
  }
}

// One executed (non-loop) instruction and what it read, with the values it saw.
struct StepCapture {
  const Instruction* inst = nullptr;
  uint64_t step = 0;
  ExecAccess access;
  std::vector<std::vector<uint8_t>> views;  // the bytes of each access.reads entry, before the step ran
  std::vector<uint64_t> registers;          // the values of registerOperands(p, *inst), before the step ran
};

// The `ordinal`-th (0-based) executed non-loop instruction, i.e. InterpResult::reads[ordinal].
// nullopt if the run ends (or fails) before it.
// `term_order` orders the registers of each index (registerOperands).
std::optional<StepCapture> captureExecution(const Program& p, const StorageFactory& make, const InterpOptions& opts,
                                            uint64_t ordinal, const std::vector<RegId>* term_order = nullptr);

}  // namespace allocsim
