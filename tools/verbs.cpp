// The verb table. Each verb lives in its own tools/verb_<name>.cpp.
#include "tools/verbs.h"

#include <cstdio>

#include "alloc/alloc_error.h"
#include "alloc/optlevel.h"
#include "ir/minimalloc_csv.h"
#include "tools/args.h"

namespace allocsim::cli {

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> table = {
      {"fmt", "parse, check and print a program in canonical form", runFmt},
      {"interp", "run a program on the reference interpreter; hash (or dump) its outputs", runInterp},
      {"gen", "print a random well-formed program (--seed S --size N --pressure P --arch A)", runGen},
      {"verify", "check an allocated program with the equivalence, symbolic and placement oracles", runVerify},
      {"alloc", "allocate a program at an optlevel (-O N) and print the allocated program", runAlloc},
      {"show", "draw an allocated program's placements over time as SVG (-o map.svg)", runShow},
      {"fuzz-allocator", "fuzz any allocator command with generated programs; shrink each failure (-- CMD ARGS)",
       runFuzzAllocator},
      {"run", "allocate, simulate on the SystemC model, check against the interpreter; cycles and stalls", runRun},
      {"trace", "simulate and write the engine and DMA queue timelines (--vcd FILE, --perfetto FILE)", runTrace},
      {"import", "write the program of a minimalloc problem (import minimalloc FILE.csv)", runImport},
      {"export", "write an allocated imported program as minimalloc's solution CSV, checked by its rules", runExport},
      {"solve", "place a minimalloc problem by the exact search, on its own times (solve minimalloc FILE.csv)",
       runSolve},
      {"nki", "trace an NKI kernel written in Python (KERNEL.py --kernel NAME --arg ...) into a program", runNki},
      {"demo", "allocate, verify and run a bundled kernel end to end: start here", runDemo},
  };
  return table;
}

std::optional<MinimallocArgs> readMinimallocArgs(const Args& args, const std::string& verb, uint64_t max_capacity,
                                                 const char* help, const std::function<bool(ArgReader&)>& own) {
  ArgReader r(args);
  MinimallocArgs a;
  std::string format;
  std::optional<uint64_t> capacity;
  while (!r.done()) {
    if (r.help(help)) return std::nullopt;
    if (auto v = r.value("-o")) a.out = *v;
    else if (auto v = r.value("--capacity")) capacity = ArgReader::toUint("--capacity", *v, max_capacity);
    else if (own(r)) continue;
    else if (r.flag("--quiet")) a.quiet = true;
    else if (auto p = r.positional()) {
      std::string& slot = format.empty() ? format : a.in;
      if (!slot.empty()) throw UsageError("unexpected argument '" + *p + "'");
      slot = *p;
    } else r.unknown();
  }
  if (format != "minimalloc") throw UsageError(verb + " knows one format: '" + verb + " minimalloc FILE.csv'");
  if (a.in.empty()) throw UsageError(verb + " minimalloc needs a CSV file (a path, or - for standard input)");
  if (!capacity) capacity = capacityFromFileName(a.in);
  if (!capacity) throw UsageError("--capacity N is needed: the file name '" + a.in + "' carries no capacity");
  a.capacity = *capacity;
  a.display = a.in == "-" ? "<stdin>" : a.in;
  return a;
}

int allocationErrorsReported(const std::string& display, const std::function<int()>& body) {
  try {
    return body();
  } catch (const OptionError& e) {
    throw UsageError(e.what());
  } catch (const AllocError& e) {
    std::fputs((e.format(display) + "\n").c_str(), stderr);
    return kExitAllocImpossible;
  } catch (const InputError& e) {
    std::fputs(e.format(display).c_str(), stderr);
    return kExitBadInput;
  }
}

}  // namespace allocsim::cli
