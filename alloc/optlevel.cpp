#include "alloc/optlevel.h"

namespace allocsim {

const char* allocPathName(AllocPath p) {
  switch (p) {
    case AllocPath::NoReuse: return "no-reuse";
    case AllocPath::Coloring: return "coloring";
    case AllocPath::ColoringWithLoops: return "coloring-with-loops";
    case AllocPath::FixedAssignment: return "fixed-assignment";
    case AllocPath::LinearScan: return "linear-scan";
  }
  return "?";
}

Selection selectAllocator(const SelectionInput& in) {
  const std::string& allocator = in.allocator;
  if (!(allocator.empty() || allocator == "coloring" || allocator == "lsa"))
    throw OptionError("unknown allocator '" + allocator +
                      "' (expected coloring or lsa; the driver asserts allocator==\"\" || allocator==\"coloring\" || "
                      "allocator==\"lsa\")");
  if (in.cores < 1) throw OptionError("--cores must be at least 1, got " + std::to_string(in.cores));
  if (in.optlevel < 0 || in.optlevel > 8)
    throw OptionError("optlevel " + std::to_string(in.optlevel) + " is out of range 0..8");

  Selection s;
  s.optlevel = in.optlevel;
  if (in.loops_in_backend) s.optlevel = (s.optlevel == 2) ? 6 : 8;
  if (in.smt_allocation) s.optlevel = 7;
  const bool lsa = allocator == "lsa";
  if (!(in.cores == 1 || (!lsa && s.optlevel != 0 && s.optlevel != 8)))
    throw OptionError(std::to_string(in.cores) + " cores need a multi-core allocator, but " +
                      (lsa ? std::string("--allocator lsa") : "optlevel " + std::to_string(s.optlevel)) +
                      " is single-core only (the driver asserts vncNcCount==1 || (allocator!=\"lsa\" && "
                      "optlevel!=0 && optlevel!=8))");

  switch (s.optlevel) {
    case 0: s.path = AllocPath::NoReuse; break;
    case 1:
    case 2:
    case 3: s.path = AllocPath::Coloring; break;
    case 6: s.path = lsa ? AllocPath::LinearScan : AllocPath::ColoringWithLoops; break;
    case 7: s.path = AllocPath::FixedAssignment; break;
    case 8: s.path = AllocPath::LinearScan; break;
    default:
      throw OptionError("optlevel " + std::to_string(s.optlevel) +
                        " does not exist (the selection map has 0, 1, 2, 3, 6, 7 and 8)");
  }
  if (lsa && s.path != AllocPath::LinearScan)
    throw OptionError("--allocator lsa takes effect only at optlevel 6 (optlevel 8 always uses the linear-scan "
                      "allocator); optlevel " + std::to_string(s.optlevel) + " runs the " +
                      allocPathName(s.path) + " path");
  return s;
}

AllocatorChoice resolveAllocator(const std::string& name, std::optional<int> optlevel) {
  auto family = [](int level) -> std::string {
    switch (level) {
      case 0: return "no-reuse";
      case 7: return "fixed";
      case 8: return "lsa";
      default: return "coloring";
    }
  };
  auto only = [&](int alias) {
    if (optlevel && *optlevel != alias)
      throw OptionError("--allocator " + name + " is -O" + std::to_string(alias) + "; -O" + std::to_string(*optlevel) +
                        " is --allocator " + family(*optlevel));
    return AllocatorChoice{alias, ""};
  };
  // The names the command line takes (the driver's own check knows only those it is given after this mapping).
  if (!(name.empty() || name == "coloring" || name == "no-reuse" || name == "fixed" || name == "lsa" ||
        name == "exact"))
    throw OptionError("unknown allocator '" + name + "' (expected coloring, no-reuse, fixed, lsa or exact)");
  if (name == "no-reuse") return only(0);
  if (name == "fixed") return only(7);
  if (name == "lsa") {
    const int level = optlevel.value_or(8);
    return AllocatorChoice{level, level == 8 ? "" : "lsa"};  // -O8 is the linear scan whatever the name says
  }
  if (name == "coloring" && optlevel && (*optlevel == 0 || *optlevel == 7 || *optlevel == 8))
    throw OptionError("--allocator coloring runs at -O1, -O2, -O3 or -O6; -O" + std::to_string(*optlevel) +
                      " is --allocator " + family(*optlevel));
  return AllocatorChoice{optlevel.value_or(2), name};  // "", "coloring", "exact"; others: selectAllocator's error
}

}  // namespace allocsim
