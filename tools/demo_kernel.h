// The kernel `allocsim demo` runs, embedded in the binary at build time (CMakeLists.txt reads the corpus file
// into a generated demo_kernel.cpp from tools/demo_kernel.cpp.in), so the demo needs no files at run time.
#pragma once

namespace allocsim::cli {

extern const char kDemoKernelPath[];  // where it came from, relative to the source tree
extern const char kDemoKernelText[];  // its text

}  // namespace allocsim::cli
