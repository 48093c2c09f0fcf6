// allocsim show: draws an allocated program's placements over time as SVG (tools/allocation_svg.h).
#include <cstdio>

#include "tools/allocation_svg.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/verbs.h"

namespace allocsim::cli {

static const char kShowHelp[] =
    "usage: allocsim show ALLOCATED [-o MAP.svg]\n"
    "\n"
    "Draws an allocated program (a path, or - for standard input) as an SVG picture: SBUF byte offsets and\n"
    "PSUM banks over time (each placed tensor a box over its live range, inserted spill / reload tensors\n"
    "dashed, spill stores and reloads marked on the time axis) and the SBUF floorplan (partitions x bytes)\n"
    "at the moment of peak use. Hover a box for its exact placement and live range.\n"
    "`allocsim verify --svg MAP.svg` draws the same picture with the first finding in red.\n"
    "\n"
    "  -o MAP.svg   write to MAP.svg instead of standard output\n"
    "\n"
    "exit codes: 0 ok, 2 bad input or usage\n";

int runShow(const Args& args) {
  ArgReader r(args);
  std::string in, out;
  while (!r.done()) {
    if (r.help(kShowHelp)) return kExitOk;
    if (auto v = r.value("-o")) out = *v;
    else if (r.positionalInto(in)) continue;
    else r.unknown();
  }
  if (in.empty()) throw UsageError("show needs an allocated program (a path, or - for standard input)");
  auto program = loadProgram(in);
  if (!program) return kExitBadInput;
  SvgOptions opts;
  opts.title = in == "-" ? "<stdin>" : in;
  writeOutput(out, allocationSvg(*program, opts));
  return kExitOk;
}

}  // namespace allocsim::cli
