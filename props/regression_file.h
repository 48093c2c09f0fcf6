// Failing cases become regressions: a property that finds a counterexample writes it
// as a text program to corpus/regressions/<name>.nki.txt, where tests/corpus/regressions_test.cpp replays it on
// every test run. RapidCheck runs the property again on each smaller candidate while shrinking, and the
// last failing run is the shrunk counterexample, so the file is overwritten each time and ends up minimal.
#pragma once

#include <string>

#include "ir/program.h"

namespace allocsim {

// The directory regressions go to: $ALLOCSIM_REGRESSION_DIR if set, else <source>/corpus/regressions.
std::string regressionDir();

// Writes `p` (with a comment line `why`) to regressionDir()/<name>.nki.txt; returns the path ("" if it
// could not be written, which must not hide the property's failure).
std::string saveRegression(const std::string& name, const Program& p, const std::string& why);

}  // namespace allocsim
