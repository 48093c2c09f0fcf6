// The corpus kernels (corpus/kernels/*.nki.txt), embedded in the binary at configure time
// (tools/embed_kernels.cmake) so that `allocsim fuzz-allocator` runs them without a source tree.
#pragma once

#include <vector>

namespace allocsim::cli {

struct EmbeddedKernel {
  const char* path;  // relative to the source tree
  const char* text;
};

const std::vector<EmbeddedKernel>& corpusKernels();

}  // namespace allocsim::cli
