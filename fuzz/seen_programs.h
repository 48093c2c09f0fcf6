// The cases this fuzzing process has already run, by a digest of each (fuzz/fuzz_program.h ranBefore: the decoded
// program's text, knob and poison seed): an allocator target returns at once on an input that decodes to one of
// them. Many inputs decode to one case: a mutation of a byte the decoder never reads (past the program's last
// decision), of one whose value a modulo folds onto the same answer, or of a decision the program does not show (a
// pressure that gives the same sizes). Running it again checks nothing new and finds no new coverage (its path is the
// first run's), and it costs a whole execution: allocation and three oracles. Such repeats are a fifth or more of a
// campaign's executions, so skipping them buys executions that test something.
//
// A table of 2^21 digests (16 MB), each at a slot chosen by its bits: a digest that lands on a slot held by another
// replaces it, so the table forgets rather than grows, and a forgotten case is run again.
// Two different cases would have to share all 64 bits to be confused. A crash or a finding reproduces from its file
// in a fresh process, which has run nothing yet.
//
// An input identical to the one just before it is run again only when the execution before it left heap blocks
// (fuzz/execution_heap.h): libFuzzer then reruns the input to look for a leak, and checks for one only if the rerun
// leaves blocks too, so the rerun must do the work. Otherwise it is a mutation that changed nothing and is
// skipped like any repeat. The process counts both kinds. A target that kept state across executions would make every
// execution that adds to it such a rerun, so the targets keep none.
//
// ALLOCSIM_FUZZ_RERUN=1 in the environment runs every execution (a benchmark that replays each input several times,
// bench/fuzz_exec_cost.sh, measures what an execution costs, not what a repeat costs). At exit the process says how
// many executions it skipped, when it skipped any: libFuzzer's exec/s counts them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace allocsim::fuzz {

class SeenPrograms {
 public:
  // A table of 2^slot_bits digests; `on` false remembers nothing (every case runs).
  explicit SeenPrograms(bool on, unsigned slot_bits = 21) : on_(on), slot_bits_(slot_bits) {
    if (on_) slots_.assign(size_t(1) << slot_bits_, 0);
  }
  SeenPrograms(const SeenPrograms&) = delete;
  SeenPrograms& operator=(const SeenPrograms&) = delete;

  // Whether the case with this digest ran before (and is still remembered); remembers it if not. `input` is a
  // digest of the input's bytes; `previous_left_blocks`, whether the execution before this one allocated more heap
  // blocks than it freed (ExecutionHeap::previousLeftBlocks). Then an input identical to that execution's always
  // runs: libFuzzer runs an input a second time after such a run (Fuzzer::TryDetectingAMemoryLeak), and checks for a
  // leak only if the second run leaves blocks too: skipped, it would never check.
  bool ranBefore(uint64_t digest, uint64_t input, bool previous_left_blocks = true) {
    ++executions_;
    const bool same_input = executions_ > 1 && input == last_input_;
    last_input_ = input;
    const bool leak_rerun = same_input && previous_left_blocks;
    leak_check_reruns_ += leak_rerun;
    unchanged_inputs_ += same_input && !previous_left_blocks;
    if (!on_) return false;
    if (digest == 0) digest = 1;  // 0 marks an empty slot
    uint64_t& slot = slots_[(digest * 0x9e3779b97f4a7c15ULL) >> (64 - slot_bits_)];
    if (slot == digest && !leak_rerun) {
      ++skipped_;
      return true;
    }
    slot = digest;
    return false;
  }
  uint64_t executions() const { return executions_; }
  uint64_t skipped() const { return skipped_; }
  // Executions of the input just run: after a run that left heap blocks (always run), and otherwise (skipped when
  // the table is on).
  uint64_t leakCheckReruns() const { return leak_check_reruns_; }
  uint64_t unchangedInputs() const { return unchanged_inputs_; }

  // The process's table, on unless ALLOCSIM_FUZZ_RERUN=1; says at exit how many executions it skipped, if any.
  static SeenPrograms& process() {
    static struct Process {
      SeenPrograms seen{!rerunAll()};
      ~Process() {
        if (seen.skipped_ > 0)
          std::fprintf(stderr,
                       "allocsim: skipped %llu of %llu executions (%.1f %%): each decoded to a case this process had "
                       "already run (fuzz/seen_programs.h)\n",
                       (unsigned long long)seen.skipped_, (unsigned long long)seen.executions_,
                       100.0 * double(seen.skipped_) / double(seen.executions_));
        if (seen.leak_check_reruns_ + seen.unchanged_inputs_ > 0)
          std::fprintf(stderr,
                       "allocsim: %llu executions had the input just run: %llu after a run that left heap blocks "
                       "(libFuzzer's leak check; run again), %llu after one that did not (a mutation that changed "
                       "nothing)\n",
                       (unsigned long long)(seen.leak_check_reruns_ + seen.unchanged_inputs_),
                       (unsigned long long)seen.leak_check_reruns_, (unsigned long long)seen.unchanged_inputs_);
      }
    } process;
    return process.seen;
  }

 private:
  static bool rerunAll() {
    const char* rerun = std::getenv("ALLOCSIM_FUZZ_RERUN");
    return rerun && std::strcmp(rerun, "1") == 0;
  }
  bool on_;
  unsigned slot_bits_;
  std::vector<uint64_t> slots_;
  uint64_t last_input_ = 0;
  uint64_t executions_ = 0;
  uint64_t skipped_ = 0;
  uint64_t leak_check_reruns_ = 0;
  uint64_t unchanged_inputs_ = 0;
};

}  // namespace allocsim::fuzz
