// allocsim demo: the first thing a new user types. Runs a bundled corpus kernel (tools/demo_kernel.h) through the
// whole toolkit — check, allocate at -O2, the three oracles, the reference run and the run on physical storage —
// and says what each step showed.
#include <cstdio>
#include <string>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "ir/check.h"
#include "ir/hash.h"
#include "ir/interp.h"
#include "ir/parse.h"
#include "ir/physical_storage.h"
#include "ir/print.h"
#include "tools/alloc_output.h"
#include "tools/args.h"
#include "tools/demo_kernel.h"
#include "tools/verbs.h"
#include "tools/verify_report.h"
#include "verify/correct.h"

namespace allocsim::cli {

static const char kDemoHelp[] =
    "usage: allocsim demo [--print] [--poison-seed S]\n"
    "\n"
    "Runs a kernel bundled in the binary (the NKI tutorial's tiled matmul, corpus/kernels/matmul_tiled.nki.txt)\n"
    "end to end: checks it, allocates it at -O2 and prints the allocators' report, verifies the allocation with\n"
    "the equivalence, symbolic and placement oracles, then runs the kernel on the reference interpreter and the\n"
    "allocated kernel on the machine's physical storage and prints both output hashes.\n"
    "\n"
    "  --print           also print the allocated program\n"
    "  --poison-seed S   seed of the poison pattern (default: new each run, printed)\n"
    "\n"
    "exit codes: 0 ok, 1 verification found a bug, 3 allocation impossible\n";

namespace {

std::string indent(const std::string& text, size_t n = 3) {
  const std::string pad(n, ' ');
  std::string out = pad;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size()) out += pad;
  }
  return out;
}

// The hash line of every output of a run (the digest `allocsim interp` prints).
std::string hashes(const Program& p, const InterpResult& r) {
  std::string out;
  for (TensorId id = 0; id < p.tensors.size(); ++id) {
    if (!p.tensors[id].output || id >= r.outputs.size()) continue;
    OperandHasher h;
    h.bytes(r.outputs[id].data(), r.outputs[id].size());
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", (unsigned long long)h.digest());
    out += "output " + p.tensors[id].name + " hash=" + buf + "\n";
  }
  return out;
}

}  // namespace

int runDemo(const Args& args) {
  ArgReader r(args);
  bool print = false;
  VerifyOptions vopts;
  while (!r.done()) {
    if (r.help(kDemoHelp)) return kExitOk;
    if (r.flag("--print")) print = true;
    else if (auto v = r.value("--poison-seed")) vopts.poison_seed = ArgReader::toUint("--poison-seed", *v, UINT64_MAX);
    else r.unknown();
  }
  if (vopts.poison_seed == 0) vopts.poison_seed = clockPoisonSeed();
  const std::string file = kDemoKernelPath;

  std::printf("allocsim demo: %s (bundled in the binary)\n\n", file.c_str());
  Program input;
  try {
    input = parseProgram(kDemoKernelText);
    requireWellFormed(input);
  } catch (const InputError& e) {  // only if the bundled kernel is broken: a build problem, said plainly
    std::fprintf(stderr, "the bundled kernel does not parse:\n%s", e.format(file).c_str());
    return kExitBadInput;
  }
  uint32_t instructions = 0;
  forEachInstruction(input.body, [&](const Instruction&) { ++instructions; });
  std::printf("1. check: arch %s, %zu tensors, %zu registers, %u instructions: well-formed\n\n", input.arch.name.c_str(),
              input.tensors.size(), input.registers.size(), instructions);

  DriverOptions dopts;  // -O2
  dopts.liveness_report = true;
  DriverResult result;
  try {
    result = allocate(input, dopts);
  } catch (const AllocError& e) {
    std::fprintf(stderr, "%s\n", e.format(file).c_str());
    return kExitAllocImpossible;
  }
  std::printf("2. allocate at -O2 (allocsim alloc %s -O2 -v):\n%s\n", file.c_str(),
              indent(driverReportText(result)).c_str());
  if (print) std::printf("   the allocated program:\n%s\n", indent(printProgram(result.program)).c_str());

  CorrectnessOptions check;
  check.verify = vopts;
  check.input = &input;
  const Verdict verdict = checkAllocation(result.program, check);
  const std::string verdict_text = verdict.defect == Defect::None || verdict.defect == Defect::Findings
                                       ? verifyReportText(verdict.report, file, vopts.input_seed)
                                       : describeDefect(verdict, file);
  std::printf("3. verify (allocsim verify): the three oracles on the allocated program\n%s\n",
              indent(verdict_text).c_str());

  InterpOptions iopts;
  iopts.input_seed = vopts.input_seed;
  iopts.record_reads = false;
  InterpResult reference = interpret(input, iopts);
  PhysicalStorage storage(result.program, vopts.poison_seed);
  InterpResult physical = interpret(result.program, storage, iopts);
  const std::string ref_hashes = hashes(input, reference), phys_hashes = hashes(result.program, physical);
  std::printf("4. run (allocsim interp): input seed %llu\n   reference, every tensor in its own storage:\n%s"
              "   allocated, on the machine's physical storage (poison seed %llu):\n%s   %s\n\n",
              (unsigned long long)iopts.input_seed, indent(ref_hashes, 5).c_str(),
              (unsigned long long)vopts.poison_seed, indent(phys_hashes, 5).c_str(),
              ref_hashes == phys_hashes ? "same bits" : "DIFFERENT BITS");
  std::printf("next: allocsim alloc corpus/kernels/matmul_tiled_tiny.nki.txt -O2 -v --verify   (a kernel that must "
              "spill)\n      allocsim alloc PROG -O7   (keep your own placements; the in-place checker re-places "
              "them)\n      allocsim --help\n");
  return verdict.ok() && ref_hashes == phys_hashes ? kExitOk : kExitVerifyFailed;
}

}  // namespace allocsim::cli
