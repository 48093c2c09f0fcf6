// The REG colorer's figures for docs/quality.md, deterministic, not timed: register spills against the
// max-live register lower bound per kernel, and how many generated programs on the real tiny preset (4 SP
// registers) allocate at every level among those whose SBUF and PSUM demand fits.
#pragma once

#include <string>

namespace allocsim {

// Markdown sections; `source_dir` is the repository root (corpus/kernels, corpus/register_kernels).
std::string regQualityTables(const std::string& source_dir);

}  // namespace allocsim
