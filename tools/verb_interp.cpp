// allocsim interp: run a program on the reference interpreter and report its outputs.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "ir/hash.h"
#include "ir/interp.h"
#include "tools/progress_line.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/output_dump.h"
#include "tools/verbs.h"

namespace allocsim::cli {

static const char kInterpHelp[] =
    "usage: allocsim interp PROGRAM [--seed S] [--input NAME=FILE ...] [--dump] [--json] [--outputs-dir DIR] [--quiet]\n"
    "\n"
    "Checks PROGRAM and runs it on the reference interpreter (every tensor in its own storage, bit-exact\n"
    "semantics of docs/format.md). Input tensors are filled from --seed. Prints, per output tensor, its\n"
    "shape and a 64-bit hash of its bytes; --dump prints the values too.\n"
    "\n"
    "  --seed S     seed of the input data (default 1)\n"
    "  --input NAME=FILE  input tensor NAME's data: raw little-endian row-major bytes (instead of --seed's)\n"
    "  --dump       print every output value\n"
    "  --outputs-dir DIR  also write each output tensor's bytes (raw, row-major) to DIR/NAME.bin\n"
    "  --json       print the result as JSON\n"
    "  --quiet      no progress line (shown on a terminal once a run takes a second)\n"
    "\n"
    "exit codes: 0 ok, 2 bad input\n";

int runInterp(const Args& args) {
  ArgReader r(args);
  std::string in;
  uint64_t seed = 1;
  bool dump = false, json = false, quiet = false;
  std::string outputs_dir;
  while (!r.done()) {
    if (r.help(kInterpHelp)) return kExitOk;
    if (auto v = r.value("--seed")) seed = ArgReader::toUint("--seed", *v, UINT64_MAX);
    else if (r.flag("--dump")) dump = true;
    else if (r.flag("--json")) json = true;
    else if (auto v = r.value("--outputs-dir")) outputs_dir = *v;
    else if (r.flag("--quiet")) quiet = true;
    else if (r.positionalInto(in)) continue;
    else r.unknown();
  }
  if (in.empty()) throw UsageError("interp needs a program (a path, or - for standard input)");
  auto program = loadProgram(in);
  if (!program) return kExitBadInput;
  InterpOptions opts;
  opts.input_seed = seed;
  opts.release_dead = true;  // only outputs are reported: memory follows the tensors in use
  InterpResult result;
  ProgressLine progress("interp", ProgressLine::wanted(quiet));
  opts.progress = progress.fn();
  try {
    result = interpret(*program, opts);
    progress.erase();
  } catch (const InputError& e) {
    progress.erase();
    std::fputs(e.format(in == "-" ? "<stdin>" : in).c_str(), stderr);
    return kExitBadInput;
  }
  if (!outputs_dir.empty())
    for (TensorId t = 0; t < program->tensors.size(); ++t)
      if (program->tensors[t].output && t < result.outputs.size()) {
        const std::vector<uint8_t>& b = result.outputs[t];
        writeOutput(outputs_dir + "/" + program->tensors[t].name + ".bin", std::string(b.begin(), b.end()));
      }
  std::string text = json ? outputsJson(*program, result, dump) : outputsText(*program, result, dump);
  std::fputs(text.c_str(), stdout);
  return kExitOk;
}

}  // namespace allocsim::cli
