// The corpus kernels allocated as the simulator's tests run them: the gen2 kernels at -O2 (their data is large), the
// tiny ones at -O0..3, 6, 7 and 8 (-O7 with the PSUM colorer's placements, as it takes them from its input); an
// optlevel the allocator cannot fit a kernel at is skipped. ci/long_checks.sh runs every kernel at every level.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "alloc/alloc_error.h"
#include "alloc/driver.h"
#include "alloc/psum/psum_allocator.h"
#include "ir/parse.h"
#include "tests/common/files.h"

namespace allocsim {

// The corpus kernels' file names (corpus/kernels/*.nki.txt).
inline std::vector<std::string> corpusKernelNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/")) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= 8 && name.substr(name.size() - 8) == ".nki.txt") names.push_back(name);
  }
  return names;
}

// Calls visit(kernel file name, optlevel, allocated program) for each allocation; returns how many there were.
template <class Visit>
int forEachCorpusAllocation(Visit&& visit) {
  int n = 0;
  for (const std::string& name : corpusKernelNames()) {
    const Program source = parseProgram(readFile(std::string(ALLOCSIM_SOURCE_DIR) + "/corpus/kernels/" + name));
    const bool tiny = name.find("_tiny") != std::string::npos;
    for (int level : {0, 1, 2, 3, 6, 7, 8}) {
      if (!tiny && level != 2) continue;
      DriverOptions o;
      o.optlevel = level;
      Program allocated;
      try {
        // O7 runs no PSUM coloring pass (alloc/driver.h): its PSUM placements come with the input.
        allocated = allocate(level == 7 ? allocatePsum(source, PsumOptions{}).program : source, o).program;
      } catch (const AllocError&) {
        continue;  // the allocator cannot fit it: nothing to simulate
      }
      visit(name, level, allocated);
      ++n;
    }
  }
  return n;
}

}  // namespace allocsim
