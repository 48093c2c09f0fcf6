// NKI kernels written in Python as programs: `allocsim nki KERNEL.py` and every verb that reads a program accept a
// `.py` file, traced by the Python package in python/ (allocsim_nki) into the text of docs/format.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "tools/cli.h"

namespace allocsim::cli {

// The options that say which kernel of a .py file to trace and with which arguments, and the input data a user
// gives for a run: `--kernel NAME`, `--arg NAME=SPEC` (repeatable), `--input NAME=FILE` (repeatable).
struct KernelOptions {
  std::string kernel;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> inputs;  // tensor name, file of raw row-major bytes
  std::string arch;  // --arch with a .py program: the tracer's (tile sizes), taken from the verb's arguments
  std::string grid;  // --grid GXxGY...: the SPMD launch grid the kernel is traced on (kernel[gx, gy] in Python)
  double trace_time_limit_s = 60;  // --trace-time-limit S: the Python tracer is stopped after S seconds
  // --trace-memory-limit BYTES: the data the Python tracer may allocate (its RLIMIT_DATA); a kernel file that asks
  // for more gets Python's MemoryError at its line instead of taking the machine's memory.
  uint64_t trace_memory_limit_bytes = uint64_t(4) << 30;
};

// Removes the options above from `args` (any verb but `nki`, which reads them itself) into the process-wide
// options, reads the --input files and hands their bytes to ir/inputs.h; also `--trace-time-limit S`,
// `--trace-memory-limit BYTES` and `--grid`. Throws
// UsageError.
void takeKernelOptions(Args& args);
const KernelOptions& kernelOptions();

bool isPythonKernel(const std::string& path);

// The directory that holds the allocsim_nki package: $ALLOCSIM_PYTHONPATH, else <bin>/../share/allocsim/python
// of an installed tree, else python/ of the source tree this binary was built from.
std::string pythonPackageDir();

// Runs `python3 -m allocsim_nki.cli ARGS...`; its standard error passes through, its standard output is returned
// in `out`. Returns the exit code (127 when python3 cannot be run). Throws UsageError naming the file when it has
// not finished within kernelOptions().trace_time_limit_s (it is stopped, with whatever it started).
int runPythonTool(const std::vector<std::string>& args, std::string& out);

// Traces `path` with kernelOptions(): the program's text, or nullopt after the tracer's located errors were printed.
std::optional<std::string> traceKernel(const std::string& path, const std::string& arch = "");

// A diagnostic about line `line` of a traced program, moved to the kernel source line the tracer wrote at the end of
// that line (`# FILE:LINE`): "FILE:LINE: message (traced program line L:C)". Without such a note, "TRACED:L:C: ...".
std::string locateInKernel(const std::string& traced_text, const std::string& traced_name, uint32_t line,
                           uint32_t col, const std::string& message);

// The kernel source line noted at the end of line `line` of a traced program ("FILE:LINE"), or "" without one.
std::string kernelLineNote(const std::string& traced_text, uint32_t line);

// The program a verb loaded last, when it was traced from Python (empty text otherwise): reports that name program
// lines (the stall report) name the kernel lines too, through tracedKernelLine ("" when there is no such line).
void rememberTracedProgram(const std::string& traced_text);
std::string tracedKernelLine(uint32_t line);

// Checks the --input names and sizes against `p`'s DRAM inputs. Throws UsageError.
void checkProvidedInputs(const Program& p);

}  // namespace allocsim::cli
