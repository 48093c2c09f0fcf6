// What a fuzzing process keeps of the cases it checked in full, so that a case that differs from one of them only in
// its poison seed runs only what the seed changes (fuzz/fuzz_program.h checkedBefore, requireCorrect).
//
// libFuzzer mutates the eight input bytes the poison seed is read from like any other: in 90 s of coloring_driver
// from its campaign corpus (inputs of at most 64 bytes), 36,692 of the 67,820 cases it ran (54 %; the outright repeats
// fuzz/seen_programs.h skips not counted) had the program, knob and seed decisions of a case it had run before, with
// another poison seed, and a table of the last 1,024 keys caught 98 % of them (docs/fuzzing.md, item 92). The
// allocation does not depend on the poison seed, nor do the checks of its result (well-formedness, the placement
// oracle, the O7 re-placement, the equivalence oracle's reference run): only the allocated program's run on storage
// poisoned from the seed does (the equivalence oracle's physical run), and whether the symbolic oracle runs (one
// seed in four). So an entry keeps the allocated program and its equivalence oracle with the reference run made
// (verify/equivalence.h EquivalenceOracle), and such a case runs the allocated program once under its own poison
// against it, and the symbolic oracle when its seed asks for it and it has not run on this allocation yet. A refusal
// is kept too: a refused case is refused again.
//
// A finding of such a run reproduces from its file in a fresh process, which checks the case in full: the same
// allocation, the same poison. Entries sit at a slot chosen by their key's bits and a new key replaces the slot's
// entry: the table forgets (and reruns in full) rather than grows. ALLOCSIM_FUZZ_RERUN=1 runs every case in full, as
// it runs every repeat (fuzz/seen_programs.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "fuzz/seen_programs.h"
#include "ir/program.h"
#include "verify/equivalence.h"

namespace allocsim::fuzz {

// One case checked in full: refused by the allocator, or its allocated program passed every check.
struct KnownCase {
  uint64_t key = 0;
  bool refused = false;
  Program original, allocated;
  std::unique_ptr<EquivalenceOracle> equivalence;  // on `allocated`, against `original`
  bool symbolic_ran = false;                       // the symbolic oracle passed on `allocated`
};

class KnownCases {
 public:
  // A table of 2^slot_bits entries; `on` false keeps nothing (every case is checked in full).
  explicit KnownCases(bool on, unsigned slot_bits = 10) : on_(on), slot_bits_(slot_bits) {
    if (on_) slots_.resize(size_t(1) << slot_bits_);
  }
  KnownCases(const KnownCases&) = delete;
  KnownCases& operator=(const KnownCases&) = delete;

  // The case checked in full with this key, if it is still kept.
  KnownCase* find(uint64_t key) {
    if (!on_) return nullptr;
    KnownCase* c = slots_[slot(key)].get();
    if (!c || c->key != key) return nullptr;
    ++reruns_;
    return c;
  }
  // Keeps a case with this key, in place of the one in its slot; the caller fills it in. Null when off.
  KnownCase* keep(uint64_t key) {
    if (!on_) return nullptr;
    std::unique_ptr<KnownCase>& s = slots_[slot(key)];
    s = std::make_unique<KnownCase>();
    s->key = key;
    return s.get();
  }
  uint64_t reruns() const { return reruns_; }

  // The process's table, on unless ALLOCSIM_FUZZ_RERUN=1; says at exit how many cases it ran only in part.
  static KnownCases& process() {
    static struct Process {
      KnownCases known{!SeenPrograms::rerunAll()};
      ~Process() {
        if (known.reruns_ > 0)
          std::fprintf(stderr,
                       "allocsim: %llu executions differed from a case this process had checked only in the poison "
                       "seed: they ran the allocated program under it, not the allocation (fuzz/known_cases.h)\n",
                       static_cast<unsigned long long>(known.reruns_));
      }
    } p;
    return p.known;
  }

 private:
  size_t slot(uint64_t key) const { return size_t((key * 0x9e3779b97f4a7c15ULL) >> (64 - slot_bits_)); }

  bool on_;
  unsigned slot_bits_;
  std::vector<std::unique_ptr<KnownCase>> slots_;
  uint64_t reruns_ = 0;
};

}  // namespace allocsim::fuzz
