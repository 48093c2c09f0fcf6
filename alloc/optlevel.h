// The Selection Map (the production allocator, "The Selection Map — which allocator is wired"): walrus_driver's
// normalize-then-switch(optlevel) that decides which allocator family handles SBUF and PSUM.
//
//   assert(allocator=="" || allocator=="coloring" || allocator=="lsa");
//   if (loopsInBackend) optlevel = (optlevel==2) ? 6 : 8;
//   if (SmtAllocation)  optlevel = 7;
//   assert(vncNcCount==1 || (allocator!="lsa" && optlevel!=0 && optlevel!=8));
//   switch (optlevel): 0 minimal | 1/2/3 coloring | 6 coloring with loops | 7 fixed assignment | 8 linear scan
//   then, whatever ran, the REG allocator.
//
// The production asserts are OptionErrors here (exit code 2 at the command line), quoting the assert. The production
// allocator reads the two flags in that order (its line numbers put SmtAllocation first, which would turn smt + loops
// into 8; we follow the pseudocode, so --smt-allocation always means optlevel 7). Choices the production allocator
// leaves open:
// - optlevels outside 0..8, and 4 and 5 (absent from the switch), are OptionErrors;
// - --cores must be at least 1;
// - --allocator lsa is consulted only by the optlevel-6 pipeline (and optlevel 8 always scans); at any other
//   optlevel it would be silently ignored, so it is an OptionError instead;
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace allocsim {

// A bad combination of allocation options (a production assert, or a path that does not exist): usage, not input.
class OptionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class AllocPath : uint8_t {
  NoReuse,            // O0: the minimal pipeline, no reuse (alloc/no_reuse.h)
  Coloring,           // O1/2/3: PSUM colorer, then SBUF colorer with PSUM frozen
  ColoringWithLoops,  // O6: the same colorers over the loop-extended linear order
  FixedAssignment,    // O7: placements of the input reproduced, the rest colored, in-place verified
  LinearScan,         // O8, and O6 with --allocator lsa
};
const char* allocPathName(AllocPath p);

struct SelectionInput {
  int optlevel = 2;
  std::string allocator;  // "", "coloring", "lsa"
  int cores = 1;          // vncNcCount
  bool loops_in_backend = false;
  bool smt_allocation = false;
};

struct Selection {
  int optlevel = 2;  // after the loops-in-backend / smt remaps
  AllocPath path = AllocPath::Coloring;
};

// The map, asserts included; throws OptionError.
Selection selectAllocator(const SelectionInput& in);

// `--allocator NAME` is the one way to pick an allocator; `-O N` picks the effort within it. The production
// compiler names some allocators by optlevel alone, and those optlevels are kept as aliases:
//   --allocator no-reuse   = -O0
//   --allocator coloring   = -O1, -O2 (the default), -O3, -O6 (coloring with loops)
//   --allocator fixed      = -O7 (fixed assignment + in-place write checker)
//   --allocator lsa        = -O8 (with -O6: its loop-aware variant, as the production driver selects it)
//   --allocator exact      at any optlevel (-O7 keeps the input's placements)
// An optlevel that names another allocator than NAME is an OptionError. Returns the optlevel and the allocator
// string the Selection Map reads (SelectionInput, DriverOptions).
struct AllocatorChoice {
  int optlevel = 2;
  std::string allocator;
};
AllocatorChoice resolveAllocator(const std::string& name, std::optional<int> optlevel);

}  // namespace allocsim
