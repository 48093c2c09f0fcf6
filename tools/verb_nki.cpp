// allocsim nki: trace an NKI kernel written in Python (python/allocsim_nki) into a program of docs/format.md.
#include <cstdio>
#include <string>

#include "ir/check.h"
#include "ir/parse.h"
#include "tools/args.h"
#include "tools/load.h"
#include "tools/python_kernel.h"
#include "tools/verbs.h"

namespace allocsim::cli {

static const char kNkiHelp[] =
    "usage: allocsim nki KERNEL.py [--kernel NAME] [--arg NAME=SPEC ...] [--grid GXxGY] [--arch NAME]\n"
    "                  [--trace-time-limit S] [--trace-memory-limit BYTES] [-o OUT.nki.txt]\n"
    "\n"
    "Traces an NKI kernel (a Python function decorated with @nki.jit, written against nki.language and nki.isa,\n"
    "or their neuronxcc.nki spellings) into a program: the kernel runs once on symbolic tiles, its affine_range\n"
    "and sequential_range loops become program loops, its tensors declarations (a hand-placed tensor comes out\n"
    "pinned at its placement). The program is checked, then written with each instruction's kernel line noted\n"
    "at its end. Without --kernel, lists the file's kernels and their parameters.\n"
    "\n"
    "  --kernel NAME   the kernel to trace (may be left out when the file has one)\n"
    "  --arg NAME=SPEC a parameter's value: a tensor in HBM as DIMxDIM...:DTYPE (e.g. lhsT=1024x512:bfloat16), or\n"
    "                  a Python literal (pool_size=2, scale=0.125, flag=True); parameters with a default may be left out\n"
    "  --grid GXxGY    launch the kernel on an SPMD grid (2, 2x4, 2x2x2: as kernel[2, 4] in Python): one program\n"
    "                  loop per grid axis around the kernel, nl.program_id(axis) its index\n"
    "  --arch NAME     machine preset the tile sizes come from (gen2, the default; gen1; gen3; tiny)\n"
    "  --trace-time-limit S  stop the Python tracer after S seconds (default 60; every verb that reads a .py\n"
    "                  kernel takes it)\n"
    "  --trace-memory-limit BYTES  the memory the Python tracer may allocate (default 4294967296, at least\n"
    "                  67108864; every verb that reads a .py kernel takes it): a kernel file that asks for more\n"
    "                  gets Python's MemoryError at its line\n"
    "  -o FILE         write the program to FILE (default standard output)\n"
    "\n"
    "`allocsim run|alloc|verify|interp KERNEL.py` trace the same way with the same --kernel/--arg/--grid flags;\n"
    "`--input NAME=FILE` gives an input tensor's data (raw little-endian row-major bytes) to those verbs.\n"
    "The Python package is found at $ALLOCSIM_PYTHONPATH, <prefix>/share/allocsim/python of an installed tree,\n"
    "or python/ of the source tree the binary was built from.\n"
    "\n"
    "exit codes: 0 ok, 2 bad input (kernel errors are reported at the kernel's file and line)\n";

int runNki(const Args& raw) {
  Args args = raw;
  std::string out, kernel, arch, grid;
  std::vector<std::string> specs;
  std::string in;
  ArgReader r(args);
  while (!r.done()) {
    if (r.help(kNkiHelp)) return kExitOk;
    if (auto v = r.value("-o")) out = *v;
    else if (auto v = r.value("--kernel")) kernel = *v;
    else if (auto v = r.value("--arg")) specs.push_back(*v);
    else if (auto v = r.value("--arch")) arch = *v;
    else if (auto v = r.value("--grid")) grid = *v;
    else if (auto v = r.value("--trace-time-limit")) {
      Args limit = {"--trace-time-limit", *v};
      takeKernelOptions(limit);
    } else if (auto v = r.value("--trace-memory-limit")) {
      Args limit = {"--trace-memory-limit", *v};
      takeKernelOptions(limit);
    }
    else if (r.positionalInto(in)) continue;
    else r.unknown();
  }
  if (in.empty()) throw UsageError("nki needs a kernel file (KERNEL.py)");
  if (!isPythonKernel(in)) throw UsageError("nki reads a Python kernel (a .py file), not '" + in + "'");
  std::string text;
  if (kernel.empty()) {
    std::vector<std::string> list = {"list", in};
    int rc = runPythonTool(list, text);
    if (rc == 127) throw UsageError("cannot run python3, which reads " + in);
    if (rc != 0) return kExitBadInput;
    if (text.empty())  // the list names at least one kernel, or says there is none: the file ended the tracer
      throw UsageError(in + ": the Python tracer ended without listing the kernels (does the file call os._exit()?)");
    writeOutput(out, text);
    return kExitOk;
  }
  Args forward = {"--kernel", kernel};
  for (const std::string& s : specs) forward.insert(forward.end(), {"--arg", s});
  if (!grid.empty()) forward.insert(forward.end(), {"--grid", grid});
  takeKernelOptions(forward);
  std::optional<std::string> traced = traceKernel(in, arch);
  if (!traced) return kExitBadInput;
  try {
    Program p = parseProgram(*traced);
    requireWellFormed(p);
  } catch (const InputError& e) {
    for (const Diagnostic& d : e.diagnostics())
      std::fputs(locateInKernel(*traced, in + " (traced)", d.loc.line, d.loc.col, d.message).c_str(), stderr);
    return kExitBadInput;
  }
  writeOutput(out, *traced);
  return kExitOk;
}

}  // namespace allocsim::cli
